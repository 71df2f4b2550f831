// Conformance: a CRD created with kubectl serves its custom resources at once, cluster- and
// namespace-scoped, with the status subresource rules, generation, structural schemas and printer
// columns, driven through kubectl and @kubernetes/client-node.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiException, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';
import { assertStatus, customResourceDefinition, json, kubectlApply, kubectlOk, raw } from './support.ts';

const GROUP = 'conformance.example.com';

function crd(scope: 'Namespaced' | 'Cluster', plural: string, kind: string, shortName: string) {
  return customResourceDefinition({
    group: GROUP,
    scope,
    plural,
    kind,
    shortNames: [shortName],
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
          { name: 'Ready', type: 'boolean', jsonPath: '.status.ready' },
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['size'],
                properties: {
                  size: { type: 'integer', minimum: 1 },
                  color: { type: 'string', default: 'blue', enum: ['blue', 'red'] },
                },
              },
              status: { type: 'object', properties: { ready: { type: 'boolean' } } },
            },
          },
        },
      },
    ],
  });
}

const widget = (name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'Widget',
  metadata: { name, namespace: 'default' },
  spec,
  ...extra,
});

describe('custom resources', () => {
  let local: LocalApiServer;
  let custom: CustomObjectsApi;

  before(async () => {
    local = await startLocalApiServer();
    custom = local.kubeConfig().makeApiClient(CustomObjectsApi);
    await kubectlApply(local, [
      crd('Namespaced', 'widgets', 'Widget', 'wdg'),
      crd('Cluster', 'gadgets', 'Gadget', 'gdg'),
    ]);
  });
  after(() => local.stop());

  test('a created CRD becomes Established and appears in discovery', async () => {
    await kubectlOk(local, [
      'wait',
      '--for=condition=Established',
      '--timeout=10s',
      `crd/widgets.${GROUP}`,
      `crd/gadgets.${GROUP}`,
    ]);
    const resources = await kubectlOk(local, ['api-resources', `--api-group=${GROUP}`, '-o', 'wide']);
    assert.match(resources, /^widgets\s+wdg\s+conformance\.example\.com\/v1\s+true\s+Widget\s/m);
    assert.match(resources, /^gadgets\s+gdg\s+conformance\.example\.com\/v1\s+false\s+Gadget\s/m);
    const list = await raw(local, { path: `/apis/${GROUP}/v1` });
    assert.equal(list.status, 200);
    const names = list.json.resources.map((r: { name: string }) => r.name).sort();
    assert.deepEqual(names, ['gadgets', 'gadgets/status', 'widgets', 'widgets/status']);
  });

  test('namespaced: create drops status, sets generation 1 and defaults', async () => {
    await kubectlOk(
      local,
      ['create', '-f', '-'],
      json(widget('w1', { size: 2 }, { status: { ready: true } })),
    );
    const got = JSON.parse(await kubectlOk(local, ['get', 'widget', 'w1', '-o', 'json']));
    assert.equal(got.metadata.generation, 1);
    assert.equal(got.metadata.namespace, 'default');
    assert.equal(got.status, undefined, 'status is written only through /status');
    assert.equal(got.spec.color, 'blue', 'structural default applied');
    assert.match(got.metadata.uid, /^[0-9a-f-]{36}$/);
    assert.match(got.metadata.resourceVersion, /^\d+$/);
    assert.match(got.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  test('main resource writes ignore status; only spec changes bump generation', async () => {
    const before = (await custom.getNamespacedCustomObject({
      group: GROUP,
      version: 'v1',
      namespace: 'default',
      plural: 'widgets',
      name: 'w1',
    })) as any;

    // A metadata-only change: new resourceVersion, same generation.
    const labelled = (await custom.replaceNamespacedCustomObject({
      group: GROUP,
      version: 'v1',
      namespace: 'default',
      plural: 'widgets',
      name: 'w1',
      body: { ...before, metadata: { ...before.metadata, labels: { tier: 'gold' } } },
    })) as any;
    assert.equal(labelled.metadata.generation, 1);
    assert.ok(Number(labelled.metadata.resourceVersion) > Number(before.metadata.resourceVersion));

    // A spec change with a status in the body: generation 2, status still absent.
    const changed = (await custom.replaceNamespacedCustomObject({
      group: GROUP,
      version: 'v1',
      namespace: 'default',
      plural: 'widgets',
      name: 'w1',
      body: { ...labelled, spec: { ...labelled.spec, size: 3 }, status: { ready: true } },
    })) as any;
    assert.equal(changed.metadata.generation, 2);
    assert.equal(changed.spec.size, 3);
    assert.equal(changed.status, undefined);
  });

  test('/status writes ignore everything but status and keep generation', async () => {
    const current = (await custom.getNamespacedCustomObject({
      group: GROUP,
      version: 'v1',
      namespace: 'default',
      plural: 'widgets',
      name: 'w1',
    })) as any;
    const written = (await custom.replaceNamespacedCustomObjectStatus({
      group: GROUP,
      version: 'v1',
      namespace: 'default',
      plural: 'widgets',
      name: 'w1',
      body: {
        ...current,
        metadata: { ...current.metadata, labels: { tier: 'bronze' } },
        spec: { size: 99 },
        status: { ready: true },
      },
    })) as any;
    assert.deepEqual(written.status, { ready: true });
    assert.equal(written.spec.size, 3, 'spec unchanged by a /status write');
    assert.deepEqual(written.metadata.labels, { tier: 'gold' }, 'labels unchanged by a /status write');
    assert.equal(written.metadata.generation, current.metadata.generation);
    assert.ok(Number(written.metadata.resourceVersion) > Number(current.metadata.resourceVersion));

    // kubectl's /status patch, too.
    await kubectlOk(local, [
      'patch',
      'widget',
      'w1',
      '--subresource=status',
      '--type=merge',
      '-p',
      json({ status: { ready: false }, spec: { size: 50 } }),
    ]);
    const after = JSON.parse(await kubectlOk(local, ['get', 'widget', 'w1', '-o', 'json']));
    assert.equal(after.status.ready, false);
    assert.equal(after.spec.size, 3);
    assert.equal(after.metadata.generation, current.metadata.generation);
  });

  test('an update without resourceVersion is 422 for custom resources', async () => {
    const res = await raw(local, {
      method: 'PUT',
      path: `/apis/${GROUP}/v1/namespaces/default/widgets/w1`,
      body: json(widget('w1', { size: 4 })),
    });
    assertStatus(res, 422, 'Invalid');
    assert.equal(res.json.details.causes[0].field, 'metadata.resourceVersion');
  });

  test('cluster-scoped: created without a namespace, listed, never under a namespace URL', async () => {
    await kubectlOk(
      local,
      ['apply', '-f', '-'],
      json({ apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name: 'g1' }, spec: { size: 1 } }),
    );
    const created = (await custom.getClusterCustomObject({
      group: GROUP,
      version: 'v1',
      plural: 'gadgets',
      name: 'g1',
    })) as any;
    assert.equal(created.metadata.namespace, undefined);
    assert.equal(created.metadata.generation, 1);
    const list = (await custom.listClusterCustomObject({
      group: GROUP,
      version: 'v1',
      plural: 'gadgets',
    })) as any;
    assert.equal(list.kind, 'GadgetList');
    assert.equal(list.apiVersion, `${GROUP}/v1`);
    assert.deepEqual(
      list.items.map((i: any) => i.metadata.name),
      ['g1'],
    );
    assert.match(list.metadata.resourceVersion, /^\d+$/);
    const namespacedUrl = await raw(local, { path: `/apis/${GROUP}/v1/namespaces/default/gadgets/g1` });
    assert.equal(namespacedUrl.status, 404);
    assert.equal(namespacedUrl.json.kind, 'Status');

    const status = (await custom.patchClusterCustomObjectStatus(
      {
        group: GROUP,
        version: 'v1',
        plural: 'gadgets',
        name: 'g1',
        body: { status: { ready: true }, spec: { size: 7 } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )) as any;
    assert.deepEqual(status.status, { ready: true });
    assert.equal(status.spec.size, 1);
  });

  test('kubectl get prints the printer columns (Table)', async () => {
    const out = await kubectlOk(local, ['get', 'widgets']);
    const [header, row] = out.trim().split('\n');
    // Like kube: declared columns replace the default Age column.
    assert.match(header!, /^NAME\s+SIZE\s+READY$/);
    assert.match(row!, /^w1\s+3\s+false$/);
    const gadgets = await kubectlOk(local, ['get', 'gadgets']);
    assert.match(gadgets, /^g1\s+1\s+true$/m);
  });

  test('structural schema: invalid values are 422 with field paths, unknown fields pruned', async () => {
    const bad = await raw(local, {
      method: 'POST',
      path: `/apis/${GROUP}/v1/namespaces/default/widgets`,
      body: json(widget('bad', { size: 0, color: 'green' })),
    });
    assertStatus(bad, 422, 'Invalid');
    const fields = bad.json.details.causes.map((c: { field: string }) => c.field).sort();
    assert.deepEqual(fields, ['spec.color', 'spec.size']);
    const missing = await raw(local, {
      method: 'POST',
      path: `/apis/${GROUP}/v1/namespaces/default/widgets`,
      body: json(widget('bad', {})),
    });
    assertStatus(missing, 422, 'Invalid');
    assert.equal(missing.json.details.causes[0].field, 'spec.size');
    assert.equal(
      (await raw(local, { path: `/apis/${GROUP}/v1/namespaces/default/widgets/bad` })).status,
      404,
    );

    const pruned = await raw(local, {
      method: 'POST',
      path: `/apis/${GROUP}/v1/namespaces/default/widgets`,
      body: json(widget('pruned', { size: 1, extra: 'x' }, { topLevel: 1 })),
    });
    assert.equal(pruned.status, 201, pruned.text);
    assert.equal(pruned.json.spec.extra, undefined);
    assert.equal(pruned.json.topLevel, undefined);

    const strict = await raw(local, {
      method: 'POST',
      path: `/apis/${GROUP}/v1/namespaces/default/widgets?fieldValidation=Strict`,
      body: json(widget('strict', { size: 1, extra: 'x' })),
    });
    assertStatus(strict, 400, 'BadRequest');
    assert.match(strict.json.message, /unknown field "spec\.extra"/);
  });

  test('strategic merge patch on a custom resource is 415', async () => {
    const result = await local.kubectl([
      'patch',
      'widget',
      'w1',
      '--type=strategic',
      '-p',
      json({ spec: { size: 5 } }),
    ]);
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /UnsupportedMediaType|415|not supported/i);
    const res = await raw(local, {
      method: 'PATCH',
      path: `/apis/${GROUP}/v1/namespaces/default/widgets/w1`,
      contentType: 'application/strategic-merge-patch+json',
      body: json({ spec: { size: 5 } }),
    });
    assertStatus(res, 415, 'UnsupportedMediaType');
    const after = (await raw(local, { path: `/apis/${GROUP}/v1/namespaces/default/widgets/w1` })).json;
    assert.equal(after.spec.size, 3);
  });

  test('client-node surfaces Status errors as ApiException', async () => {
    await assert.rejects(
      custom.getNamespacedCustomObject({
        group: GROUP,
        version: 'v1',
        namespace: 'default',
        plural: 'widgets',
        name: 'nope',
      }),
      (err: unknown) => {
        assert.ok(err instanceof ApiException);
        assert.equal(err.code, 404);
        const body = typeof err.body === 'string' ? JSON.parse(err.body) : err.body;
        assert.equal(body.reason, 'NotFound');
        assert.deepEqual(body.details, { name: 'nope', group: GROUP, kind: 'widgets' });
        return true;
      },
    );
  });

  test('deleting the CRD deletes its custom resources and its discovery', async () => {
    await kubectlOk(local, ['delete', 'crd', `gadgets.${GROUP}`, '--wait=true', '--timeout=10s']);
    const gone = await raw(local, { path: `/apis/${GROUP}/v1/gadgets` });
    assert.equal(gone.status, 404);
    const discovery = await raw(local, { path: `/apis/${GROUP}/v1` });
    const names = discovery.json.resources.map((r: { name: string }) => r.name);
    assert.ok(!names.includes('gadgets'));
    // Recreating it shows no leftover instances.
    await kubectlOk(local, ['apply', '-f', '-'], json(crd('Cluster', 'gadgets', 'Gadget', 'gdg')));
    const list = await raw(local, { path: `/apis/${GROUP}/v1/gadgets` });
    assert.equal(list.status, 200);
    assert.deepEqual(list.json.items, []);
  });
});

// Conformance: server-side apply and field management over HTTP, the way kube-apiserver answers it:
// application/apply-patch+yaml with fieldManager and force, create on apply, metadata.managedFields
// on every write (Update managers for create/update/patch), conflicts as 409 with FieldManagerConflict
// causes, removal of fields a manager stops applying, map lists of custom resources merged by key,
// explicit and cleared managedFields, dry-run answers with the resourceVersion, and
// @kubernetes/client-node's PatchStrategy.ServerSideApply.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CoreV1Api, KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';
import { assertStatus, json, type RawResponse, raw, tokenOf } from './support.ts';

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const NODECONFIGS = '/apis/nodeherd.io/v1alpha1/nodeconfigs';
const APPLY = 'application/apply-patch+yaml';

const configMap = (name: string, data: Record<string, string>, labels?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(labels ? { labels } : {}) },
  data,
});

describe('server-side apply', () => {
  let local: LocalApiServer;

  const apply = (path: string, body: unknown, query: string): Promise<RawResponse> =>
    raw(local, { method: 'PATCH', path: `${path}?${query}`, contentType: APPLY, body: json(body) });
  const get = async (path: string) => (await raw(local, { path })).json;
  const managers = (object: any) =>
    (object.metadata.managedFields ?? []).map((e: any) => `${e.manager}/${e.operation}`).sort();
  const fieldsOf = (object: any, manager: string) =>
    object.metadata.managedFields.find((e: any) => e.manager === manager)?.fieldsV1;

  before(async () => {
    local = await startLocalApiServer();
  });
  after(() => local.stop());

  test('apply creates the object (201) and records an Apply manager in kube format', async () => {
    const res = await apply(
      `${CONFIGMAPS}/a1`,
      configMap('a1', { x: '1' }, { app: 'web' }),
      'fieldManager=alice',
    );
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.json.data, { x: '1' });
    const [entry, ...rest] = res.json.metadata.managedFields;
    assert.equal(rest.length, 0);
    assert.equal(entry.manager, 'alice');
    assert.equal(entry.operation, 'Apply');
    assert.equal(entry.apiVersion, 'v1');
    assert.equal(entry.fieldsType, 'FieldsV1');
    assert.match(entry.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.deepEqual(entry.fieldsV1, {
      'f:data': { 'f:x': {} },
      'f:metadata': { 'f:labels': { 'f:app': {} } },
    });
    // Lists, watches and gets carry managedFields too.
    const list = await get(`${CONFIGMAPS}?fieldSelector=metadata.name=a1`);
    assert.deepEqual(list.items[0].metadata.managedFields, res.json.metadata.managedFields);
  });

  test('PatchOptions are checked as kube checks them', async () => {
    const body = json(configMap('a1', { x: '1' }));
    const unnamed = await raw(local, { method: 'PATCH', path: `${CONFIGMAPS}/a1`, contentType: APPLY, body });
    assertStatus(unnamed, 422, 'Invalid');
    assert.deepEqual(unnamed.json.details.causes, [
      {
        reason: 'FieldValueRequired',
        message: 'Required value: is required for apply patch',
        field: 'fieldManager',
      },
    ]);
    const forced = await raw(local, {
      method: 'PATCH',
      path: `${CONFIGMAPS}/a1?force=true`,
      contentType: 'application/merge-patch+json',
      body: '{}',
    });
    assertStatus(forced, 422, 'Invalid');
    assert.equal(
      forced.json.message,
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    );
    const managed = await apply(
      `${CONFIGMAPS}/a1`,
      { ...configMap('a1', { x: '1' }), metadata: { name: 'a1', managedFields: [] } },
      'fieldManager=alice',
    );
    assertStatus(managed, 400, 'BadRequest');
    assert.equal(managed.json.message, 'metadata.managedFields must be nil');
    const version = await apply(
      `${CONFIGMAPS}/a1`,
      { ...configMap('a1', {}), apiVersion: 'v2' },
      'fieldManager=alice',
    );
    assertStatus(version, 400, 'BadRequest');
    assert.equal(
      version.json.message,
      'Incorrect version specified in apply patch. Specified patch version: v2, expected: v1',
    );
    const other = await apply(`${CONFIGMAPS}/a1`, configMap('zz', {}), 'fieldManager=alice');
    assertStatus(other, 400, 'BadRequest');
  });

  test('a conflict is 409 with a FieldManagerConflict cause per field; force takes the field over', async () => {
    const conflict = await apply(`${CONFIGMAPS}/a1`, configMap('a1', { x: '2' }), 'fieldManager=bob');
    assertStatus(conflict, 409, 'Conflict');
    assert.equal(conflict.json.message, 'Apply failed with 1 conflict: conflict with "alice": .data.x');
    assert.deepEqual(conflict.json.details, {
      causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.data.x' }],
    });
    assert.equal((await get(`${CONFIGMAPS}/a1`)).data.x, '1', 'a refused apply changes nothing');
    // The same value is shared ownership, no conflict.
    const shared = await apply(`${CONFIGMAPS}/a1`, configMap('a1', { x: '1' }), 'fieldManager=bob');
    assert.equal(shared.status, 200, shared.text);
    assert.deepEqual(managers(shared.json), ['alice/Apply', 'bob/Apply']);
    const forced = await apply(
      `${CONFIGMAPS}/a1`,
      configMap('a1', { x: '2' }),
      'fieldManager=bob&force=true',
    );
    assert.equal(forced.status, 200, forced.text);
    assert.equal(forced.json.data.x, '2');
    assert.deepEqual(fieldsOf(forced.json, 'alice'), { 'f:metadata': { 'f:labels': { 'f:app': {} } } });
    assert.deepEqual(fieldsOf(forced.json, 'bob'), { 'f:data': { 'f:x': {} } });
  });

  test('fields a manager stops applying are removed unless another manager owns them', async () => {
    await apply(
      `${CONFIGMAPS}/a2`,
      configMap('a2', { keep: '1', drop: '2', both: '3' }),
      'fieldManager=alice',
    );
    await apply(`${CONFIGMAPS}/a2`, configMap('a2', { both: '3' }), 'fieldManager=bob');
    const res = await apply(`${CONFIGMAPS}/a2`, configMap('a2', { keep: '1' }), 'fieldManager=alice');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.data, { keep: '1', both: '3' });
  });

  test('create, update and patch record Update managers from ?fieldManager or the User-Agent', async () => {
    const created = await raw(local, {
      method: 'POST',
      path: `${CONFIGMAPS}?fieldManager=creator`,
      body: json(configMap('u1', { a: '1', b: '2' })),
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(
      created.json.metadata.managedFields.map((e: any) => [e.manager, e.operation, e.fieldsV1]),
      [['creator', 'Update', { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } }]],
    );
    const patched = await raw(local, {
      method: 'PATCH',
      path: `${CONFIGMAPS}/u1`,
      contentType: 'application/merge-patch+json',
      body: json({ data: { a: '9' } }),
      headers: { 'User-Agent': 'my-tool/1.0 (linux)' },
    });
    assert.deepEqual(fieldsOf(patched.json, 'my-tool'), { 'f:data': { 'f:a': {} } });
    assert.deepEqual(fieldsOf(patched.json, 'creator'), { 'f:data': { '.': {}, 'f:b': {} } });
    // Applying over an Update manager's field conflicts, worded with its API version.
    const conflict = await apply(`${CONFIGMAPS}/u1`, configMap('u1', { b: '3' }), 'fieldManager=applier');
    assertStatus(conflict, 409, 'Conflict');
    assert.equal(conflict.json.details.causes[0].message, 'conflict with "creator" using v1');
    // A PUT that leaves managedFields out keeps them.
    const current = await get(`${CONFIGMAPS}/u1`);
    delete current.metadata.managedFields;
    const put = await raw(local, {
      method: 'PUT',
      path: `${CONFIGMAPS}/u1?fieldManager=editor`,
      body: json({ ...current, data: { ...current.data, c: '3' } }),
    });
    assert.deepEqual(managers(put.json), ['creator/Update', 'editor/Update', 'my-tool/Update']);
  });

  test('managedFields a client sends are honoured; [{}] clears them', async () => {
    const current = await get(`${CONFIGMAPS}/u1`);
    const mine = [
      {
        manager: 'someone',
        operation: 'Apply',
        apiVersion: 'v1',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {}, 'f:c': {} } },
      },
    ];
    const put = await raw(local, {
      method: 'PUT',
      path: `${CONFIGMAPS}/u1`,
      body: json({ ...current, metadata: { ...current.metadata, managedFields: mine } }),
    });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.json.metadata.managedFields, mine);
    const cleared = await raw(local, {
      method: 'PATCH',
      path: `${CONFIGMAPS}/u1`,
      contentType: 'application/json-patch+json',
      body: json([{ op: 'replace', path: '/metadata/managedFields', value: [{}] }]),
    });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal(cleared.json.metadata.managedFields, undefined);
    // The first apply then gives everything else to before-first-apply.
    const applied = await apply(
      `${CONFIGMAPS}/u1`,
      configMap('u1', { a: 'new' }),
      'fieldManager=late&force=true',
    );
    assert.deepEqual(managers(applied.json), ['before-first-apply/Update', 'late/Apply']);
  });

  test('dry-run update, patch and apply answer with the current resourceVersion and change nothing', async () => {
    const current = await get(`${CONFIGMAPS}/a2`);
    const rv = current.metadata.resourceVersion;
    const put = await raw(local, {
      method: 'PUT',
      path: `${CONFIGMAPS}/a2?dryRun=All`,
      body: json({ ...current, data: { keep: 'changed' } }),
    });
    const patch = await raw(local, {
      method: 'PATCH',
      path: `${CONFIGMAPS}/a2?dryRun=All`,
      contentType: 'application/strategic-merge-patch+json',
      body: json({ data: { keep: 'changed' } }),
    });
    const applied = await apply(
      `${CONFIGMAPS}/a2`,
      configMap('a2', { keep: 'changed' }),
      'fieldManager=alice&dryRun=All',
    );
    for (const res of [put, patch, applied]) {
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.metadata.resourceVersion, rv);
      assert.equal(res.json.data.keep, 'changed');
    }
    assert.equal((await get(`${CONFIGMAPS}/a2`)).data.keep, '1');
  });

  test('NodeConfig lists merge by key: two managers own different files and units', async () => {
    const file = (path: string, data: string) => ({ path, content: { inline: { data } } });
    const nodeConfig = (spec: unknown) => ({
      apiVersion: 'nodeherd.io/v1alpha1',
      kind: 'NodeConfig',
      metadata: { name: 'shared' },
      spec,
    });
    const first = await apply(
      `${NODECONFIGS}/shared`,
      nodeConfig({ files: [file('/etc/a', 'a')], units: [{ name: 'a.service', content: '[Service]\n' }] }),
      'fieldManager=team-a',
    );
    assert.equal(first.status, 201, first.text);
    const second = await apply(
      `${NODECONFIGS}/shared`,
      nodeConfig({ files: [file('/etc/b', 'b')] }),
      'fieldManager=team-b',
    );
    assert.equal(second.status, 200, second.text);
    assert.deepEqual(
      second.json.spec.files.map((f: any) => f.path),
      ['/etc/a', '/etc/b'],
    );
    assert.ok(fieldsOf(second.json, 'team-b')['f:spec']['f:files']['k:{"path":"/etc/b"}']);
    // team-a drops its file: only its own item goes.
    const third = await apply(
      `${NODECONFIGS}/shared`,
      nodeConfig({ units: [{ name: 'a.service', content: '[Service]\n' }] }),
      'fieldManager=team-a',
    );
    assert.equal(third.status, 200, third.text);
    assert.deepEqual(
      third.json.spec.files.map((f: any) => f.path),
      ['/etc/b'],
    );
    assert.deepEqual(
      third.json.spec.units.map((u: any) => u.name),
      ['a.service'],
    );
  });

  test('switching a file from inline content to a secretRef drops the old content whole, defaults included', async () => {
    const nodeConfig = (content: unknown) => ({
      apiVersion: 'nodeherd.io/v1alpha1',
      kind: 'NodeConfig',
      metadata: { name: 'switch' },
      spec: { files: [{ path: '/etc/x', content }] },
    });
    const first = await apply(
      `${NODECONFIGS}/switch`,
      nodeConfig({ inline: { data: 'x' } }),
      'fieldManager=ops',
    );
    assert.equal(first.status, 201, first.text);
    assert.deepEqual(first.json.spec.files[0].content, { inline: { data: 'x', encoding: 'plain' } });
    const secretRef = { namespace: 'nodeherd', name: 's', key: 'k' };
    const second = await apply(`${NODECONFIGS}/switch`, nodeConfig({ secretRef }), 'fieldManager=ops');
    assert.equal(second.status, 200, second.text);
    assert.deepEqual(second.json.spec.files[0].content, { secretRef });
  });

  test('apply to /status owns status only, recorded with subresource "status"', async () => {
    const config = {
      apiVersion: 'nodeherd.io/v1alpha1',
      kind: 'NodeConfig',
      metadata: { name: 'shared' },
      status: { observedGeneration: 1 },
    };
    const res = await apply(`${NODECONFIGS}/shared/status`, config, 'fieldManager=status-writer');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.status.observedGeneration, 1);
    const entry = res.json.metadata.managedFields.find((e: any) => e.manager === 'status-writer');
    assert.equal(entry.subresource, 'status');
    assert.deepEqual(entry.fieldsV1, { 'f:status': { 'f:observedGeneration': {} } });
    // The main resource ignores status: an apply there owns none of it.
    const main = await apply(`${NODECONFIGS}/shared`, { ...config, spec: {} }, 'fieldManager=team-c');
    assert.equal(main.status, 200, main.text);
    assert.equal(main.json.status.observedGeneration, 1);
    const mainEntry = main.json.metadata.managedFields.find((e: any) => e.manager === 'team-c');
    assert.equal(mainEntry.fieldsV1['f:status'], undefined);
    const absent = await apply(
      `${NODECONFIGS}/nothing/status`,
      { ...config, metadata: { name: 'nothing' } },
      'fieldManager=status-writer',
    );
    assertStatus(absent, 404, 'NotFound');
  });

  test('an apply that would create needs the create permission too (the controller may patch Nodes, not create them)', async () => {
    const path = join(local.dataDir, 'controller.kubeconfig');
    await local.server.issueCredential('controller', undefined, path);
    const kc = new KubeConfig();
    kc.loadFromFile(path);
    const token = tokenOf(kc);
    const node = (name: string) => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { zone: 'a' } },
    });
    const asController = (name: string) =>
      raw(local, {
        method: 'PATCH',
        path: `/api/v1/nodes/${name}?fieldManager=nodeherd-controller`,
        contentType: APPLY,
        body: json(node(name)),
        token,
      });
    assertStatus(await asController('new-node'), 403, 'Forbidden');
    assert.equal((await raw(local, { path: '/api/v1/nodes/new-node' })).status, 404);
    await raw(local, {
      method: 'POST',
      path: '/api/v1/nodes',
      body: json({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'old-node' } }),
    });
    const patched = await asController('old-node');
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.json.metadata.labels, { zone: 'a' });
  });

  test('@kubernetes/client-node applies with PatchStrategy.ServerSideApply', async () => {
    const core = local.kubeConfig().makeApiClient(CoreV1Api);
    const body = {
      ...configMap('from-client', { k: 'v' }),
      metadata: { name: 'from-client', namespace: 'default' },
    };
    const created = await core.patchNamespacedConfigMap(
      { name: 'from-client', namespace: 'default', body, fieldManager: 'client-node', force: true },
      setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
    );
    assert.deepEqual(created.data, { k: 'v' });
    assert.equal(created.metadata?.managedFields?.[0]?.manager, 'client-node');
    assert.equal(created.metadata?.managedFields?.[0]?.operation, 'Apply');
    const updated = await core.patchNamespacedConfigMap(
      {
        name: 'from-client',
        namespace: 'default',
        body: { ...body, data: { k: 'w' } },
        fieldManager: 'client-node',
      },
      setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
    );
    assert.deepEqual(updated.data, { k: 'w' });
  });
});

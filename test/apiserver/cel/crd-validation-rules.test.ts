// CRD x-kubernetes-validations end to end: a CRD with CEL rules is created over HTTP, and its custom
// resources are created, updated, patched and status-updated with kubectl, @kubernetes/client-node and
// raw HTTPS; invalid writes answer 422 Invalid with kube's causes, valid ones are stored.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiException, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';
import { assertStatus, json, kubectlOk, type RawResponse, raw } from '../conformance/support.ts';

const GROUP = 'cel.example.com';
const BASE = `/apis/${GROUP}/v1/namespaces/default/databases`;

const spec = {
  type: 'object',
  'x-kubernetes-validations': [
    { rule: 'self.minReplicas <= self.maxReplicas', message: 'minReplicas must not exceed maxReplicas' },
    {
      rule: "!has(self.mode) || self.mode != 'legacy' || self.maxReplicas <= 3",
      messageExpression: "'legacy mode allows at most 3 replicas, not ' + string(self.maxReplicas)",
      reason: 'FieldValueForbidden',
      fieldPath: '.maxReplicas',
    },
    {
      rule: "!has(self.notAfter) || self.notAfter > timestamp('2000-01-01T00:00:00Z')",
      message: 'notAfter is too old',
    },
    {
      rule: "!has(self.retention) || self.retention >= duration('1h')",
      message: 'retention must be at least 1h',
    },
    // Within kube's static budget (1,200 tags of 16 characters: about 8.6 million), yet over the
    // runtime per-call limit for long lists, which the cost guard enforces.
    { rule: '!has(self.tags) || self.tags.all(a, self.tags.exists(b, b == a))' },
  ],
  required: ['minReplicas', 'maxReplicas'],
  properties: {
    minReplicas: { type: 'integer' },
    maxReplicas: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self <= 100' }] },
    mode: { type: 'string', maxLength: 16 },
    notAfter: { type: 'string', format: 'date-time' },
    retention: { type: 'string', format: 'duration' },
    storageClass: {
      type: 'string',
      maxLength: 63,
      'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'storageClass is immutable' }],
    },
    version: {
      type: 'integer',
      'x-kubernetes-validations': [
        {
          rule: '!oldSelf.hasValue() || self >= oldSelf.value()',
          optionalOldSelf: true,
          messageExpression: "'version may not go back from ' + string(oldSelf.value())",
        },
      ],
    },
    owners: {
      type: 'array',
      maxItems: 16,
      items: {
        type: 'string',
        maxLength: 64,
        'x-kubernetes-validations': [{ rule: "self.matches('^[a-z]+@example\\\\.com$')" }],
      },
    },
    tags: { type: 'array', maxItems: 1200, items: { type: 'string', maxLength: 16 } },
    labels: {
      type: 'object',
      maxProperties: 16,
      additionalProperties: {
        type: 'string',
        maxLength: 63,
        'x-kubernetes-validations': [
          { rule: 'self.lowerAscii() == self', message: 'label values must be lower case' },
        ],
      },
    },
    ports: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: {
        type: 'object',
        required: ['name', 'port'],
        properties: { name: { type: 'string' }, port: { type: 'integer' } },
        'x-kubernetes-validations': [
          {
            rule: 'self.port == oldSelf.port',
            message: 'a named port keeps its number',
            reason: 'FieldValueForbidden',
          },
        ],
      },
    },
  },
};

function crd(extraRootRules: unknown[] = []) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `databases.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural: 'databases', singular: 'database', kind: 'Database', listKind: 'DatabaseList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              'x-kubernetes-validations': [
                { rule: "self.metadata.name.startsWith('db-')", message: 'names start with db-' },
                ...extraRootRules,
              ],
              properties: {
                spec,
                status: {
                  type: 'object',
                  properties: { readyReplicas: { type: 'integer' } },
                  'x-kubernetes-validations': [
                    { rule: 'self.readyReplicas >= 0', message: 'readyReplicas cannot be negative' },
                  ],
                },
              },
            },
          },
        },
      ],
    },
  };
}

const db = (name: string, s: Record<string, unknown>) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'Database',
  metadata: { name, namespace: 'default' },
  spec: s,
});

function causesOf(res: RawResponse): { reason: string; field: string; message: string }[] {
  assertStatus(res, 422, 'Invalid');
  return res.json.details.causes;
}

describe('CRD validation rules (CEL)', () => {
  let local: LocalApiServer;
  let custom: CustomObjectsApi;
  const post = (body: unknown) => raw(local, { method: 'POST', path: BASE, body: JSON.stringify(body) });
  const put = (name: string, body: unknown, sub = '') =>
    raw(local, { method: 'PUT', path: `${BASE}/${name}${sub}`, body: JSON.stringify(body) });
  const get = async (name: string) => (await raw(local, { path: `${BASE}/${name}` })).json;

  before(async () => {
    local = await startLocalApiServer();
    custom = local.kubeConfig().makeApiClient(CustomObjectsApi);
    const res = await raw(local, {
      method: 'POST',
      path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      body: JSON.stringify(crd()),
    });
    assert.equal(res.status, 201, res.text);
    await kubectlOk(local, [
      'wait',
      '--for=condition=Established',
      '--timeout=10s',
      `crd/databases.${GROUP}`,
    ]);
  });
  after(() => local.stop());

  test('a valid object is stored; rules at every location are checked', async () => {
    const res = await post(
      db('db-ok', {
        minReplicas: 1,
        maxReplicas: 3,
        mode: 'legacy',
        notAfter: '2030-01-01T00:00:00Z',
        retention: '24h',
        storageClass: 'fast',
        version: 2,
        owners: ['ann@example.com'],
        labels: { team: 'blue' },
        ports: [{ name: 'sql', port: 5432 }],
        tags: ['a', 'b'],
      }),
    );
    assert.equal(res.status, 201, res.text);
  });

  test('a failed rule answers 422 with message, messageExpression, reason and fieldPath as kube does', async () => {
    const res = await post(db('db-bad', { minReplicas: 5, maxReplicas: 4, mode: 'legacy' }));
    assert.deepEqual(causesOf(res), [
      {
        reason: 'FieldValueInvalid',
        field: 'spec',
        message: 'Invalid value: "object": minReplicas must not exceed maxReplicas',
      },
      {
        reason: 'FieldValueForbidden',
        field: 'spec.maxReplicas',
        message: 'Forbidden: legacy mode allows at most 3 replicas, not 4',
      },
    ]);
    assert.equal(
      res.json.message,
      'Database.cel.example.com "db-bad" is invalid: [spec: Invalid value: "object": minReplicas must not exceed maxReplicas, spec.maxReplicas: Forbidden: legacy mode allows at most 3 replicas, not 4]',
    );
    const stored = await raw(local, { path: `${BASE}/db-bad` });
    assert.equal(stored.status, 404, 'nothing stored');
  });

  test('rules on list items, map values, scalars, the root; timestamps and durations typed per format', async () => {
    const res = await post(
      db('bad-name', {
        minReplicas: 1,
        maxReplicas: 101,
        owners: ['ann@example.com', 'Bob@Example.com'],
        labels: { team: 'Blue' },
        notAfter: '1999-12-31T23:59:59Z',
        retention: '30m',
      }),
    );
    assert.deepEqual(causesOf(res), [
      {
        reason: 'FieldValueInvalid',
        field: '<nil>',
        message: 'Invalid value: "object": names start with db-',
      },
      { reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "object": notAfter is too old' },
      {
        reason: 'FieldValueInvalid',
        field: 'spec',
        message: 'Invalid value: "object": retention must be at least 1h',
      },
      {
        reason: 'FieldValueInvalid',
        field: 'spec.maxReplicas',
        message: 'Invalid value: "integer": failed rule: self <= 100',
      },
      {
        reason: 'FieldValueInvalid',
        field: 'spec.owners[1]',
        message: `Invalid value: "string": failed rule: self.matches('^[a-z]+@example\\\\.com$')`,
      },
      {
        reason: 'FieldValueInvalid',
        field: 'spec.labels[team]',
        message: 'Invalid value: "string": label values must be lower case',
      },
    ]);
  });

  test('kubectl shows the rule message', async () => {
    const result = await local.kubectl(['create', '-f', '-'], {
      input: json(db('db-kubectl', { minReplicas: 3, maxReplicas: 1 })),
    });
    assert.notEqual(result.code, 0);
    assert.match(
      result.stderr,
      /The Database "db-kubectl" is invalid: spec: Invalid value: "object": minReplicas must not exceed maxReplicas/,
    );
  });

  test('transition rules: evaluated on update against the old value, not on create', async () => {
    const current = await get('db-ok');
    const changed = structuredClone(current);
    changed.spec.storageClass = 'slow';
    assert.deepEqual(causesOf(await put('db-ok', changed)), [
      {
        reason: 'FieldValueInvalid',
        field: 'spec.storageClass',
        message: 'Invalid value: "string": storageClass is immutable',
      },
    ]);
    // A map-list item is matched to its old self by key; a new key has no old value.
    const ports = structuredClone(current);
    ports.spec.ports = [
      { name: 'sql', port: 5433 },
      { name: 'metrics', port: 9187 },
    ];
    assert.deepEqual(causesOf(await put('db-ok', ports)), [
      {
        reason: 'FieldValueForbidden',
        field: 'spec.ports[0]',
        message: 'Forbidden: a named port keeps its number',
      },
    ]);
    ports.spec.ports[0].port = 5432;
    const ok = await put('db-ok', ports);
    assert.equal(ok.status, 200, ok.text);
  });

  test('optionalOldSelf: oldSelf is an optional (none on create), so a version may not go back', async () => {
    const res = await raw(local, {
      method: 'PATCH',
      path: `${BASE}/db-ok`,
      contentType: 'application/merge-patch+json',
      body: JSON.stringify({ spec: { version: 1 } }),
    });
    assert.deepEqual(causesOf(res), [
      {
        reason: 'FieldValueInvalid',
        field: 'spec.version',
        message: 'Invalid value: "integer": version may not go back from 2',
      },
    ]);
    // The client's own patch path (JSON patch) reaches the same rule.
    await assert.rejects(
      custom.patchNamespacedCustomObject(
        {
          group: GROUP,
          version: 'v1',
          namespace: 'default',
          plural: 'databases',
          name: 'db-ok',
          body: [{ op: 'replace', path: '/spec/version', value: 0 }],
        },
        setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
      ),
      (err: unknown) =>
        err instanceof ApiException &&
        err.code === 422 &&
        String(err.body).includes('version may not go back from 2'),
    );
    const up = await raw(local, {
      method: 'PATCH',
      path: `${BASE}/db-ok`,
      contentType: 'application/merge-patch+json',
      body: JSON.stringify({ spec: { version: 3 } }),
    });
    assert.equal(up.status, 200, up.text);
  });

  test('the status subresource is validated by the status rules', async () => {
    const current = await get('db-ok');
    const bad = await put('db-ok', { ...current, status: { readyReplicas: -1 } }, '/status');
    assert.deepEqual(causesOf(bad), [
      {
        reason: 'FieldValueInvalid',
        field: 'status',
        message: 'Invalid value: "object": readyReplicas cannot be negative',
      },
    ]);
    const good = await put('db-ok', { ...current, status: { readyReplicas: 2 } }, '/status');
    assert.equal(good.status, 200, good.text);
  });

  test('a schema error blocks the rules, as kube reports it', async () => {
    const res = await post(db('db-types', { minReplicas: 'one', maxReplicas: 1 }));
    const causes = causesOf(res);
    assert.equal(causes[0]?.reason, 'FieldValueTypeInvalid');
    assert.equal(causes[0]?.field, 'spec.minReplicas');
    assert.deepEqual(causes.at(-1), {
      reason: 'FieldValueInvalid',
      field: '<nil>',
      message:
        'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    });
  });

  test('the cost guard stops nested comprehensions over a large list', async () => {
    const tags = Array.from({ length: 1200 }, (_, i) => `t${i}`);
    const res = await post(db('db-costly', { minReplicas: 1, maxReplicas: 1, tags }));
    assert.deepEqual(causesOf(res), [
      {
        reason: 'FieldValueInvalid',
        field: 'spec',
        message:
          'Invalid value: "object": call cost exceeds limit for rule: !has(self.tags) || self.tags.all(a, self.tags.exists(b, b == a))',
      },
    ]);
  });

  test('ratcheting: a value unchanged since the old object is not re-checked by a new rule', async () => {
    const stored = await post(db('db-wide', { minReplicas: 1, maxReplicas: 50 }));
    assert.equal(stored.status, 201, stored.text);
    const tightened = crd([
      { rule: 'self.spec.maxReplicas <= 10', message: 'at most 10 replicas', fieldPath: '.spec.maxReplicas' },
    ]);
    const current = (
      await raw(local, { path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/databases.${GROUP}` })
    ).json;
    const res = await raw(local, {
      method: 'PUT',
      path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/databases.${GROUP}`,
      body: JSON.stringify({ ...tightened, metadata: current.metadata }),
    });
    assert.equal(res.status, 200, res.text);
    // The object as a whole changed (a label), so the root rule runs and refuses it.
    const obj = await get('db-wide');
    obj.metadata.labels = { touched: 'yes' };
    assert.deepEqual(causesOf(await put('db-wide', obj)), [
      {
        reason: 'FieldValueInvalid',
        field: 'spec.maxReplicas',
        message: 'Invalid value: "object": at most 10 replicas',
      },
    ]);
    // A rule on the field itself is ratcheted while the field is unchanged.
    const fieldRule = structuredClone(tightened);
    const root = fieldRule.spec.versions[0]!.schema.openAPIV3Schema;
    root['x-kubernetes-validations'] = root['x-kubernetes-validations'].slice(0, 1);
    (root.properties.spec.properties.maxReplicas as Record<string, unknown>)['x-kubernetes-validations'] = [
      { rule: 'self <= 10', message: 'at most 10 replicas' },
    ];
    const latest = (
      await raw(local, { path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/databases.${GROUP}` })
    ).json;
    const res2 = await raw(local, {
      method: 'PUT',
      path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/databases.${GROUP}`,
      body: JSON.stringify({ ...fieldRule, metadata: latest.metadata }),
    });
    assert.equal(res2.status, 200, res2.text);
    const unchanged = await put('db-wide', obj);
    assert.equal(unchanged.status, 200, unchanged.text);
    const raised = await get('db-wide');
    raised.spec.maxReplicas = 60;
    assert.deepEqual(causesOf(await put('db-wide', raised)), [
      {
        reason: 'FieldValueInvalid',
        field: 'spec.maxReplicas',
        message: 'Invalid value: "integer": at most 10 replicas',
      },
    ]);
  });

  test('a CRD whose rule does not compile is refused with 422, and nothing changes', async () => {
    const bad = crd([{ rule: 'self.spec.minReplicas >' }]);
    bad.metadata.name = `brokens.${GROUP}`;
    bad.spec.names = { plural: 'brokens', singular: 'broken', kind: 'Broken', listKind: 'BrokenList' };
    const res = await raw(local, {
      method: 'POST',
      path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      body: JSON.stringify(bad),
    });
    assert.deepEqual(causesOf(res), [
      {
        reason: 'FieldValueInvalid',
        field: 'spec.validation.openAPIV3Schema.x-kubernetes-validations[1].rule',
        message: 'Invalid value: "self.spec.minReplicas >": compilation failed: Unexpected token: EOF',
      },
    ]);
    const gone = await raw(local, {
      path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/brokens.${GROUP}`,
    });
    assert.equal(gone.status, 404);
  });
});

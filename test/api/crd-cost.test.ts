// The generated CRDs' CEL rules fit kube-apiserver's static cost budgets (a conservative estimate with
// kube's constants: src/apiserver/cel/static-cost.ts), and the embedded server, like kube, refuses a
// CRD over budget.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { customResourceDefinitions } from '../../src/api/crds.ts';
import { celEnvironment, compileExpression } from '../../src/apiserver/cel/environment.ts';
import {
  STATIC_ESTIMATED_COST_LIMIT,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
} from '../../src/apiserver/cel/static-cost.ts';
import { schemaRuleCosts } from '../../src/apiserver/schema/cel-rules.ts';
import { validateCustomResourceDefinition } from '../../src/apiserver/schema/crd-validation.ts';
import type { KubeClient } from '../../src/kube/kube-client.ts';
import { isKubeError } from '../../src/kube/kube-error.ts';
import { adminKubeClient, type LocalApiServer, startLocalApiServer } from '../support/local-apiserver.ts';

type Obj = Record<string, any>;

const schemaOf = (crd: Obj) => crd.spec.versions[0].schema.openAPIV3Schema;

test('every rule of the generated CRDs, times how often it can run, is within kube’s per-rule and per-CRD budgets', () => {
  for (const crd of customResourceDefinitions() as Obj[]) {
    const costs = schemaRuleCosts(schemaOf(crd), 'spec.validation.openAPIV3Schema');
    let total = 0;
    for (const r of costs) {
      const cost = r.cost * r.cardinality;
      assert.ok(cost <= STATIC_ESTIMATED_COST_LIMIT, `${crd.metadata.name} ${r.path}: ${cost} (${r.rule})`);
      // Every string and list a rule reads is bounded, so the estimate does not lean on the request size.
      assert.equal(r.unbounded, false, `${crd.metadata.name} ${r.path} reads something unbounded: ${r.rule}`);
      total += cost;
    }
    assert.ok(total <= STATIC_ESTIMATED_CRD_COST_LIMIT, `${crd.metadata.name}: total ${total}`);
    assert.deepEqual(validateCustomResourceDefinition(crd), [], crd.metadata.name);
  }
  const nodeConfig = (customResourceDefinitions() as Obj[]).find((c) => c.spec.names.kind === 'NodeConfig')!;
  assert.ok(schemaRuleCosts(schemaOf(nodeConfig), '').length >= 10, 'the NodeConfig CRD carries its rules');
});

// Functions of CEL's standard library and macros, and of the libraries kube-apiserver 1.30 adds for CRD
// rules (strings, lists, regex, url, quantity, ip/cidr): rules may use these only, so they compile on
// kube-apiserver >= 1.30 as on the embedded server.
const KUBE_1_30_FUNCTIONS = new Set([
  // CEL standard library and macros
  'has',
  'size',
  'matches',
  'startsWith',
  'endsWith',
  'contains',
  'all',
  'exists',
  'exists_one',
  'map',
  'filter',
  'int',
  'uint',
  'double',
  'string',
  'bytes',
  'bool',
  'duration',
  'timestamp',
  'type',
  'dyn',
  'getFullYear',
  'getMonth',
  'getDayOfMonth',
  'getDate',
  'getDayOfWeek',
  'getDayOfYear',
  'getHours',
  'getMinutes',
  'getSeconds',
  'getMilliseconds',
  // ext strings (as kube enables it), lists, regex, url
  'charAt',
  'indexOf',
  'lastIndexOf',
  'lowerAscii',
  'upperAscii',
  'replace',
  'split',
  'substring',
  'trim',
  'join',
  'isSorted',
  'sum',
  'min',
  'max',
  'find',
  'findAll',
  'isURL',
  'url',
]);

function functionsOf(node: unknown, out: Set<string>): Set<string> {
  if (Array.isArray(node)) for (const n of node) functionsOf(n, out);
  else if (node && typeof node === 'object' && 'op' in node) {
    const n = node as { op: string; args: unknown };
    if (n.op === 'call' || n.op === 'rcall') out.add((n.args as unknown[])[0] as string);
    if (n.op !== 'value' && n.op !== 'id') functionsOf(n.args, out);
  }
  return out;
}

test('the generated CRDs’ rules use only functions kube-apiserver 1.30 has for CRD rules', () => {
  const env = celEnvironment(['self', 'oldSelf']);
  const used = new Set<string>();
  for (const crd of customResourceDefinitions() as Obj[]) {
    const visit = (s: Obj): void => {
      for (const r of s['x-kubernetes-validations'] ?? [])
        functionsOf(compileExpression(env, r.rule).ast, used);
      for (const sub of Object.values(s.properties ?? {})) visit(sub as Obj);
      if (s.items) visit(s.items);
      if (typeof s.additionalProperties === 'object') visit(s.additionalProperties);
    };
    visit(schemaOf(crd));
  }
  assert.deepEqual(
    [...used].filter((f) => !KUBE_1_30_FUNCTIONS.has(f)),
    [],
  );
  assert.ok(used.has('matches') && used.has('startsWith'), [...used].join(', '));
});

test('without maxItems on files, the path rules would be over budget: the bounds are what keeps them in', () => {
  const crd = structuredClone(
    (customResourceDefinitions() as Obj[]).find((c) => c.spec.names.kind === 'NodeConfig')!,
  );
  delete schemaOf(crd).properties.spec.properties.files.maxItems;
  const causes = validateCustomResourceDefinition(crd);
  assert.ok(
    causes.some(
      (c) =>
        c.type === 'FieldValueForbidden' &&
        c.field?.includes('properties[files].items.properties[path].x-kubernetes-validations') &&
        c.message?.includes('estimated rule cost exceeds budget'),
    ),
    JSON.stringify(causes),
  );
});

let local: LocalApiServer;
let client: KubeClient;

before(async () => {
  local = await startLocalApiServer();
  client = adminKubeClient(local);
});

after(async () => {
  client?.close();
  await local?.stop();
});

function crdWithRule(name: string, schema: Obj): Obj {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${name}s.cost.nodeherd.test` },
    spec: {
      group: 'cost.nodeherd.test',
      scope: 'Cluster',
      names: {
        kind: name[0]!.toUpperCase() + name.slice(1),
        plural: `${name}s`,
        singular: name,
        listKind: 'L',
      },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: schema } } },
        },
      ],
    },
  };
}

test('the embedded server refuses a CRD whose rule is over kube’s budget, and accepts it once bounded', async () => {
  const items = {
    type: 'string',
    'x-kubernetes-validations': [{ rule: "self.matches('^[a-z]+(-[a-z]+)*$')" }],
  };
  const unbounded = crdWithRule('unbounded', {
    type: 'object',
    properties: { names: { type: 'array', items } },
  });
  await assert.rejects(
    client.create('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', unbounded),
    (err) => {
      assert.ok(isKubeError(err, 422), String(err));
      const causes = typeof err.body === 'object' ? (err.body.details?.causes ?? []) : [];
      assert.ok(
        causes.some(
          (c) =>
            c.field ===
              'spec.validation.openAPIV3Schema.properties[spec].properties[names].items.x-kubernetes-validations[0].rule' &&
            c.message?.includes('estimated rule cost exceeds budget'),
        ),
        JSON.stringify(causes),
      );
      return true;
    },
  );
  const nested = crdWithRule('nested', {
    type: 'object',
    properties: { names: { type: 'array', maxItems: 1000, items: { type: 'string', maxLength: 1000 } } },
    'x-kubernetes-validations': [{ rule: 'self.names.all(a, self.names.exists_one(b, a == b))' }],
  });
  await assert.rejects(
    client.create('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', nested),
    (err) => isKubeError(err, 422),
  );
  const bounded = crdWithRule('bounded', {
    type: 'object',
    properties: { names: { type: 'array', maxItems: 16, items: { ...items, maxLength: 63 } } },
  });
  await client.create('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', bounded);
});

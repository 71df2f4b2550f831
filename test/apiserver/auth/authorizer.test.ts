import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CONTROLLER_RULES } from '../../../src/api/controller-rules.ts';
import {
  allowsAnonymous,
  type RequestAttributes,
  type ResourceAttributes,
  ruleAllows,
} from '../../../src/apiserver/auth/authorizer.ts';
import type { Identity } from '../../../src/apiserver/auth/identities.ts';
import { authorize } from '../../../src/profile/nodeherd-authorization.ts';
import { nodeherdIdentities } from '../../../src/profile/nodeherd-identities.ts';

const admin = nodeherdIdentities.identityFor('admin');
const controller = nodeherdIdentities.identityFor('controller');
const agent = nodeherdIdentities.identityFor('node', 'n1');

function nodeAttrs(
  verb: ResourceAttributes['verb'],
  extra: Partial<ResourceAttributes> = {},
): ResourceAttributes {
  return { verb, group: '', resource: 'nodes', ...extra };
}

function coreEvent(involvedObject: Record<string, unknown>, namespace = 'default'): ResourceAttributes {
  return {
    verb: 'create',
    group: '',
    resource: 'events',
    namespace,
    body: { metadata: { name: 'e1', namespace }, involvedObject },
  };
}

function eventsV1(regarding: Record<string, unknown>, namespace = 'default'): ResourceAttributes {
  return {
    verb: 'create',
    group: 'events.k8s.io',
    resource: 'events',
    namespace,
    body: { metadata: { name: 'e1', namespace }, regarding },
  };
}

function lease(
  verb: ResourceAttributes['verb'],
  namespace: string | undefined,
  name?: string,
  body?: unknown,
) {
  return {
    verb,
    group: 'coordination.k8s.io',
    resource: 'leases',
    ...(namespace ? { namespace } : {}),
    ...(name ? { name } : {}),
    ...(body ? { body } : {}),
  } satisfies ResourceAttributes;
}

const revisions = (verb: ResourceAttributes['verb']): ResourceAttributes => ({
  verb,
  group: 'nodeherd.io',
  resource: 'nodeconfigrevisions',
  ...(verb === 'get' ? { name: 'pool-a-abc' } : {}),
});

const secrets = (verb: ResourceAttributes['verb']): ResourceAttributes => ({
  verb,
  group: '',
  resource: 'secrets',
  namespace: 'nodeherd',
  ...(verb === 'get' || verb === 'delete' || verb === 'update' ? { name: 's1' } : {}),
});

const nonResource = (path: string, verb = 'get'): RequestAttributes => ({ verb, path });

// Requests the two non-admin identities are judged on; admin is allowed every one of them.
const matrix: { attrs: RequestAttributes; describe: string; controller: boolean; agent: boolean }[] = [
  // discovery and health
  ...[
    '/api',
    '/api/v1',
    '/apis',
    '/apis/nodeherd.io/v1alpha1',
    '/version',
    '/openapi/v3',
    '/openapi/v3/apis/apps/v1',
    '/healthz',
    '/livez',
    '/readyz?verbose',
  ].map((path) => ({ describe: `get ${path}`, attrs: nonResource(path), controller: true, agent: true })),
  { describe: 'get /metrics', attrs: nonResource('/metrics'), controller: false, agent: false },
  { describe: 'post /api', attrs: nonResource('/api', 'post'), controller: false, agent: false },
  {
    describe: 'get /apisx (lookalike of /apis)',
    attrs: nonResource('/apisx'),
    controller: false,
    agent: false,
  },
  // own Node
  { describe: 'get node n1', attrs: nodeAttrs('get', { name: 'n1' }), controller: true, agent: true },
  { describe: 'get node n2', attrs: nodeAttrs('get', { name: 'n2' }), controller: true, agent: false },
  { describe: 'list nodes without selector', attrs: nodeAttrs('list'), controller: true, agent: false },
  { describe: 'watch nodes without selector', attrs: nodeAttrs('watch'), controller: true, agent: false },
  {
    describe: 'list nodes name=n1',
    attrs: nodeAttrs('list', { fieldSelectorName: 'n1' }),
    controller: true,
    agent: true,
  },
  {
    describe: 'watch nodes name=n1',
    attrs: nodeAttrs('watch', { fieldSelectorName: 'n1' }),
    controller: true,
    agent: true,
  },
  {
    describe: 'watch node n1 by URL name',
    attrs: nodeAttrs('watch', { name: 'n1' }),
    controller: true,
    agent: true,
  },
  {
    describe: 'watch nodes name=n2',
    attrs: nodeAttrs('watch', { fieldSelectorName: 'n2' }),
    controller: true,
    agent: false,
  },
  {
    describe: 'list nodes name=n2',
    attrs: nodeAttrs('list', { fieldSelectorName: 'n2' }),
    controller: true,
    agent: false,
  },
  {
    describe: 'watch node n1 by URL but selector n2',
    attrs: nodeAttrs('watch', { name: 'n1', fieldSelectorName: 'n2' }),
    controller: true,
    agent: false,
  },
  { describe: 'patch node n1', attrs: nodeAttrs('patch', { name: 'n1' }), controller: true, agent: true },
  { describe: 'update node n1', attrs: nodeAttrs('update', { name: 'n1' }), controller: false, agent: true },
  { describe: 'patch node n2', attrs: nodeAttrs('patch', { name: 'n2' }), controller: true, agent: false },
  { describe: 'update node n2', attrs: nodeAttrs('update', { name: 'n2' }), controller: false, agent: false },
  {
    describe: 'patch nodes/status n1',
    attrs: nodeAttrs('patch', { name: 'n1', subresource: 'status' }),
    controller: true,
    agent: true,
  },
  {
    describe: 'update nodes/status n1',
    attrs: nodeAttrs('update', { name: 'n1', subresource: 'status' }),
    controller: false,
    agent: true,
  },
  {
    describe: 'patch nodes/status n2',
    attrs: nodeAttrs('patch', { name: 'n2', subresource: 'status' }),
    controller: true,
    agent: false,
  },
  {
    describe: 'get nodes/proxy n1',
    attrs: nodeAttrs('get', { name: 'n1', subresource: 'proxy' }),
    controller: false,
    agent: false,
  },
  {
    describe: 'create node n1',
    attrs: nodeAttrs('create', { body: { metadata: { name: 'n1' } } }),
    controller: false,
    agent: false,
  },
  {
    describe: 'create node n2',
    attrs: nodeAttrs('create', { body: { metadata: { name: 'n2' } } }),
    controller: false,
    agent: false,
  },
  { describe: 'create node without body', attrs: nodeAttrs('create'), controller: false, agent: false },
  { describe: 'delete node n1', attrs: nodeAttrs('delete', { name: 'n1' }), controller: false, agent: false },
  {
    describe: 'deletecollection nodes',
    attrs: nodeAttrs('deletecollection'),
    controller: false,
    agent: false,
  },
  // nodeherd.io
  { describe: 'get revision', attrs: revisions('get'), controller: true, agent: true },
  { describe: 'list revisions', attrs: revisions('list'), controller: true, agent: true },
  { describe: 'watch revisions', attrs: revisions('watch'), controller: true, agent: true },
  { describe: 'create revision', attrs: revisions('create'), controller: true, agent: false },
  {
    describe: 'delete revision',
    attrs: { ...revisions('delete'), name: 'r' },
    controller: true,
    agent: false,
  },
  {
    describe: 'update revision status',
    attrs: { ...revisions('update'), name: 'r', subresource: 'status' },
    controller: false,
    agent: false,
  },
  {
    describe: 'watch nodeconfigpools',
    attrs: { verb: 'watch', group: 'nodeherd.io', resource: 'nodeconfigpools' },
    controller: true,
    agent: true,
  },
  {
    describe: 'patch nodeconfigpool status',
    attrs: {
      verb: 'patch',
      group: 'nodeherd.io',
      resource: 'nodeconfigpools',
      subresource: 'status',
      name: 'p',
    },
    controller: true,
    agent: false,
  },
  {
    describe: 'list nodeconfigs',
    attrs: { verb: 'list', group: 'nodeherd.io', resource: 'nodeconfigs' },
    controller: true,
    agent: false,
  },
  // events
  {
    describe: 'core event about node n1 in default',
    attrs: coreEvent({ kind: 'Node', name: 'n1' }),
    controller: true,
    agent: true,
  },
  {
    describe: 'core event about node n1 in nodeherd',
    attrs: coreEvent({ kind: 'Node', name: 'n1', apiVersion: 'v1' }, 'nodeherd'),
    controller: true,
    agent: true,
  },
  {
    describe: 'core event about node n2',
    attrs: coreEvent({ kind: 'Node', name: 'n2' }),
    controller: true,
    agent: false,
  },
  {
    describe: 'core event about a pod named n1',
    attrs: coreEvent({ kind: 'Pod', name: 'n1', namespace: 'default' }),
    controller: true,
    agent: false,
  },
  {
    describe: 'core event about node n1 in kube-system',
    attrs: coreEvent({ kind: 'Node', name: 'n1' }, 'kube-system'),
    controller: true,
    agent: false,
  },
  {
    describe: 'core event with a regarding (wrong field for core)',
    attrs: { ...coreEvent({}), body: { regarding: { kind: 'Node', name: 'n1' } } },
    controller: true,
    agent: false,
  },
  {
    describe: 'events.k8s.io event about n1',
    attrs: eventsV1({ kind: 'Node', name: 'n1' }),
    controller: false,
    agent: true,
  },
  {
    describe: 'events.k8s.io event about n2',
    attrs: eventsV1({ kind: 'Node', name: 'n2' }),
    controller: false,
    agent: false,
  },
  {
    describe: 'patch an event',
    attrs: { verb: 'patch', group: '', resource: 'events', namespace: 'default', name: 'e1' },
    controller: true,
    agent: false,
  },
  {
    describe: 'list events',
    attrs: { verb: 'list', group: '', resource: 'events', namespace: 'default' },
    controller: false,
    agent: false,
  },
  {
    describe: 'delete an event',
    attrs: { verb: 'delete', group: '', resource: 'events', namespace: 'default', name: 'e1' },
    controller: false,
    agent: false,
  },
  // leases
  ...(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] as const).map((verb) => ({
    describe: `${verb} lease in nodeherd`,
    attrs: lease(
      verb,
      'nodeherd',
      verb === 'list' || verb === 'watch' || verb === 'create' ? undefined : 'serial-pool-a',
    ),
    // The controller gets, creates and replaces its Leases (leader election, Serial slots), no more.
    controller: verb !== 'patch' && verb !== 'delete',
    agent: true,
  })),
  {
    describe: 'deletecollection leases in nodeherd',
    attrs: lease('deletecollection', 'nodeherd'),
    controller: false,
    agent: false,
  },
  {
    describe: 'get own node lease',
    attrs: lease('get', 'kube-node-lease', 'n1'),
    controller: false,
    agent: false,
  },
  {
    describe: 'update own node lease',
    attrs: lease('update', 'kube-node-lease', 'n1'),
    controller: false,
    agent: false,
  },
  {
    describe: 'create own node lease',
    attrs: lease('create', 'kube-node-lease', undefined, { metadata: { name: 'n1' } }),
    controller: false,
    agent: false,
  },
  {
    describe: "create another node's lease",
    attrs: lease('create', 'kube-node-lease', undefined, { metadata: { name: 'n2' } }),
    controller: false,
    agent: false,
  },
  {
    describe: "update another node's lease",
    attrs: lease('update', 'kube-node-lease', 'n2'),
    controller: false,
    agent: false,
  },
  {
    describe: 'delete own node lease',
    attrs: lease('delete', 'kube-node-lease', 'n1'),
    controller: false,
    agent: false,
  },
  { describe: 'list node leases', attrs: lease('list', 'kube-node-lease'), controller: false, agent: false },
  {
    describe: 'get lease in kube-system',
    attrs: lease('get', 'kube-system', 'x'),
    controller: false,
    agent: false,
  },
  {
    describe: 'update lease in kube-system',
    attrs: lease('update', 'kube-system', 'x'),
    controller: false,
    agent: false,
  },
  { describe: 'list leases cluster-wide', attrs: lease('list', undefined), controller: false, agent: false },
  // pods
  {
    describe: 'list pods on n1',
    attrs: { verb: 'list', group: '', resource: 'pods', fieldSelectorNodeName: 'n1' },
    controller: true,
    agent: true,
  },
  {
    describe: 'watch pods on n1 in a namespace',
    attrs: {
      verb: 'watch',
      group: '',
      resource: 'pods',
      namespace: 'kube-system',
      fieldSelectorNodeName: 'n1',
    },
    controller: true,
    agent: true,
  },
  {
    describe: 'list pods on n2',
    attrs: { verb: 'list', group: '', resource: 'pods', fieldSelectorNodeName: 'n2' },
    controller: true,
    agent: false,
  },
  {
    describe: 'list all pods',
    attrs: { verb: 'list', group: '', resource: 'pods' },
    controller: true,
    agent: false,
  },
  {
    describe: 'get a pod',
    attrs: { verb: 'get', group: '', resource: 'pods', namespace: 'default', name: 'p' },
    controller: true,
    agent: false,
  },
  {
    describe: 'delete a pod',
    attrs: { verb: 'delete', group: '', resource: 'pods', namespace: 'default', name: 'p' },
    controller: true,
    agent: false,
  },
  {
    describe: 'create a pod',
    attrs: { verb: 'create', group: '', resource: 'pods', namespace: 'default' },
    controller: false,
    agent: false,
  },
  {
    describe: 'evict a pod',
    attrs: {
      verb: 'create',
      group: '',
      resource: 'pods',
      subresource: 'eviction',
      namespace: 'default',
      name: 'p',
    },
    controller: true,
    agent: false,
  },
  {
    describe: 'patch pod status',
    attrs: {
      verb: 'patch',
      group: '',
      resource: 'pods',
      subresource: 'status',
      namespace: 'default',
      name: 'p',
    },
    controller: true,
    agent: false,
  },
  // secrets
  { describe: 'get secret', attrs: secrets('get'), controller: true, agent: false },
  { describe: 'list secrets', attrs: secrets('list'), controller: true, agent: false },
  { describe: 'watch secrets', attrs: secrets('watch'), controller: true, agent: false },
  { describe: 'create secret', attrs: secrets('create'), controller: false, agent: false },
  { describe: 'update secret', attrs: secrets('update'), controller: false, agent: false },
  { describe: 'delete secret', attrs: secrets('delete'), controller: false, agent: false },
  // namespaces and the rest
  {
    describe: 'list namespaces',
    attrs: { verb: 'list', group: '', resource: 'namespaces' },
    controller: false,
    agent: false,
  },
  {
    describe: 'delete namespace',
    attrs: { verb: 'delete', group: '', resource: 'namespaces', name: 'nodeherd' },
    controller: false,
    agent: false,
  },
  {
    describe: 'create namespace',
    attrs: { verb: 'create', group: '', resource: 'namespaces' },
    controller: false,
    agent: false,
  },
  {
    describe: 'patch daemonset',
    attrs: { verb: 'patch', group: 'apps', resource: 'daemonsets', namespace: 'kube-system', name: 'ds' },
    controller: false,
    agent: false,
  },
  {
    describe: 'delete daemonset',
    attrs: { verb: 'delete', group: 'apps', resource: 'daemonsets', namespace: 'kube-system', name: 'ds' },
    controller: false,
    agent: false,
  },
  {
    describe: 'list controllerrevisions',
    attrs: { verb: 'list', group: 'apps', resource: 'controllerrevisions', namespace: 'kube-system' },
    controller: true,
    agent: false,
  },
  {
    describe: 'list deployments',
    attrs: { verb: 'list', group: 'apps', resource: 'deployments' },
    controller: false,
    agent: false,
  },
  {
    describe: 'list pdbs',
    attrs: { verb: 'list', group: 'policy', resource: 'poddisruptionbudgets' },
    controller: false,
    agent: false,
  },
  {
    describe: 'get crd',
    attrs: { verb: 'get', group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions', name: 'x' },
    controller: false,
    agent: false,
  },
  {
    describe: 'create crd',
    attrs: { verb: 'create', group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' },
    controller: false,
    agent: false,
  },
  {
    describe: 'create clusterrolebinding',
    attrs: { verb: 'create', group: 'rbac.authorization.k8s.io', resource: 'clusterrolebindings' },
    controller: false,
    agent: false,
  },
  {
    describe: 'selfsubjectaccessreview',
    attrs: { verb: 'create', group: 'authorization.k8s.io', resource: 'selfsubjectaccessreviews' },
    controller: true,
    agent: true,
  },
  {
    describe: 'subjectaccessreview (about others)',
    attrs: { verb: 'create', group: 'authorization.k8s.io', resource: 'subjectaccessreviews' },
    // The controller's /metrics authorizes its scrapers (system:auth-delegator's rights in kube).
    controller: true,
    agent: false,
  },
  {
    describe: 'selfsubjectreview (whoami)',
    attrs: { verb: 'create', group: 'authentication.k8s.io', resource: 'selfsubjectreviews' },
    controller: true,
    agent: true,
  },
];

function check(identity: Identity, entry: (typeof matrix)[number], expected: boolean): void {
  const decision = authorize(identity, entry.attrs);
  assert.equal(decision.allowed, expected, `${identity.name}: ${entry.describe}`);
  if (!decision.allowed) assert.ok(decision.reason.length > 10, `a denial names its rule: ${entry.describe}`);
}

// One subtest per request, so a report shows the whole matrix.
for (const [who, identity, expected] of [
  ['admin', admin, () => true],
  ['controller', controller, (entry: (typeof matrix)[number]) => entry.controller],
  ['node agent n1', agent, (entry: (typeof matrix)[number]) => entry.agent],
] as const) {
  test(`${who} matrix`, async (t) => {
    for (const entry of matrix) {
      await t.test(`${expected(entry) ? 'allowed' : 'denied'}: ${entry.describe}`, () =>
        check(identity, entry, expected(entry)),
      );
    }
  });
}

test('the kubelet of n1 registers its Node and renews its Lease, which its agent may not', () => {
  const kubelet = nodeherdIdentities.identityFor('kubelet', 'n1');
  assert.equal(kubelet.name, 'system:node:n1');
  assert.deepEqual(kubelet.groups, ['system:nodes', 'system:authenticated']);
  const cases: [ResourceAttributes, boolean][] = [
    [nodeAttrs('create', { body: { metadata: { name: 'n1' } } }), true],
    [nodeAttrs('create', { body: { metadata: { name: 'n2' } } }), false],
    [nodeAttrs('patch', { name: 'n1', subresource: 'status' }), true],
    [nodeAttrs('patch', { name: 'n2' }), false],
    [nodeAttrs('delete', { name: 'n1' }), false],
    [nodeAttrs('watch', { fieldSelectorName: 'n1' }), true],
    [lease('get', 'kube-node-lease', 'n1'), true],
    [lease('update', 'kube-node-lease', 'n1'), true],
    [lease('create', 'kube-node-lease', undefined, { metadata: { name: 'n1' } }), true],
    [lease('create', 'kube-node-lease', undefined, { metadata: { name: 'n2' } }), false],
    [lease('delete', 'kube-node-lease', 'n1'), false],
    [lease('update', 'nodeherd', 'nodeherd-controller'), false],
    [secrets('get'), false],
    [revisions('list'), false],
    [coreEvent({ kind: 'Node', name: 'n1' }), true],
    [coreEvent({ kind: 'Node', name: 'n2' }), false],
  ];
  for (const [attrs, allowed] of cases) {
    assert.equal(authorize(kubelet, attrs).allowed, allowed, JSON.stringify(attrs));
  }
});

test('another agent gets the mirror image: n2 may touch n2, not n1', () => {
  const n2 = nodeherdIdentities.identityFor('node', 'n2');
  assert.equal(authorize(n2, nodeAttrs('get', { name: 'n2' })).allowed, true);
  assert.equal(authorize(n2, nodeAttrs('get', { name: 'n1' })).allowed, false);
  assert.equal(authorize(n2, nodeAttrs('watch', { fieldSelectorName: 'n2' })).allowed, true);
  assert.equal(authorize(n2, coreEvent({ kind: 'Node', name: 'n2' })).allowed, true);
  assert.equal(authorize(n2, coreEvent({ kind: 'Node', name: 'n1' })).allowed, false);
});

test('denials say which rule applies', () => {
  const cases: [Identity, RequestAttributes, RegExp][] = [
    [agent, nodeAttrs('get', { name: 'n2' }), /may only get its own Node "n1"/],
    [agent, nodeAttrs('list'), /field selector metadata\.name=n1/],
    [agent, nodeAttrs('delete', { name: 'n1' }), /may not delete Nodes/],
    [agent, secrets('get'), /no rule for node agents allows get secrets "s1" in namespace "nodeherd"/],
    [agent, coreEvent({ kind: 'Node', name: 'n2' }), /involvedObject is its own Node "n1"/],
    [agent, eventsV1({ kind: 'Node', name: 'n2' }), /regarding is its own Node "n1"/],
    [agent, { verb: 'list', group: '', resource: 'pods' }, /spec\.nodeName=n1/],
    [controller, secrets('delete'), /no rule of the nodeherd controller role allows delete secrets "s1"/],
    [controller, nonResource('/metrics'), /discovery, OpenAPI, version and health/],
  ];
  for (const [identity, attrs, reason] of cases) {
    const decision = authorize(identity, attrs);
    assert.equal(decision.allowed, false);
    assert.match(decision.allowed ? '' : decision.reason, reason);
  }
});

test('controller rules are namespace-aware', () => {
  const writeLeases = CONTROLLER_RULES.find((rule) => rule.namespaces?.includes('nodeherd'));
  assert.ok(writeLeases);
  assert.equal(ruleAllows(writeLeases, lease('update', 'nodeherd', 'l')), true);
  assert.equal(ruleAllows(writeLeases, lease('update', 'default', 'l')), false);
  assert.equal(ruleAllows(writeLeases, lease('update', undefined, 'l')), false);
});

test('only health and version are open to anonymous clients', () => {
  for (const path of ['/healthz', '/livez', '/readyz', '/readyz/ping', '/version', '/healthz?verbose']) {
    assert.equal(allowsAnonymous(path), true, path);
  }
  for (const path of ['/api', '/apis', '/openapi/v3', '/api/v1/nodes', '/healthzx', '/']) {
    assert.equal(allowsAnonymous(path), false, path);
  }
  assert.equal(allowsAnonymous('/healthz', 'post'), false);
});

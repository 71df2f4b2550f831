import assert from 'node:assert/strict';
import { test } from 'node:test';
import { podSummary } from '../../../src/apiserver/kinds/core/pod.ts';
import { builtinResources } from '../../../src/apiserver/kinds/registration.ts';
import { humanDuration } from '../../../src/apiserver/kinds/shared/printing.ts';
import type { ResourceDefinition } from '../../../src/apiserver/registry/resource-definition.ts';
import type { KubeObject } from '../../../src/apiserver/storage/types.ts';

const defs = builtinResources();
const find = (group: string, resource: string): ResourceDefinition => {
  const def = defs.find((d) => d.group === group && d.resource === resource);
  assert.ok(def, `${resource}.${group} is built in`);
  return def;
};
const cell = (def: ResourceDefinition, column: string, object: KubeObject): unknown => {
  const col = def.printerColumns.find((c) => c.name === column);
  assert.ok(col?.compute, `${def.resource} has a computed ${column} column`);
  return col.compute(object);
};

test('the catalogue: names, short names, scope and subresources as kube serves them', () => {
  const summary = defs.map((d) => [
    `${d.group || 'core'}/${d.version}/${d.resource}`,
    d.kind,
    d.namespaced,
    d.shortNames.join(','),
    Object.keys(d.subresources).sort().join(','),
  ]);
  assert.deepEqual(summary, [
    ['core/v1/configmaps', 'ConfigMap', true, 'cm', ''],
    ['core/v1/events', 'Event', true, 'ev', ''],
    ['core/v1/namespaces', 'Namespace', false, 'ns', 'status'],
    ['core/v1/nodes', 'Node', false, 'no', 'status'],
    ['core/v1/pods', 'Pod', true, 'po', 'eviction,status'],
    ['core/v1/secrets', 'Secret', true, '', ''],
    ['core/v1/services', 'Service', true, 'svc', 'status'],
    ['core/v1/serviceaccounts', 'ServiceAccount', true, 'sa', 'token'],
    ['apps/v1/controllerrevisions', 'ControllerRevision', true, '', ''],
    ['apps/v1/daemonsets', 'DaemonSet', true, 'ds', 'status'],
    ['apps/v1/deployments', 'Deployment', true, 'deploy', 'status'],
    ['events.k8s.io/v1/events', 'Event', true, 'ev', ''],
    ['authentication.k8s.io/v1/selfsubjectreviews', 'SelfSubjectReview', false, '', ''],
    ['authentication.k8s.io/v1beta1/selfsubjectreviews', 'SelfSubjectReview', false, '', ''],
    ['authentication.k8s.io/v1/tokenreviews', 'TokenReview', false, '', ''],
    ['authorization.k8s.io/v1/subjectaccessreviews', 'SubjectAccessReview', false, '', ''],
    ['authorization.k8s.io/v1/selfsubjectaccessreviews', 'SelfSubjectAccessReview', false, '', ''],
    ['authorization.k8s.io/v1/selfsubjectrulesreviews', 'SelfSubjectRulesReview', false, '', ''],
    ['networking.k8s.io/v1/networkpolicies', 'NetworkPolicy', true, 'netpol', ''],
    ['policy/v1/poddisruptionbudgets', 'PodDisruptionBudget', true, 'pdb', 'status'],
    ['rbac.authorization.k8s.io/v1/clusterrolebindings', 'ClusterRoleBinding', false, '', ''],
    ['rbac.authorization.k8s.io/v1/clusterroles', 'ClusterRole', false, '', ''],
    ['rbac.authorization.k8s.io/v1/rolebindings', 'RoleBinding', true, '', ''],
    ['rbac.authorization.k8s.io/v1/roles', 'Role', true, '', ''],
    [
      'admissionregistration.k8s.io/v1/validatingadmissionpolicies',
      'ValidatingAdmissionPolicy',
      false,
      '',
      'status',
    ],
    [
      'admissionregistration.k8s.io/v1/validatingadmissionpolicybindings',
      'ValidatingAdmissionPolicyBinding',
      false,
      '',
      '',
    ],
    [
      'apiextensions.k8s.io/v1/customresourcedefinitions',
      'CustomResourceDefinition',
      false,
      'crd,crds',
      'status',
    ],
    ['coordination.k8s.io/v1/leases', 'Lease', true, '', ''],
  ]);
  for (const d of defs) {
    assert.equal(d.builtin, true);
    assert.equal(d.listKind, `${d.kind}List`);
    assert.ok(d.schema?.properties?.metadata, `${d.kind} schema names metadata`);
  }
  assert.deepEqual(find('', 'pods').categories, ['all']);
  assert.deepEqual(find('apps', 'daemonsets').categories, ['all']);
  assert.deepEqual(find('apiextensions.k8s.io', 'customresourcedefinitions').categories, ['api-extensions']);
  assert.ok(
    !find('', 'namespaces').verbs.includes('deletecollection'),
    'namespaces cannot be deleted as a collection',
  );
  assert.deepEqual(find('', 'nodes').verbs, [
    'create',
    'delete',
    'deletecollection',
    'get',
    'list',
    'patch',
    'update',
    'watch',
  ]);
});

test('generation is tracked for workloads, policies and CRDs only', () => {
  assert.deepEqual(
    defs.filter((d) => d.tracksGeneration).map((d) => d.kind),
    [
      'DaemonSet',
      'Deployment',
      'NetworkPolicy',
      'PodDisruptionBudget',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
      'CustomResourceDefinition',
    ],
  );
});

test('each call returns fresh definitions, so callers cannot corrupt the catalogue', () => {
  const first = builtinResources();
  first[0]!.shortNames.push('zzz');
  assert.deepEqual(builtinResources()[0]!.shortNames, ['cm']);
});

test('pod field selectors: every key present, empty when unset (spec.nodeName= finds unscheduled pods)', () => {
  const pods = find('', 'pods');
  assert.deepEqual(Object.keys(pods.selectableFields).sort(), [
    'spec.hostNetwork',
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'status.nominatedNodeName',
    'status.phase',
    'status.podIP',
  ]);
  const unscheduled = { spec: { containers: [] }, status: { phase: 'Pending' } };
  assert.equal(pods.selectableFields['spec.nodeName']!(unscheduled), '');
  assert.equal(pods.selectableFields['spec.hostNetwork']!(unscheduled), 'false');
  assert.equal(pods.selectableFields['status.phase']!(unscheduled), 'Pending');
  const running = { spec: { nodeName: 'n1', hostNetwork: true }, status: { podIPs: [{ ip: '10.0.0.7' }] } };
  assert.equal(pods.selectableFields['spec.nodeName']!(running), 'n1');
  assert.equal(pods.selectableFields['spec.hostNetwork']!(running), 'true');
  assert.equal(pods.selectableFields['status.podIP']!(running), '10.0.0.7');
});

test('other field selectors: node cordon, secret type, namespace phase', () => {
  assert.equal(find('', 'nodes').selectableFields['spec.unschedulable']!({ spec: {} }), 'false');
  assert.equal(
    find('', 'nodes').selectableFields['spec.unschedulable']!({ spec: { unschedulable: true } }),
    'true',
  );
  assert.equal(find('', 'secrets').selectableFields.type!({ type: 'Opaque' }), 'Opaque');
  assert.equal(
    find('', 'namespaces').selectableFields['status.phase']!({ status: { phase: 'Active' } }),
    'Active',
  );
});

test('event field selectors: core spellings for v1, regarding.* and reportingController for events.k8s.io', () => {
  const core = find('', 'events');
  assert.deepEqual(Object.keys(core.selectableFields).sort(), [
    'involvedObject.apiVersion',
    'involvedObject.fieldPath',
    'involvedObject.kind',
    'involvedObject.name',
    'involvedObject.namespace',
    'involvedObject.resourceVersion',
    'involvedObject.uid',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ]);
  const event = {
    involvedObject: { kind: 'Node', name: 'n1' },
    reason: 'Drain',
    reportingComponent: 'nodeherd',
  };
  assert.equal(core.selectableFields['involvedObject.kind']!(event), 'Node');
  assert.equal(core.selectableFields['involvedObject.uid']!(event), '');
  // "source" falls back to the reporting component when source.component is empty.
  assert.equal(core.selectableFields.source!(event), 'nodeherd');
  assert.equal(core.selectableFields.source!({ ...event, source: { component: 'kubelet' } }), 'kubelet');

  const v1 = find('events.k8s.io', 'events');
  assert.ok(!('involvedObject.name' in v1.selectableFields));
  assert.equal(v1.selectableFields['regarding.name']!({ regarding: { name: 'p1' } }), 'p1');
  assert.equal(v1.selectableFields.reportingController!({ reportingController: 'c' }), 'c');
});

test('node STATUS and ROLES as kubectl prints them', () => {
  const nodes = find('', 'nodes');
  const node = (ready: string | undefined, unschedulable = false, labels: Record<string, string> = {}) => ({
    metadata: { labels },
    spec: { unschedulable },
    status: {
      conditions: ready
        ? [
            { type: 'MemoryPressure', status: 'False' },
            { type: 'Ready', status: ready },
          ]
        : [],
    },
  });
  assert.equal(cell(nodes, 'Status', node('True')), 'Ready');
  assert.equal(cell(nodes, 'Status', node('False')), 'NotReady');
  assert.equal(cell(nodes, 'Status', node('Unknown', true)), 'NotReady,SchedulingDisabled');
  assert.equal(cell(nodes, 'Status', node(undefined)), 'Unknown');
  assert.equal(cell(nodes, 'Roles', node('True')), '<none>');
  assert.equal(
    cell(
      nodes,
      'Roles',
      node('True', false, {
        'node-role.kubernetes.io/worker': '',
        'node-role.kubernetes.io/control-plane': '',
        'kubernetes.io/role': 'edge',
      }),
    ),
    'control-plane,edge,worker',
  );
  const addressed = {
    status: {
      addresses: [
        { type: 'Hostname', address: 'n1' },
        { type: 'InternalIP', address: '10.1.0.4' },
      ],
    },
  };
  assert.equal(cell(nodes, 'Internal-IP', addressed), '10.1.0.4');
  assert.equal(cell(nodes, 'External-IP', addressed), '<none>');
  assert.deepEqual(
    nodes.printerColumns.filter((c) => !c.priority).map((c) => c.name),
    ['Status', 'Roles', 'Age', 'Version'],
  );
});

const container = (name: string, state: KubeObject, extra: KubeObject = {}) => ({
  name,
  state,
  restartCount: 0,
  ...extra,
});

test('pod READY, STATUS and RESTARTS follow kubectl, including init containers and deletion', () => {
  const now = Date.parse('2026-01-01T12:00:00Z');
  const spec = { containers: [{ name: 'a' }, { name: 'b' }] };
  const running = {
    spec,
    status: {
      phase: 'Running',
      containerStatuses: [
        container(
          'a',
          { running: {} },
          { ready: true, restartCount: 2, lastState: { terminated: { finishedAt: '2026-01-01T11:55:00Z' } } },
        ),
        container('b', { running: {} }, { ready: false }),
      ],
    },
  };
  assert.deepEqual(podSummary(running, now), { ready: '1/2', status: 'Running', restarts: '2 (5m ago)' });

  const crashing = {
    spec,
    status: {
      phase: 'Running',
      containerStatuses: [
        container('a', { waiting: { reason: 'CrashLoopBackOff' } }, { restartCount: 4 }),
        container('b', { running: {} }, { ready: true }),
      ],
    },
  };
  assert.deepEqual(podSummary(crashing, now), { ready: '1/2', status: 'CrashLoopBackOff', restarts: '4' });

  const initializing = {
    spec: { initContainers: [{ name: 'i1' }, { name: 'i2' }], containers: [{ name: 'a' }] },
    status: {
      phase: 'Pending',
      initContainerStatuses: [
        container('i1', { terminated: { exitCode: 0 } }),
        container('i2', { running: {} }),
      ],
      containerStatuses: [container('a', { waiting: { reason: 'PodInitializing' } })],
    },
  };
  assert.equal(podSummary(initializing, now).status, 'Init:1/2');
  const initFailed = structuredClone(initializing);
  initFailed.status.initContainerStatuses[1] = container('i2', { terminated: { exitCode: 3 } });
  assert.equal(podSummary(initFailed, now).status, 'Init:ExitCode:3');

  // A sidecar (restartable init container) counts towards READY.
  const sidecar = {
    spec: { initContainers: [{ name: 'proxy', restartPolicy: 'Always' }], containers: [{ name: 'a' }] },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Initialized', status: 'True' }],
      initContainerStatuses: [container('proxy', { running: {} }, { started: true, ready: true })],
      containerStatuses: [container('a', { running: {} }, { ready: true })],
    },
  };
  assert.deepEqual(podSummary(sidecar, now), { ready: '2/2', status: 'Running', restarts: '0' });

  const completed = {
    spec: { containers: [{ name: 'a' }] },
    status: {
      phase: 'Succeeded',
      containerStatuses: [container('a', { terminated: { exitCode: 0, reason: 'Completed' } })],
    },
  };
  assert.equal(podSummary(completed, now).status, 'Completed');

  const deleting = { ...running, metadata: { deletionTimestamp: '2026-01-01T11:59:00Z' } };
  assert.equal(podSummary(deleting, now).status, 'Terminating');
  const gated = {
    spec,
    status: {
      phase: 'Pending',
      conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }],
    },
  };
  assert.deepEqual(podSummary(gated, now), { ready: '0/2', status: 'SchedulingGated', restarts: '0' });

  const pods = find('', 'pods');
  assert.deepEqual(
    pods.printerColumns.filter((c) => !c.priority).map((c) => c.name),
    ['Ready', 'Status', 'Restarts', 'Age'],
  );
  assert.equal(cell(pods, 'Node', { spec: {} }), '<none>');
});

test('other computed cells: data counts, selectors, controller, disruption budget, event object', () => {
  assert.equal(
    cell(find('', 'configmaps'), 'Data', { data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } }),
    3,
  );
  assert.equal(cell(find('', 'secrets'), 'Data', {}), 0);
  assert.equal(cell(find('', 'serviceaccounts'), 'Secrets', { secrets: [{ name: 's' }] }), 1);

  const ds = find('apps', 'daemonsets');
  const daemonSet = {
    spec: {
      selector: {
        matchLabels: { app: 'agent' },
        matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }],
      },
      template: {
        spec: {
          nodeSelector: { 'kubernetes.io/os': 'linux', edge: 'true' },
          containers: [
            { name: 'agent', image: 'agent:1' },
            { name: 'log', image: 'log:2' },
          ],
        },
      },
    },
    status: { desiredNumberScheduled: 3, numberReady: 2 },
  };
  assert.equal(cell(ds, 'Node Selector', daemonSet), 'edge=true,kubernetes.io/os=linux');
  assert.equal(cell(ds, 'Node Selector', { spec: { template: { spec: {} } } }), '<none>');
  assert.equal(cell(ds, 'Desired', daemonSet), 3);
  assert.equal(cell(ds, 'Available', daemonSet), 0);
  assert.equal(cell(ds, 'Images', daemonSet), 'agent:1,log:2');
  assert.equal(cell(ds, 'Selector', daemonSet), 'app=agent,tier in (a,b)');

  const revisions = find('apps', 'controllerrevisions');
  const owned = {
    metadata: {
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', controller: true }],
    },
  };
  assert.equal(cell(revisions, 'Controller', owned), 'daemonset.apps/agent');
  assert.equal(cell(revisions, 'Controller', { metadata: {} }), '<none>');

  const pdb = find('policy', 'poddisruptionbudgets');
  assert.equal(cell(pdb, 'Min Available', { spec: { minAvailable: '50%' } }), '50%');
  assert.equal(cell(pdb, 'Max Unavailable', { spec: { minAvailable: 1 } }), 'N/A');

  const event = {
    involvedObject: { kind: 'Node', name: 'n1' },
    lastTimestamp: '2026-01-01T10:00:00Z',
    eventTime: null,
  };
  assert.equal(cell(find('', 'events'), 'Object', event), 'node/n1');
  assert.equal(cell(find('', 'events'), 'Last Seen', event), '2026-01-01T10:00:00Z');
  const seriesEvent = {
    regarding: { kind: 'Pod', name: 'p' },
    eventTime: '2026-01-01T09:00:00.000000Z',
    series: { lastObservedTime: '2026-01-01T11:00:00.000000Z' },
  };
  assert.equal(cell(find('events.k8s.io', 'events'), 'Object', seriesEvent), 'pod/p');
  assert.equal(
    cell(find('events.k8s.io', 'events'), 'Last Seen', seriesEvent),
    '2026-01-01T11:00:00.000000Z',
  );
});

test('humanDuration matches kube duration.HumanDuration', () => {
  const s = 1000;
  const cases: [number, string][] = [
    [-5 * s, '<invalid>'],
    [-1 * s, '0s'],
    [-1.5 * s, '0s'],
    [59 * s, '59s'],
    [119 * s, '119s'],
    [150 * s, '2m30s'],
    [9 * 60 * s, '9m'],
    [90 * 60 * s, '90m'],
    [3 * 3600 * s, '3h'],
    [(3 * 3600 + 20 * 60) * s, '3h20m'],
    [30 * 3600 * s, '30h'],
    [50 * 3600 * s, '2d2h'],
    [3 * 24 * 3600 * s, '3d'],
    [40 * 24 * 3600 * s, '40d'],
    [(3 * 365 + 10) * 24 * 3600 * s, '3y10d'],
    [9 * 365 * 24 * 3600 * s, '9y'],
  ];
  for (const [ms, expected] of cases) assert.equal(humanDuration(ms), expected, `${ms} ms`);
});

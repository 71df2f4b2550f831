import assert from 'node:assert/strict';
import { test } from 'node:test';
import { builtinPatchMeta } from '../../../src/apiserver/patch/builtin-patch-meta.ts';
import type { JsonObject, JsonValue } from '../../../src/apiserver/patch/json-value.ts';
import { applyStrategicMergePatch } from '../../../src/apiserver/patch/strategic-merge-patch.ts';
import { assertApiError } from './assert-api-error.ts';

function smp(kind: string, stored: JsonObject, patch: JsonValue): JsonObject {
  return applyStrategicMergePatch(stored, patch, builtinPatchMeta(kind));
}

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

function readyNode(): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'node-1', labels: { 'kubernetes.io/hostname': 'node-1' } },
    spec: { podCIDR: '10.0.1.0/24', podCIDRs: ['10.0.1.0/24'] },
    status: {
      conditions: [
        { type: 'MemoryPressure', status: 'False', lastHeartbeatTime: 't1' },
        { type: 'DiskPressure', status: 'False', lastHeartbeatTime: 't1' },
        { type: 'Ready', status: 'True', lastHeartbeatTime: 't1', reason: 'KubeletReady' },
      ],
      addresses: [
        { type: 'InternalIP', address: '10.0.0.1' },
        { type: 'Hostname', address: 'node-1' },
      ],
    },
  };
}

function webPod(): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web',
      namespace: 'default',
      annotations: { [LAST_APPLIED]: '{"old":true}' },
      labels: { app: 'web' },
    },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'nginx:1.0',
          env: [{ name: 'A', value: '1' }],
          ports: [{ containerPort: 80, protocol: 'TCP' }],
        },
        { name: 'sidecar', image: 'busybox' },
      ],
      tolerations: [{ key: 'a', operator: 'Exists' }],
    },
  };
}

function agentDaemonSet(): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent', namespace: 'kube-system' },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      updateStrategy: { type: 'OnDelete' },
      template: {
        metadata: { labels: { app: 'agent' } },
        spec: {
          containers: [
            { name: 'agent', image: 'agent:v1', volumeMounts: [{ name: 'host', mountPath: '/host' }] },
            { name: 'exporter', image: 'exporter:v1' },
          ],
          volumes: [
            { name: 'host', hostPath: { path: '/' } },
            { name: 'data', hostPath: { path: '/var/lib/agent', type: 'DirectoryOrCreate' } },
            { name: 'tmp', emptyDir: {} },
          ],
        },
      },
    },
    status: { conditions: [{ type: 'Progressing', status: 'True' }] },
  };
}

test('kubectl cordon sets spec.unschedulable; uncordon sends null and removes it', () => {
  const cordoned = smp('Node', readyNode(), { spec: { unschedulable: true } });
  assert.equal((cordoned.spec as JsonObject).unschedulable, true);
  assert.deepEqual((cordoned.spec as JsonObject).podCIDRs, ['10.0.1.0/24']);
  const uncordoned = smp('Node', cordoned, { spec: { unschedulable: null } });
  assert.deepEqual(uncordoned.spec, readyNode().spec);
});

test('kubectl apply on a Pod: $setElementOrder merges containers and env by name, keeps the rest', () => {
  const patch: JsonObject = {
    metadata: { annotations: { [LAST_APPLIED]: '{"new":true}' } },
    spec: {
      '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }],
      containers: [
        {
          '$setElementOrder/env': [{ name: 'A' }, { name: 'B' }],
          env: [{ name: 'B', value: '2' }],
          image: 'nginx:1.1',
          name: 'app',
        },
      ],
    },
  };
  const result = smp('Pod', webPod(), patch);
  assert.deepEqual(result, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web',
      namespace: 'default',
      annotations: { [LAST_APPLIED]: '{"new":true}' },
      labels: { app: 'web' },
    },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'nginx:1.1',
          env: [
            { name: 'A', value: '1' },
            { name: 'B', value: '2' },
          ],
          ports: [{ containerPort: 80, protocol: 'TCP' }],
        },
        { name: 'sidecar', image: 'busybox' },
      ],
      tolerations: [{ key: 'a', operator: 'Exists' }],
    },
  });
});

test('kubectl apply on a DaemonSet: delete a container and a volume, switch a volume source with $retainKeys', () => {
  const patch: JsonObject = {
    spec: {
      template: {
        spec: {
          '$setElementOrder/containers': [{ name: 'agent' }],
          '$setElementOrder/volumes': [{ name: 'host' }, { name: 'data' }],
          containers: [{ $patch: 'delete', name: 'exporter' }],
          volumes: [
            { $retainKeys: ['emptyDir', 'name'], emptyDir: {}, hostPath: null, name: 'data' },
            { $patch: 'delete', name: 'tmp' },
          ],
        },
      },
    },
  };
  const result = smp('DaemonSet', agentDaemonSet(), patch);
  const spec = ((result.spec as JsonObject).template as JsonObject).spec as JsonObject;
  assert.deepEqual(spec.containers, [
    { name: 'agent', image: 'agent:v1', volumeMounts: [{ name: 'host', mountPath: '/host' }] },
  ]);
  assert.deepEqual(spec.volumes, [
    { name: 'host', hostPath: { path: '/' } },
    { name: 'data', emptyDir: {} },
  ]);
  assert.deepEqual((result.spec as JsonObject).updateStrategy, { type: 'OnDelete' });
});

test('kubectl apply adding a container and reordering: $setElementOrder decides the final order', () => {
  const patch: JsonObject = {
    spec: {
      template: {
        spec: {
          '$setElementOrder/containers': [{ name: 'exporter' }, { name: 'proxy' }, { name: 'agent' }],
          containers: [{ name: 'proxy', image: 'proxy:v1' }],
        },
      },
    },
  };
  const spec = (
    ((smp('DaemonSet', agentDaemonSet(), patch).spec as JsonObject).template as JsonObject).spec as JsonObject
  ).containers as JsonObject[];
  assert.deepEqual(
    spec.map((c) => c.name),
    ['exporter', 'proxy', 'agent'],
  );
});

test('kubectl apply on a Deployment: $retainKeys clears rollingUpdate when switching to Recreate', () => {
  const deployment = {
    metadata: { name: 'd' },
    spec: {
      replicas: 2,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
    },
  };
  const result = smp('Deployment', deployment, {
    spec: { strategy: { $retainKeys: ['type'], rollingUpdate: null, type: 'Recreate' } },
  });
  assert.deepEqual(result.spec, { replicas: 2, strategy: { type: 'Recreate' } });
});

test('node status conditions merge by type under $setElementOrder (kubelet / controller status patch)', () => {
  const patch: JsonObject = {
    status: {
      '$setElementOrder/conditions': [
        { type: 'MemoryPressure' },
        { type: 'DiskPressure' },
        { type: 'Ready' },
        { type: 'NodeConfigReady' },
      ],
      conditions: [
        { type: 'Ready', lastHeartbeatTime: 't2' },
        { type: 'NodeConfigReady', status: 'True', reason: 'Applied', message: 'revision pool-abc applied' },
      ],
    },
  };
  const result = smp('Node', readyNode(), patch);
  assert.deepEqual((result.status as JsonObject).conditions, [
    { type: 'MemoryPressure', status: 'False', lastHeartbeatTime: 't1' },
    { type: 'DiskPressure', status: 'False', lastHeartbeatTime: 't1' },
    { type: 'Ready', status: 'True', lastHeartbeatTime: 't2', reason: 'KubeletReady' },
    { type: 'NodeConfigReady', status: 'True', reason: 'Applied', message: 'revision pool-abc applied' },
  ]);
  assert.deepEqual((result.status as JsonObject).addresses, (readyNode().status as JsonObject).addresses);
});

test('a condition patched without $setElementOrder updates in place; a new one goes first, as in Kubernetes', () => {
  const updated = smp('Node', readyNode(), {
    status: { conditions: [{ type: 'DiskPressure', status: 'True' }] },
  });
  const conditions = (updated.status as JsonObject).conditions as JsonObject[];
  assert.deepEqual(
    conditions.map((c) => [c.type, c.status]),
    [
      ['MemoryPressure', 'False'],
      ['DiskPressure', 'True'],
      ['Ready', 'True'],
    ],
  );
  const added = smp('Node', readyNode(), {
    status: { conditions: [{ type: 'NodeConfigReady', status: 'False' }] },
  });
  assert.deepEqual(
    ((added.status as JsonObject).conditions as JsonObject[]).map((c) => c.type),
    ['NodeConfigReady', 'MemoryPressure', 'DiskPressure', 'Ready'],
  );
});

test('pod and DaemonSet and PodDisruptionBudget status conditions also merge by type', () => {
  for (const kind of ['Pod', 'DaemonSet', 'PodDisruptionBudget', 'Namespace', 'Deployment']) {
    const stored = {
      metadata: { name: 'x' },
      status: {
        conditions: [
          { type: 'A', status: 'True' },
          { type: 'B', status: 'True' },
        ],
      },
    };
    const result = smp(kind, stored, { status: { conditions: [{ type: 'B', status: 'False' }] } });
    assert.deepEqual(
      (result.status as JsonObject).conditions,
      [
        { type: 'A', status: 'True' },
        { type: 'B', status: 'False' },
      ],
      kind,
    );
  }
});

test('lists without a patch strategy are replaced whole', () => {
  const cases: {
    kind: string;
    stored: JsonObject;
    patch: JsonObject;
    path: string[];
    expected: JsonValue;
  }[] = [
    {
      kind: 'Pod',
      stored: webPod(),
      patch: { spec: { tolerations: [{ key: 'b', operator: 'Exists' }] } },
      path: ['spec', 'tolerations'],
      expected: [{ key: 'b', operator: 'Exists' }],
    },
    {
      kind: 'Node',
      stored: { spec: { taints: [{ key: 'a', effect: 'NoSchedule' }] } },
      patch: { spec: { taints: [{ key: 'b', effect: 'NoExecute' }] } },
      path: ['spec', 'taints'],
      expected: [{ key: 'b', effect: 'NoExecute' }],
    },
    {
      kind: 'Pod',
      stored: { status: { containerStatuses: [{ name: 'a', ready: true }] } },
      patch: { status: { containerStatuses: [{ name: 'b', ready: false }] } },
      path: ['status', 'containerStatuses'],
      expected: [{ name: 'b', ready: false }],
    },
    {
      kind: 'MyCustomResource',
      stored: { spec: { items: [{ name: 'a' }] } },
      patch: { spec: { items: [{ name: 'b' }] } },
      path: ['spec', 'items'],
      expected: [{ name: 'b' }],
    },
  ];
  for (const c of cases) {
    let value: JsonValue = smp(c.kind, c.stored, c.patch);
    for (const step of c.path) value = (value as JsonObject)[step]!;
    assert.deepEqual(value, c.expected, `${c.kind} ${c.path.join('.')}`);
  }
});

test('lists merged by their merge key: ports, volumeMounts, imagePullSecrets, ownerReferences', () => {
  const stored = {
    metadata: {
      name: 'p',
      ownerReferences: [{ uid: 'u1', kind: 'DaemonSet', name: 'agent' }],
    },
    spec: {
      containers: [
        {
          name: 'app',
          ports: [{ containerPort: 80, name: 'http' }],
          volumeMounts: [{ name: 'data', mountPath: '/data' }],
        },
      ],
      imagePullSecrets: [{ name: 'regcred' }],
    },
  };
  const patch: JsonObject = {
    metadata: { ownerReferences: [{ uid: 'u1', controller: true }] },
    spec: {
      containers: [
        {
          name: 'app',
          ports: [{ containerPort: 80, protocol: 'TCP' }],
          volumeMounts: [{ name: 'cache', mountPath: '/cache' }],
        },
      ],
      imagePullSecrets: [{ name: 'other' }],
    },
  };
  assert.deepEqual(smp('Pod', stored, patch), {
    metadata: {
      name: 'p',
      ownerReferences: [{ uid: 'u1', kind: 'DaemonSet', name: 'agent', controller: true }],
    },
    spec: {
      containers: [
        {
          name: 'app',
          ports: [{ containerPort: 80, name: 'http', protocol: 'TCP' }],
          volumeMounts: [
            { name: 'cache', mountPath: '/cache' },
            { name: 'data', mountPath: '/data' },
          ],
        },
      ],
      imagePullSecrets: [{ name: 'other' }, { name: 'regcred' }],
    },
  });
});

test('finalizers: a merged set of strings, with $deleteFromPrimitiveList and $setElementOrder', () => {
  const stored = { metadata: { name: 'n', finalizers: ['a.io/x', 'b.io/y'] } };
  const cases: { name: string; patch: JsonObject; finalizers: JsonValue }[] = [
    {
      name: 'add one (goes first)',
      patch: { metadata: { finalizers: ['c.io/z'] } },
      finalizers: ['c.io/z', 'a.io/x', 'b.io/y'],
    },
    {
      name: 'adding a present one is a no-op',
      patch: { metadata: { finalizers: ['b.io/y'] } },
      finalizers: ['a.io/x', 'b.io/y'],
    },
    {
      name: 'delete one',
      patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['a.io/x'] } },
      finalizers: ['b.io/y'],
    },
    {
      name: 'kubectl apply: add, delete and order',
      patch: {
        metadata: {
          '$setElementOrder/finalizers': ['a.io/x', 'c.io/z'],
          finalizers: ['c.io/z'],
          '$deleteFromPrimitiveList/finalizers': ['b.io/y'],
        },
      },
      finalizers: ['a.io/x', 'c.io/z'],
    },
    {
      name: 'null removes the list',
      patch: { metadata: { finalizers: null } },
      finalizers: undefined as never,
    },
  ];
  for (const c of cases) {
    const metadata = smp('ConfigMap', stored, c.patch).metadata as JsonObject;
    assert.deepEqual(metadata.finalizers, c.finalizers, c.name);
  }
});

test('$patch directives on objects and lists', () => {
  const pod = webPod();
  const replacedList = smp('Pod', pod, {
    spec: { containers: [{ name: 'only', image: 'x' }, { $patch: 'replace' }] },
  });
  assert.deepEqual((replacedList.spec as JsonObject).containers, [{ name: 'only', image: 'x' }]);

  const replacedMap = smp('Pod', pod, { metadata: { labels: { $patch: 'replace', tier: 'gold' } } });
  assert.deepEqual((replacedMap.metadata as JsonObject).labels, { tier: 'gold' });

  const deletedMap = smp('Pod', pod, { metadata: { annotations: { $patch: 'delete' } } });
  assert.deepEqual((deletedMap.metadata as JsonObject).annotations, {});

  const deletedItem = smp('Pod', pod, { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }] } });
  assert.deepEqual(
    ((deletedItem.spec as JsonObject).containers as JsonObject[]).map((c) => c.name),
    ['app'],
  );

  const mergedMap = smp('Pod', pod, { metadata: { labels: { $patch: 'merge', tier: 'gold' } } });
  assert.deepEqual((mergedMap.metadata as JsonObject).labels, { app: 'web', tier: 'gold' });

  const mergedItem = smp('Pod', pod, {
    spec: { containers: [{ name: 'sidecar', $patch: 'merge', image: 'b:2' }] },
  });
  assert.deepEqual(((mergedItem.spec as JsonObject).containers as JsonObject[])[1], {
    name: 'sidecar',
    image: 'b:2',
  });
});

test('kubectl annotate / label through strategic merge: null removes a key', () => {
  const result = smp('Pod', webPod(), {
    metadata: { annotations: { [LAST_APPLIED]: null }, labels: { app: null, v: '2' } },
  });
  assert.deepEqual((result.metadata as JsonObject).annotations, {});
  assert.deepEqual((result.metadata as JsonObject).labels, { v: '2' });
});

test('kubectl edit (two-way patch): labels and a container image', () => {
  const result = smp('Pod', webPod(), {
    metadata: { labels: { tier: 'gold' } },
    spec: {
      '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }],
      containers: [{ image: 'nginx:2', name: 'app' }],
    },
  });
  assert.deepEqual((result.metadata as JsonObject).labels, { app: 'web', tier: 'gold' });
  assert.deepEqual(
    ((result.spec as JsonObject).containers as JsonObject[]).map((c) => [c.name, c.image]),
    [
      ['app', 'nginx:2'],
      ['sidecar', 'busybox'],
    ],
  );
});

test('a value added where nothing was stored loses its directives and nulls', () => {
  const result = smp(
    'DaemonSet',
    { metadata: { name: 'x' } },
    {
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'a' }],
            containers: [
              {
                name: 'a',
                image: 'i',
                args: null,
                env: [
                  { name: 'E', $patch: 'delete' },
                  { name: 'F', value: '1' },
                ],
              },
            ],
            $retainKeys: ['containers'],
          },
        },
      },
    },
  );
  assert.deepEqual(result.spec, {
    template: { spec: { containers: [{ name: 'a', image: 'i', env: [{ name: 'F', value: '1' }] }] } },
  });
});

test('type changes replace; objects replace scalars and the reverse', () => {
  assert.deepEqual(smp('ConfigMap', { data: 'x' }, { data: { a: '1', b: null } }), { data: { a: '1' } });
  assert.deepEqual(smp('ConfigMap', { data: { a: '1' } }, { data: 'x' }), { data: 'x' });
});

test('a null patch changes nothing; inputs are never modified', () => {
  const stored = webPod();
  const before = structuredClone(stored);
  assert.deepEqual(smp('Pod', stored, null), before);
  const patch = { spec: { containers: [{ name: 'app', image: 'x' }] } };
  const patchBefore = structuredClone(patch);
  smp('Pod', stored, patch);
  assert.deepEqual(stored, before);
  assert.deepEqual(patch, patchBefore);
});

test('kinds without a table still merge ObjectMeta lists (finalizers, ownerReferences)', () => {
  const result = smp(
    'ClusterRole',
    { metadata: { name: 'r', finalizers: ['a'] } },
    { metadata: { finalizers: ['b'] } },
  );
  assert.deepEqual((result.metadata as JsonObject).finalizers, ['b', 'a']);
});

test('ServiceAccount secrets merge by name; Node addresses merge by type', () => {
  const sa = smp('ServiceAccount', { secrets: [{ name: 'a' }] }, { secrets: [{ name: 'b' }] });
  assert.deepEqual(sa.secrets, [{ name: 'b' }, { name: 'a' }]);
  const node = smp('Node', readyNode(), {
    status: { addresses: [{ type: 'InternalIP', address: '10.0.0.9' }] },
  });
  assert.deepEqual((node.status as JsonObject).addresses, [
    { type: 'InternalIP', address: '10.0.0.9' },
    { type: 'Hostname', address: 'node-1' },
  ]);
});

// Errors, with the status each gets from a real API server.
const errors: {
  name: string;
  kind: string;
  stored: JsonObject;
  patch: JsonValue;
  code: number;
  reason: string;
  message: string;
}[] = [
  {
    name: 'a list item without its merge key',
    kind: 'Pod',
    stored: webPod(),
    patch: { spec: { containers: [{ image: 'x' }] } },
    code: 500,
    reason: 'InternalError',
    message: 'map: map[image:x] does not contain declared merge key: name',
  },
  {
    name: '$patch: delete on an item without its merge key',
    kind: 'Pod',
    stored: webPod(),
    patch: { spec: { containers: [{ $patch: 'delete' }] } },
    code: 500,
    reason: 'InternalError',
    message: 'map: map[$patch:delete] does not contain declared merge key: name',
  },
  {
    name: 'an unknown $patch directive on an object',
    kind: 'Pod',
    stored: webPod(),
    patch: { metadata: { $patch: 'explode' } },
    code: 500,
    reason: 'InternalError',
    message: 'unknown patch type: explode in map: map[$patch:explode]',
  },
  {
    name: 'an unknown $patch directive on a list item',
    kind: 'Pod',
    stored: webPod(),
    patch: { spec: { containers: [{ name: 'app', $patch: 'explode' }] } },
    code: 500,
    reason: 'InternalError',
    message: 'unknown patch type: explode in map: map[$patch:explode name:app]',
  },
  {
    name: '$retainKeys that is not a list',
    kind: 'Deployment',
    stored: { spec: { strategy: { type: 'Recreate' } } },
    patch: { spec: { strategy: { $retainKeys: 'type' } } },
    code: 400,
    reason: 'BadRequest',
    message: 'invalid patch format of retainKeys',
  },
  {
    name: 'a patch key missing from $retainKeys',
    kind: 'Deployment',
    stored: { spec: { strategy: { type: 'Recreate' } } },
    patch: { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: { maxSurge: 1 } } } },
    code: 400,
    reason: 'BadRequest',
    message: 'invalid patch format of retainKeys',
  },
  {
    name: '$setElementOrder without a list name',
    kind: 'Pod',
    stored: webPod(),
    patch: { spec: { $setElementOrder: [{ name: 'app' }] } },
    code: 400,
    reason: 'BadRequest',
    message: 'invalid patch format of setElementOrder list',
  },
  {
    name: '$deleteFromPrimitiveList without a list name',
    kind: 'Pod',
    stored: webPod(),
    patch: { metadata: { $deleteFromPrimitiveListfinalizers: ['a'] } },
    code: 400,
    reason: 'BadRequest',
    message: 'invalid patch format of primitive list',
  },
  {
    name: 'a patch list that contradicts $setElementOrder',
    kind: 'Pod',
    stored: webPod(),
    patch: {
      spec: {
        '$setElementOrder/containers': [{ name: 'app' }],
        containers: [{ name: 'sidecar', image: 'x' }],
      },
    },
    code: 500,
    reason: 'InternalError',
    message:
      "the order in patch list:\n[map[image:x name:sidecar]]\n doesn't match $setElementOrder list:\n[map[name:app]]",
  },
  {
    name: 'a $setElementOrder that is not a list',
    kind: 'Pod',
    stored: webPod(),
    patch: { spec: { '$setElementOrder/containers': 'app' } },
    code: 500,
    reason: 'InternalError',
    message: 'expected a []interface {}, but received a string',
  },
  {
    name: 'a list of lists',
    kind: 'Node',
    stored: { spec: { podCIDRs: [['a']] } },
    patch: { spec: { podCIDRs: [['b']] } },
    code: 422,
    reason: 'Invalid',
    message: 'the server rejected our request due to an error in our request',
  },
  {
    name: 'mixed element types in a merged list',
    kind: 'ConfigMap',
    stored: { metadata: { finalizers: ['a'] } },
    patch: { metadata: { finalizers: [1] } },
    code: 500,
    reason: 'InternalError',
    message: 'list element types are not identical: [[a] [1]]',
  },
  {
    name: 'a patch that is a JSON array',
    kind: 'Pod',
    stored: webPod(),
    patch: [{ spec: {} }],
    code: 400,
    reason: 'BadRequest',
    message: 'json: cannot unmarshal array into Go value of type map[string]interface {}',
  },
];

for (const c of errors) {
  test(`strategic merge patch error: ${c.name} → ${c.code}`, () => {
    assertApiError(() => smp(c.kind, c.stored, c.patch), c.code, c.reason, c.message);
  });
}

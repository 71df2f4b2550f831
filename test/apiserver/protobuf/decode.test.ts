// Each kind is encoded by hand from the field numbers of k8s.io/api's generated.proto, the way
// gogo-protobuf writes it (every non-pointer field present, pointer fields only when set), and must
// decode to the JSON kube's encoding/json writes for the same Go value.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../../../src/apiserver/errors.ts';
import { BUILTIN_PROTOBUF_MESSAGES } from '../../../src/apiserver/kinds/registration.ts';
import {
  decodeProtobufObject as decodeWith,
  protobufKinds as kindsIn,
} from '../../../src/apiserver/protobuf/decode.ts';
import { bytes, entry, fixed32, int, kubeProtobuf, msg, packed, str, stringMap, time } from './pb-writer.ts';

/** The decoder as the server runs it: with every built-in kind's messages. */
const decodeProtobufObject = (body: Buffer) => decodeWith(body, BUILTIN_PROTOBUF_MESSAGES);
const protobufKinds = () => kindsIn(BUILTIN_PROTOBUF_MESSAGES);

/** ObjectMeta as gogo writes it: the non-pointer fields always, zero or not. */
function objectMeta(number: number, fields: { name?: string; namespace?: string } = {}, ...extra: Buffer[]) {
  return msg(
    number,
    str(1, fields.name ?? ''),
    str(2, ''),
    str(3, fields.namespace ?? ''),
    str(4, ''),
    str(5, ''),
    str(6, ''),
    int(7, 0),
    msg(8),
    ...extra,
  );
}

function expectApiError(fn: () => unknown, code: number, reason: string, message: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ApiError, `expected ApiError, got ${String(err)}`);
    assert.equal(err.code, code);
    assert.equal(err.reason, reason);
    assert.match(err.message, message);
    return true;
  });
}

describe('ObjectMeta', () => {
  test('every field the server reads, times in RFC 3339 and zero values left out', () => {
    const meta = msg(
      1,
      str(1, 'c1'),
      str(2, 'gen-'),
      str(3, 'ns1'),
      str(4, ''),
      str(5, 'a1b2'),
      str(6, '42'),
      int(7, 3),
      time(8, 1715000000, 999_999_999),
      time(9, 1715000060),
      int(10, 30),
      stringMap(11, { app: 'web', tier: 'front' }),
      stringMap(12, { 'example.com/note': 'hi' }),
      msg(13, str(1, 'Deployment'), str(3, 'd1'), str(4, 'u-1'), str(5, 'apps/v1'), int(6, true)),
      msg(13, str(1, 'Node'), str(3, 'n1'), str(4, 'u-2'), str(5, 'v1'), int(7, false)),
      str(14, 'example.com/guard'),
      str(14, 'other'),
      msg(17, str(1, 'kubectl'), str(2, 'Update'), str(3, 'v1')),
    );
    assert.deepEqual(decodeProtobufObject(kubeProtobuf('v1', 'ConfigMap', meta)), {
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: {
        name: 'c1',
        generateName: 'gen-',
        namespace: 'ns1',
        uid: 'a1b2',
        resourceVersion: '42',
        generation: 3,
        creationTimestamp: '2024-05-06T12:53:20Z',
        deletionTimestamp: '2024-05-06T12:54:20Z',
        deletionGracePeriodSeconds: 30,
        labels: { app: 'web', tier: 'front' },
        annotations: { 'example.com/note': 'hi' },
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd1', uid: 'u-1', controller: true },
          { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'u-2', blockOwnerDeletion: false },
        ],
        finalizers: ['example.com/guard', 'other'],
      },
    });
  });

  test('a zero deletionGracePeriodSeconds is kept (a pointer), a zero generation is not', () => {
    const obj = decodeProtobufObject(
      kubeProtobuf('v1', 'ConfigMap', objectMeta(1, { name: 'c' }, int(10, 0))),
    );
    assert.deepEqual(obj.metadata, { name: 'c', deletionGracePeriodSeconds: 0 });
  });

  test('the epoch is a time, an empty Time message is no time at all', () => {
    const obj = decodeProtobufObject(
      kubeProtobuf('v1', 'ConfigMap', msg(1, str(1, 'c'), msg(8, int(1, 0), int(2, 0)), msg(9))),
    );
    assert.deepEqual(obj.metadata, { name: 'c', creationTimestamp: '1970-01-01T00:00:00Z' });
  });

  test('times before the epoch and Go’s zero time', () => {
    const before = decodeProtobufObject(kubeProtobuf('v1', 'ConfigMap', msg(1, time(8, -1))));
    assert.deepEqual(before.metadata, { creationTimestamp: '1969-12-31T23:59:59Z' });
    const goZero = decodeProtobufObject(kubeProtobuf('v1', 'ConfigMap', msg(1, time(8, -62135596800))));
    assert.deepEqual(goZero.metadata, {});
  });
});

describe('core/v1 kinds kubectl create sends', () => {
  test('ConfigMap: data, binaryData as base64, immutable', () => {
    const raw = Buffer.concat([
      objectMeta(1, { name: 'c1', namespace: 'default' }),
      stringMap(2, { a: 'b', 'f.txt': 'line\n', empty: '' }),
      entry(3, 'bin', bytes(2, Buffer.from([0x00, 0x01, 0xff]))),
      int(4, false),
    ]);
    assert.deepEqual(decodeProtobufObject(kubeProtobuf('v1', 'ConfigMap', raw)), {
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { name: 'c1', namespace: 'default' },
      immutable: false,
      data: { a: 'b', 'f.txt': 'line\n', empty: '' },
      binaryData: { bin: 'AAH/' },
    });
  });

  test('a map entry without a value is the zero value; a repeated key keeps the last value', () => {
    const raw = Buffer.concat([
      msg(2, str(1, 'k')),
      stringMap(2, { dup: 'one' }),
      stringMap(2, { dup: 'two' }),
    ]);
    assert.deepEqual(decodeProtobufObject(kubeProtobuf('v1', 'ConfigMap', raw)).data, { k: '', dup: 'two' });
  });

  test('map keys that are property names of Object stay plain keys', () => {
    const raw = Buffer.concat([entry(2, '__proto__', str(2, 'x')), entry(2, 'constructor', str(2, 'y'))]);
    const data = decodeProtobufObject(kubeProtobuf('v1', 'ConfigMap', raw)).data as Record<string, unknown>;
    assert.deepEqual(Object.keys(data), ['__proto__', 'constructor']);
    assert.equal(Object.getPrototypeOf(data), Object.prototype);
    assert.equal(JSON.stringify(data), '{"__proto__":"x","constructor":"y"}');
  });

  test('Secret: data as base64, stringData, type; an empty type is left out', () => {
    const raw = Buffer.concat([
      objectMeta(1, { name: 's1' }),
      entry(2, 'password', bytes(2, Buffer.from('s3cr3t'))),
      str(3, 'kubernetes.io/basic-auth'),
      stringMap(4, { username: 'admin' }),
      int(5, true),
    ]);
    assert.deepEqual(decodeProtobufObject(kubeProtobuf('v1', 'Secret', raw)), {
      kind: 'Secret',
      apiVersion: 'v1',
      metadata: { name: 's1' },
      immutable: true,
      data: { password: 'czNjcjN0' },
      stringData: { username: 'admin' },
      type: 'kubernetes.io/basic-auth',
    });
    const untyped = Buffer.concat([objectMeta(1, { name: 's2' }), str(3, '')]);
    assert.deepEqual(decodeProtobufObject(kubeProtobuf('v1', 'Secret', untyped)), {
      kind: 'Secret',
      apiVersion: 'v1',
      metadata: { name: 's2' },
    });
  });

  test('Namespace: spec and status are always written, even empty', () => {
    const empty = Buffer.concat([objectMeta(1, { name: 'ns1' }), msg(2), msg(3, str(1, ''))]);
    assert.deepEqual(decodeProtobufObject(kubeProtobuf('v1', 'Namespace', empty)), {
      kind: 'Namespace',
      apiVersion: 'v1',
      metadata: { name: 'ns1' },
      spec: {},
      status: {},
    });
    const full = Buffer.concat([
      objectMeta(1, { name: 'ns2' }),
      msg(2, str(1, 'kubernetes')),
      msg(
        3,
        str(1, 'Terminating'),
        msg(
          2,
          str(1, 'NamespaceDeletionContentFailure'),
          str(2, 'False'),
          time(4, 1700000000),
          str(5, 'Done'),
          str(6, ''),
        ),
      ),
    ]);
    assert.deepEqual(decodeProtobufObject(kubeProtobuf('v1', 'Namespace', full)), {
      kind: 'Namespace',
      apiVersion: 'v1',
      metadata: { name: 'ns2' },
      spec: { finalizers: ['kubernetes'] },
      status: {
        phase: 'Terminating',
        conditions: [
          {
            type: 'NamespaceDeletionContentFailure',
            status: 'False',
            lastTransitionTime: '2023-11-14T22:13:20Z',
            reason: 'Done',
          },
        ],
      },
    });
  });

  test('ServiceAccount: secrets, imagePullSecrets, automountServiceAccountToken', () => {
    const raw = Buffer.concat([
      objectMeta(1, { name: 'sa1', namespace: 'kube-system' }),
      msg(
        2,
        str(1, 'Secret'),
        str(2, ''),
        str(3, 'sa1-token'),
        str(4, ''),
        str(5, 'v1'),
        str(6, ''),
        str(7, ''),
      ),
      msg(3, str(1, 'registry')),
      int(4, false),
    ]);
    assert.deepEqual(decodeProtobufObject(kubeProtobuf('v1', 'ServiceAccount', raw)), {
      kind: 'ServiceAccount',
      apiVersion: 'v1',
      metadata: { name: 'sa1', namespace: 'kube-system' },
      secrets: [{ kind: 'Secret', name: 'sa1-token', apiVersion: 'v1' }],
      imagePullSecrets: [{ name: 'registry' }],
      automountServiceAccountToken: false,
    });
  });

  test('Event: involved object, source, times, micro-time, series, reporting fields always written', () => {
    const raw = Buffer.concat([
      objectMeta(1, { name: 'p1.17a', namespace: 'default' }),
      msg(
        2,
        str(1, 'Pod'),
        str(2, 'default'),
        str(3, 'p1'),
        str(4, 'uid-p1'),
        str(5, 'v1'),
        str(6, '7'),
        str(7, ''),
      ),
      str(3, 'Scheduled'),
      str(4, 'Successfully assigned default/p1 to n1'),
      msg(5, str(1, 'scheduler'), str(2, '')),
      time(6, 1700000000),
      time(7, 1700000100, 500_000_000),
      int(8, 2),
      str(9, 'Normal'),
      time(10, 1700000000, 123_456_789),
      msg(11, int(1, 2), time(2, 1700000100, 1_000)),
      str(12, 'Binding'),
      str(14, ''),
      str(15, ''),
    ]);
    assert.deepEqual(decodeProtobufObject(kubeProtobuf('v1', 'Event', raw)), {
      kind: 'Event',
      apiVersion: 'v1',
      metadata: { name: 'p1.17a', namespace: 'default' },
      involvedObject: {
        kind: 'Pod',
        namespace: 'default',
        name: 'p1',
        uid: 'uid-p1',
        apiVersion: 'v1',
        resourceVersion: '7',
      },
      reason: 'Scheduled',
      message: 'Successfully assigned default/p1 to n1',
      source: { component: 'scheduler' },
      firstTimestamp: '2023-11-14T22:13:20Z',
      lastTimestamp: '2023-11-14T22:15:00Z',
      count: 2,
      type: 'Normal',
      eventTime: '2023-11-14T22:13:20.123456Z',
      series: { count: 2, lastObservedTime: '2023-11-14T22:15:00.000001Z' },
      action: 'Binding',
      reportingComponent: '',
      reportingInstance: '',
    });
  });

  test('Event without source, times or reporting fields on the wire still has what Go always writes', () => {
    const raw = objectMeta(1, { name: 'e' });
    assert.deepEqual(decodeProtobufObject(kubeProtobuf('v1', 'Event', raw)), {
      kind: 'Event',
      apiVersion: 'v1',
      metadata: { name: 'e' },
      involvedObject: {},
      source: {},
      reportingComponent: '',
      reportingInstance: '',
    });
  });
});

describe('Pod', () => {
  const container = msg(
    2,
    str(1, 'app'),
    str(2, 'nginx:1.27'),
    str(3, 'sh'),
    str(3, '-c'),
    str(4, 'echo hi'),
    str(5, ''),
    msg(6, str(1, 'http'), int(2, 0), int(3, 8080), str(4, 'TCP'), str(5, '')),
    msg(7, str(1, 'MODE'), str(2, 'prod')),
    msg(
      7,
      str(1, 'PASSWORD'),
      str(2, ''),
      msg(3, msg(4, msg(1, str(1, 'db')), str(2, 'password'), int(3, true))),
    ),
    msg(7, str(1, 'NODE'), str(2, ''), msg(3, msg(1, str(1, 'v1'), str(2, 'spec.nodeName')))),
    msg(
      7,
      str(1, 'MEM'),
      str(2, ''),
      msg(3, msg(2, str(1, ''), str(2, 'limits.memory'), msg(3, str(1, '1Mi')))),
    ),
    msg(8, entry(1, 'cpu', msg(2, str(1, '500m'))), entry(2, 'memory', msg(2, str(1, '128Mi')))),
    msg(9, str(1, 'config'), int(2, true), str(3, '/etc/app'), str(4, ''), str(6, '')),
    msg(
      10,
      msg(
        1,
        msg(2, str(1, '/healthz'), msg(2, int(1, 1), int(2, 0), str(3, 'http')), str(3, ''), str(4, 'HTTP')),
      ),
      int(2, 5),
      int(3, 1),
      int(4, 10),
      int(5, 1),
      int(6, 3),
    ),
    msg(
      11,
      msg(1, msg(3, msg(1, int(1, 0), int(2, 8080), str(3, '')), str(2, ''))),
      int(2, 0),
      int(3, 0),
      int(4, 0),
      int(5, 0),
      int(6, 0),
    ),
    str(13, '/dev/termination-log'),
    str(14, 'IfNotPresent'),
    msg(15, msg(1, str(2, 'ALL')), int(5, true), int(4, 1000), int(7, false)),
    int(16, false),
    int(17, false),
    int(18, false),
    str(20, 'File'),
  );

  const spec = msg(
    2,
    msg(
      1,
      str(1, 'config'),
      msg(2, msg(19, msg(1, str(1, 'app-config')), msg(2, str(1, 'a'), str(2, 'a.conf')), int(3, 420))),
    ),
    msg(1, str(1, 'scratch'), msg(2, msg(2, str(1, 'Memory'), msg(2, str(1, '64Mi'))))),
    msg(1, str(1, 'host'), msg(2, msg(1, str(1, '/var/log'), str(2, 'Directory')))),
    container,
    str(3, 'Always'),
    int(4, 30),
    str(6, 'ClusterFirst'),
    stringMap(7, { 'kubernetes.io/os': 'linux' }),
    str(8, 'default'),
    str(9, 'default'),
    str(10, 'n1'),
    int(11, false),
    int(12, false),
    int(13, false),
    msg(
      14,
      int(2, 1000),
      packed(4, [1, 2]),
      int(5, 2000),
      msg(7, str(1, 'net.core.somaxconn'), str(2, '1024')),
    ),
    str(16, ''),
    str(17, ''),
    msg(
      18,
      msg(
        1,
        msg(1, msg(1, msg(1, str(1, 'node-role'), str(2, 'In'), str(3, 'worker'), str(3, 'edge')))),
        msg(2, int(1, 10), msg(2, msg(2, str(1, 'metadata.name'), str(2, 'NotIn'), str(3, 'n9')))),
      ),
      msg(
        3,
        msg(2, int(1, 50), msg(2, msg(1, stringMap(1, { app: 'web' })), str(3, 'kubernetes.io/hostname'))),
      ),
    ),
    str(19, 'default-scheduler'),
    msg(
      22,
      str(1, 'node.kubernetes.io/not-ready'),
      str(2, 'Exists'),
      str(3, ''),
      str(4, 'NoExecute'),
      int(5, 300),
    ),
    msg(22, str(1, ''), str(2, 'Exists'), str(3, ''), str(4, '')),
    str(24, ''),
    int(25, 0),
    int(30, true),
    str(31, 'PreemptLowerPriority'),
  );

  test('metadata and the common spec fields, with an empty status', () => {
    const raw = Buffer.concat([
      objectMeta(1, { name: 'p1', namespace: 'default' }),
      spec,
      msg(3, str(1, '')),
    ]);
    assert.deepEqual(decodeProtobufObject(kubeProtobuf('v1', 'Pod', raw)), {
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: { name: 'p1', namespace: 'default' },
      spec: {
        volumes: [
          {
            name: 'config',
            configMap: { name: 'app-config', items: [{ key: 'a', path: 'a.conf' }], defaultMode: 420 },
          },
          { name: 'scratch', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } },
          { name: 'host', hostPath: { path: '/var/log', type: 'Directory' } },
        ],
        containers: [
          {
            name: 'app',
            image: 'nginx:1.27',
            command: ['sh', '-c'],
            args: ['echo hi'],
            ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
            env: [
              { name: 'MODE', value: 'prod' },
              {
                name: 'PASSWORD',
                valueFrom: { secretKeyRef: { name: 'db', key: 'password', optional: true } },
              },
              { name: 'NODE', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } } },
              {
                name: 'MEM',
                valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } },
              },
            ],
            resources: { limits: { cpu: '500m' }, requests: { memory: '128Mi' } },
            volumeMounts: [{ name: 'config', readOnly: true, mountPath: '/etc/app' }],
            livenessProbe: {
              httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' },
              initialDelaySeconds: 5,
              timeoutSeconds: 1,
              periodSeconds: 10,
              successThreshold: 1,
              failureThreshold: 3,
            },
            readinessProbe: { tcpSocket: { port: 8080 } },
            terminationMessagePath: '/dev/termination-log',
            terminationMessagePolicy: 'File',
            imagePullPolicy: 'IfNotPresent',
            securityContext: {
              capabilities: { drop: ['ALL'] },
              runAsUser: 1000,
              runAsNonRoot: true,
              allowPrivilegeEscalation: false,
            },
          },
        ],
        restartPolicy: 'Always',
        terminationGracePeriodSeconds: 30,
        dnsPolicy: 'ClusterFirst',
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        serviceAccountName: 'default',
        serviceAccount: 'default',
        nodeName: 'n1',
        securityContext: {
          runAsUser: 1000,
          supplementalGroups: [1, 2],
          fsGroup: 2000,
          sysctls: [{ name: 'net.core.somaxconn', value: '1024' }],
        },
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                { matchExpressions: [{ key: 'node-role', operator: 'In', values: ['worker', 'edge'] }] },
              ],
            },
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight: 10,
                preference: { matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['n9'] }] },
              },
            ],
          },
          podAntiAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight: 50,
                podAffinityTerm: {
                  labelSelector: { matchLabels: { app: 'web' } },
                  topologyKey: 'kubernetes.io/hostname',
                },
              },
            ],
          },
        },
        schedulerName: 'default-scheduler',
        tolerations: [
          {
            key: 'node.kubernetes.io/not-ready',
            operator: 'Exists',
            effect: 'NoExecute',
            tolerationSeconds: 300,
          },
          { operator: 'Exists' },
        ],
        priority: 0,
        enableServiceLinks: true,
        preemptionPolicy: 'PreemptLowerPriority',
      },
      status: {},
    });
  });

  test('a container with nothing set still has its name and resources, as Go writes them', () => {
    const raw = msg(2, msg(2, str(1, '')));
    assert.deepEqual(decodeProtobufObject(kubeProtobuf('v1', 'Pod', raw)), {
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: {},
      spec: { containers: [{ name: '', resources: {} }] },
      status: {},
    });
  });

  test('status written by a status writer: phase, conditions, IPs, start time, container statuses', () => {
    const raw = msg(
      3,
      str(1, 'Running'),
      msg(2, str(1, 'Ready'), str(2, 'True'), msg(3), time(4, 1700000000), str(5, ''), str(6, '')),
      str(5, '10.0.0.1'),
      msg(16, str(1, '10.0.0.1')),
      str(6, '10.1.0.5'),
      msg(12, str(1, '10.1.0.5')),
      time(7, 1700000000),
      str(9, 'BestEffort'),
      msg(
        8,
        str(1, 'app'),
        msg(2, msg(2, time(1, 1700000005))),
        msg(
          3,
          msg(
            3,
            int(1, 0),
            int(2, 0),
            str(3, 'Completed'),
            str(4, ''),
            time(5, 1700000000),
            time(6, 1700000004),
            str(7, 'containerd://a'),
          ),
        ),
        int(4, true),
        int(5, 1),
        str(6, 'nginx:1.27'),
        str(7, 'sha256:abc'),
        str(8, 'containerd://b'),
        int(9, true),
      ),
      msg(
        10,
        str(1, 'init'),
        msg(2),
        msg(3),
        int(4, false),
        int(5, 0),
        str(6, 'busybox'),
        str(7, ''),
        str(8, ''),
      ),
    );
    assert.deepEqual(decodeProtobufObject(kubeProtobuf('v1', 'Pod', raw)).status, {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2023-11-14T22:13:20Z' }],
      hostIP: '10.0.0.1',
      hostIPs: [{ ip: '10.0.0.1' }],
      podIP: '10.1.0.5',
      podIPs: [{ ip: '10.1.0.5' }],
      startTime: '2023-11-14T22:13:20Z',
      qosClass: 'BestEffort',
      containerStatuses: [
        {
          name: 'app',
          state: { running: { startedAt: '2023-11-14T22:13:25Z' } },
          lastState: {
            terminated: {
              exitCode: 0,
              reason: 'Completed',
              startedAt: '2023-11-14T22:13:20Z',
              finishedAt: '2023-11-14T22:13:24Z',
              containerID: 'containerd://a',
            },
          },
          ready: true,
          restartCount: 1,
          image: 'nginx:1.27',
          imageID: 'sha256:abc',
          containerID: 'containerd://b',
          started: true,
        },
      ],
      initContainerStatuses: [
        {
          name: 'init',
          state: {},
          lastState: {},
          ready: false,
          restartCount: 0,
          image: 'busybox',
          imageID: '',
        },
      ],
    });
  });

  test('fields the server does not decode are refused with 415 when they hold a value', () => {
    const nfs = msg(2, msg(1, str(1, 'data'), msg(2, msg(7, str(1, 'server'), str(2, '/export')))));
    expectApiError(
      () => decodeProtobufObject(kubeProtobuf('v1', 'Pod', nfs)),
      415,
      'UnsupportedMediaType',
      /field "spec\.volumes\[0\]\.nfs" in a protobuf Pod body; send the object as JSON/,
    );
    const user = msg(3, msg(8, str(1, 'app'), msg(13, msg(1, int(1, 1000)))));
    expectApiError(
      () => decodeProtobufObject(kubeProtobuf('v1', 'Pod', user)),
      415,
      'UnsupportedMediaType',
      /field "status\.containerStatuses\[0\]\.user"/,
    );
  });
});

describe('other groups', () => {
  test('policy/v1 Eviction with delete options and preconditions', () => {
    const raw = Buffer.concat([
      objectMeta(1, { name: 'p1', namespace: 'default' }),
      msg(2, int(1, 0), msg(2, str(1, 'uid-p1'), str(2, '')), str(4, 'Foreground'), str(5, 'All')),
    ]);
    assert.deepEqual(decodeProtobufObject(kubeProtobuf('policy/v1', 'Eviction', raw)), {
      kind: 'Eviction',
      apiVersion: 'policy/v1',
      metadata: { name: 'p1', namespace: 'default' },
      deleteOptions: {
        gracePeriodSeconds: 0,
        preconditions: { uid: 'uid-p1', resourceVersion: '' },
        propagationPolicy: 'Foreground',
        dryRun: ['All'],
      },
    });
    const bare = decodeProtobufObject(
      kubeProtobuf('policy/v1beta1', 'Eviction', objectMeta(1, { name: 'p2' })),
    );
    assert.deepEqual(bare, { kind: 'Eviction', apiVersion: 'policy/v1beta1', metadata: { name: 'p2' } });
  });

  test('DeleteOptions decode whatever group version the client put on them', () => {
    const raw = Buffer.concat([int(1, 5), int(3, false), int(6, true)]);
    for (const apiVersion of ['v1', 'meta.k8s.io/v1', 'coordination.k8s.io/v1']) {
      assert.deepEqual(decodeProtobufObject(kubeProtobuf(apiVersion, 'DeleteOptions', raw)), {
        kind: 'DeleteOptions',
        apiVersion,
        gracePeriodSeconds: 5,
        orphanDependents: false,
        ignoreStoreReadErrorWithClusterBreakingPotential: true,
      });
    }
  });

  test('policy/v1 PodDisruptionBudget: int-or-string, selector, status numbers always written', () => {
    const raw = Buffer.concat([
      objectMeta(1, { name: 'pdb1' }),
      msg(
        2,
        msg(3, int(1, 1), int(2, 0), str(3, '25%')),
        msg(2, stringMap(1, { app: 'x' }), msg(2, str(1, 'tier'), str(2, 'Exists'))),
        str(4, 'AlwaysAllow'),
      ),
      msg(3, int(1, 0), int(3, 0), int(4, 0), int(5, 0), int(6, 0)),
    ]);
    assert.deepEqual(decodeProtobufObject(kubeProtobuf('policy/v1', 'PodDisruptionBudget', raw)), {
      kind: 'PodDisruptionBudget',
      apiVersion: 'policy/v1',
      metadata: { name: 'pdb1' },
      spec: {
        selector: { matchLabels: { app: 'x' }, matchExpressions: [{ key: 'tier', operator: 'Exists' }] },
        maxUnavailable: '25%',
        unhealthyPodEvictionPolicy: 'AlwaysAllow',
      },
      status: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 },
    });
  });

  test('PodDisruptionBudget status with disrupted pods and conditions', () => {
    const raw = msg(
      3,
      int(1, 4),
      entry(2, 'p1', time(2, 1700000000)),
      int(3, 1),
      int(4, 3),
      int(5, 2),
      int(6, 3),
      msg(
        7,
        str(1, 'DisruptionAllowed'),
        str(2, 'True'),
        int(3, 4),
        time(4, 1700000000),
        str(5, 'SufficientPods'),
        str(6, ''),
      ),
    );
    assert.deepEqual(decodeProtobufObject(kubeProtobuf('policy/v1', 'PodDisruptionBudget', raw)).status, {
      observedGeneration: 4,
      disruptedPods: { p1: '2023-11-14T22:13:20Z' },
      disruptionsAllowed: 1,
      currentHealthy: 3,
      desiredHealthy: 2,
      expectedPods: 3,
      conditions: [
        {
          type: 'DisruptionAllowed',
          status: 'True',
          observedGeneration: 4,
          lastTransitionTime: '2023-11-14T22:13:20Z',
          reason: 'SufficientPods',
          message: '',
        },
      ],
    });
  });

  test('coordination.k8s.io/v1 Lease: pointers kept when zero, micro-times with six digits', () => {
    const raw = Buffer.concat([
      objectMeta(1, { name: 'nodeherd-controller', namespace: 'kube-system' }),
      msg(
        2,
        str(1, 'host-a_1234'),
        int(2, 15),
        time(3, 1700000000, 5_000),
        time(4, 1700000010, 999_999_999),
        int(5, 0),
      ),
    ]);
    assert.deepEqual(decodeProtobufObject(kubeProtobuf('coordination.k8s.io/v1', 'Lease', raw)), {
      kind: 'Lease',
      apiVersion: 'coordination.k8s.io/v1',
      metadata: { name: 'nodeherd-controller', namespace: 'kube-system' },
      spec: {
        holderIdentity: 'host-a_1234',
        leaseDurationSeconds: 15,
        acquireTime: '2023-11-14T22:13:20.000005Z',
        renewTime: '2023-11-14T22:13:30.999999Z',
        leaseTransitions: 0,
      },
    });
  });

  test('events.k8s.io/v1 Event', () => {
    const raw = Buffer.concat([
      objectMeta(1, { name: 'n1.abc', namespace: 'default' }),
      time(2, 1700000000, 250_000_000),
      msg(3, int(1, 3), time(2, 1700000300)),
      str(4, 'nodeherd.io/agent'),
      str(5, 'agent-n1'),
      str(6, 'Apply'),
      str(7, 'Applied'),
      msg(8, str(1, 'Node'), str(2, ''), str(3, 'n1'), str(4, ''), str(5, 'v1'), str(6, ''), str(7, '')),
      str(10, 'config applied'),
      str(11, 'Normal'),
      msg(12, str(1, ''), str(2, '')),
      msg(13),
      msg(14),
      int(15, 0),
    ]);
    assert.deepEqual(decodeProtobufObject(kubeProtobuf('events.k8s.io/v1', 'Event', raw)), {
      kind: 'Event',
      apiVersion: 'events.k8s.io/v1',
      metadata: { name: 'n1.abc', namespace: 'default' },
      eventTime: '2023-11-14T22:13:20.250000Z',
      series: { count: 3, lastObservedTime: '2023-11-14T22:18:20.000000Z' },
      reportingController: 'nodeherd.io/agent',
      reportingInstance: 'agent-n1',
      action: 'Apply',
      reason: 'Applied',
      regarding: { kind: 'Node', name: 'n1', apiVersion: 'v1' },
      note: 'config applied',
      type: 'Normal',
      deprecatedSource: {},
    });
  });

  test('authentication.k8s.io/v1 TokenRequest', () => {
    const raw = Buffer.concat([
      objectMeta(1),
      msg(
        2,
        str(1, 'https://kubernetes.default.svc'),
        str(1, 'nodeherd'),
        msg(3, str(1, 'Pod'), str(2, 'v1'), str(3, 'p1'), str(4, 'u1')),
        int(4, 3600),
      ),
      msg(3, str(1, ''), msg(2)),
    ]);
    assert.deepEqual(decodeProtobufObject(kubeProtobuf('authentication.k8s.io/v1', 'TokenRequest', raw)), {
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: {},
      spec: {
        audiences: ['https://kubernetes.default.svc', 'nodeherd'],
        expirationSeconds: 3600,
        boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p1', uid: 'u1' },
      },
      status: { token: '' },
    });
  });

  test('the kinds with a decoder are listed', () => {
    const kinds = protobufKinds().map((k) => `${k.apiVersion} ${k.kind}`);
    for (const k of [
      'v1 ConfigMap',
      'v1 Secret',
      'policy/v1 Eviction',
      'coordination.k8s.io/v1 Lease',
      '* DeleteOptions',
    ]) {
      assert.ok(kinds.includes(k), k);
    }
  });
});

describe('protobuf semantics', () => {
  test('a message field sent twice is merged; a scalar sent twice keeps the last value', () => {
    const raw = Buffer.concat([
      msg(1, str(1, 'first'), stringMap(11, { a: '1' })),
      msg(1, str(1, 'second'), stringMap(11, { b: '2' })),
    ]);
    assert.deepEqual(decodeProtobufObject(kubeProtobuf('v1', 'ConfigMap', raw)).metadata, {
      name: 'second',
      labels: { a: '1', b: '2' },
    });
  });

  test('repeated numbers arrive packed or one by one, negative ones in ten-byte varints', () => {
    const raw = msg(2, msg(14, packed(4, [5, 6]), int(4, 7), int(4, -1)));
    const spec = decodeProtobufObject(kubeProtobuf('v1', 'Pod', raw)).spec as Record<string, any>;
    assert.deepEqual(spec.securityContext, { supplementalGroups: [5, 6, 7, -1] });
  });

  test('int32 fields wrap like Go, int64 fields beyond 2^53 are refused', () => {
    const lease = msg(2, int(2, -5), int(5, 2 ** 32 + 3));
    assert.deepEqual(decodeProtobufObject(kubeProtobuf('coordination.k8s.io/v1', 'Lease', lease)).spec, {
      leaseDurationSeconds: -5,
      leaseTransitions: 3,
    });
    expectApiError(
      () => decodeProtobufObject(kubeProtobuf('v1', 'ConfigMap', msg(1, int(7, 2n ** 60n)))),
      400,
      'BadRequest',
      /beyond what JSON numbers can carry.*metadata\.generation/,
    );
  });

  test('unknown field numbers holding zero values are skipped (newer clients write every field)', () => {
    const raw = Buffer.concat([
      objectMeta(1, { name: 'c' }, str(99, ''), msg(98, str(1, ''), int(2, 0))),
      int(77, 0),
      str(78, ''),
    ]);
    assert.deepEqual(decodeProtobufObject(kubeProtobuf('v1', 'ConfigMap', raw)), {
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { name: 'c' },
    });
  });

  test('unknown field numbers holding values are refused with 415, naming where they are', () => {
    expectApiError(
      () => decodeProtobufObject(kubeProtobuf('v1', 'ConfigMap', objectMeta(1, { name: 'c' }, str(99, 'x')))),
      415,
      'UnsupportedMediaType',
      /field number 99 of k8s\.io\.apimachinery\.pkg\.apis\.meta\.v1\.ObjectMeta \(at "metadata"\) in a protobuf ConfigMap body; send the object as JSON instead \(Content-Type: application\/json\)/,
    );
    expectApiError(
      () => decodeProtobufObject(kubeProtobuf('v1', 'Secret', int(9, 1))),
      415,
      'UnsupportedMediaType',
      /field number 9 of k8s\.io\.api\.core\.v1\.Secret in a protobuf Secret body/,
    );
  });

  test('managedFields and the old clusterName are dropped whatever they hold', () => {
    const raw = msg(1, str(1, 'c'), str(15, 'cluster-a'), msg(17, str(1, 'kubectl'), str(2, 'Apply')));
    assert.deepEqual(decodeProtobufObject(kubeProtobuf('v1', 'ConfigMap', raw)).metadata, { name: 'c' });
  });

  test('Quantities: missing string is zero, an empty string is malformed', () => {
    const zero = msg(2, msg(2, str(1, 'c'), msg(8, entry(1, 'cpu', msg(2)))));
    const spec = decodeProtobufObject(kubeProtobuf('v1', 'Pod', zero)).spec as Record<string, any>;
    assert.deepEqual(spec.containers[0].resources, { limits: { cpu: '0' } });
    const empty = msg(2, msg(2, str(1, 'c'), msg(8, entry(1, 'cpu', msg(2, str(1, ''))))));
    expectApiError(
      () => decodeProtobufObject(kubeProtobuf('v1', 'Pod', empty)),
      400,
      'BadRequest',
      /quantity.*spec\.containers\[0\]\.resources\.limits\[cpu\]/,
    );
  });
});

describe('errors', () => {
  test('a kind without a decoder is 415, naming the kind and pointing to JSON', () => {
    expectApiError(
      () => decodeProtobufObject(kubeProtobuf('apps/v1', 'Deployment', objectMeta(1, { name: 'd' }))),
      415,
      'UnsupportedMediaType',
      /cannot decode protobuf bodies of kind "Deployment" \(apiVersion "apps\/v1"\); send the object as JSON instead \(Content-Type: application\/json\)/,
    );
    expectApiError(
      () => decodeProtobufObject(kubeProtobuf('v2', 'ConfigMap', objectMeta(1))),
      415,
      'UnsupportedMediaType',
      /kind "ConfigMap" \(apiVersion "v2"\)/,
    );
  });

  test('bodies without the k8s\\0 prefix are 400', () => {
    for (const body of [
      Buffer.alloc(0),
      Buffer.from('{"kind":"ConfigMap"}'),
      Buffer.from([0x6b, 0x38, 0x73]),
    ]) {
      expectApiError(
        () => decodeProtobufObject(body),
        400,
        'BadRequest',
        /does not appear to be a protobuf message, expected prefix \[107 56 115 0\]/,
      );
    }
  });

  test('an envelope without kind or apiVersion is 400', () => {
    const noKind = Buffer.concat([
      Buffer.from('k8s\0', 'latin1'),
      msg(1, str(1, 'v1')),
      bytes(2, Buffer.alloc(0)),
    ]);
    expectApiError(() => decodeProtobufObject(noKind), 400, 'BadRequest', /'Kind' is missing/);
    const noVersion = Buffer.concat([Buffer.from('k8s\0', 'latin1'), msg(1, str(2, 'ConfigMap'))]);
    expectApiError(() => decodeProtobufObject(noVersion), 400, 'BadRequest', /'apiVersion' is missing/);
  });

  test('a compressed payload is 415', () => {
    const body = kubeProtobuf('v1', 'ConfigMap', objectMeta(1), [str(3, 'gzip')]);
    expectApiError(() => decodeProtobufObject(body), 415, 'UnsupportedMediaType', /content encoding "gzip"/);
  });

  test('malformed envelopes and messages are 400', () => {
    const cut = kubeProtobuf('v1', 'ConfigMap', objectMeta(1, { name: 'c' }));
    expectApiError(
      () => decodeProtobufObject(cut.subarray(0, cut.length - 9)),
      400,
      'BadRequest',
      /unable to decode/,
    );
    const badType = Buffer.concat([Buffer.from('k8s\0', 'latin1'), int(1, 5)]);
    expectApiError(
      () => decodeProtobufObject(badType),
      400,
      'BadRequest',
      /runtime\.Unknown field 1 has the wrong wire type/,
    );
    // metadata.name as a varint instead of a string.
    expectApiError(
      () => decodeProtobufObject(kubeProtobuf('v1', 'ConfigMap', msg(1, int(1, 7)))),
      400,
      'BadRequest',
      /ObjectMeta: field 1 \(name\) has wire type varint, expected length-delimited \(at metadata\.name\)/,
    );
    // A nested message whose bytes are not a message.
    expectApiError(
      () => decodeProtobufObject(kubeProtobuf('v1', 'ConfigMap', bytes(1, Buffer.from([0x0a, 0x05, 0x61])))),
      400,
      'BadRequest',
      /ObjectMeta: length-delimited field runs past the end of the data \(at metadata\)/,
    );
    expectApiError(
      () => decodeProtobufObject(kubeProtobuf('v1', 'ConfigMap', fixed32(4, 1))),
      400,
      'BadRequest',
      /field 4 \(immutable\) has wire type 32-bit, expected varint/,
    );
  });

  test('times outside the years RFC 3339 can write are 400', () => {
    expectApiError(
      () => decodeProtobufObject(kubeProtobuf('v1', 'ConfigMap', msg(1, time(8, 253402300800)))),
      400,
      'BadRequest',
      /outside the years 0001-9999.*metadata\.creationTimestamp/,
    );
  });
});

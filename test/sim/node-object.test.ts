import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  internalAddress,
  kubeMicroTime,
  kubeTime,
  nodeConditions,
  nodeLabels,
  nodeObject,
  READY,
} from '../../src/sim/node-object.ts';

test('labels: kubelet well-known labels, zone, roles, then the caller’s labels win', () => {
  assert.deepEqual(
    nodeLabels({
      name: 'n1',
      zone: 'eu-1a',
      region: 'eu-1',
      roles: ['worker', 'edge'],
      labels: { 'nodeherd.io/pool': 'edge', 'kubernetes.io/arch': 'arm64' },
    }),
    {
      'kubernetes.io/hostname': 'n1',
      'kubernetes.io/os': 'linux',
      'kubernetes.io/arch': 'arm64',
      'nodeherd.io/simulated': 'true',
      'topology.kubernetes.io/zone': 'eu-1a',
      'topology.kubernetes.io/region': 'eu-1',
      'node-role.kubernetes.io/worker': '',
      'node-role.kubernetes.io/edge': '',
      'nodeherd.io/pool': 'edge',
    },
  );
});

test('times are formatted like metav1.Time and metav1.MicroTime', () => {
  const ms = Date.UTC(2026, 0, 2, 3, 4, 5, 67);
  assert.equal(kubeTime(ms), '2026-01-02T03:04:05Z');
  assert.equal(kubeMicroTime(ms), '2026-01-02T03:04:05.067000Z');
});

test('conditions: Ready with its transition time, pressure conditions false, one heartbeat', () => {
  const conditions = nodeConditions(
    { ready: false, reason: 'KubeletNotReady', message: 'PLEG' },
    Date.UTC(2026, 0, 1, 0, 1),
    Date.UTC(2026, 0, 1, 0, 0),
  );
  assert.deepEqual(
    conditions.map((c) => [c.type, c.status, c.reason]),
    [
      ['MemoryPressure', 'False', 'KubeletHasSufficientMemory'],
      ['DiskPressure', 'False', 'KubeletHasNoDiskPressure'],
      ['PIDPressure', 'False', 'KubeletHasSufficientPID'],
      ['Ready', 'False', 'KubeletNotReady'],
    ],
  );
  const ready = conditions.at(-1)!;
  assert.equal(ready.lastHeartbeatTime, '2026-01-01T00:01:00Z');
  assert.equal(ready.lastTransitionTime, '2026-01-01T00:00:00Z');
});

test('the Node object: stable address and ids per name, defaults for capacity, taints in spec', () => {
  const now = Date.UTC(2026, 0, 1);
  const a = nodeObject({ name: 'n1', taints: [{ key: 'edge', effect: 'NoSchedule' }] }, READY, now, now);
  const b = nodeObject({ name: 'n1' }, READY, now, now);
  const status = a.status as {
    addresses: { type: string; address: string }[];
    nodeInfo: Record<string, string>;
  };
  assert.equal(status.addresses[0]!.address, internalAddress('n1'));
  assert.match(status.addresses[0]!.address, /^10\.\d+\.\d+\.\d+$/);
  assert.equal(status.nodeInfo.systemUUID, (b.status as typeof status).nodeInfo.systemUUID);
  assert.notEqual(internalAddress('n1'), internalAddress('n2'));
  assert.deepEqual(a.spec, { taints: [{ key: 'edge', effect: 'NoSchedule' }] });
  assert.deepEqual(b.spec, {});
  assert.equal((a.status as { capacity: Record<string, string> }).capacity.pods, '110');
});

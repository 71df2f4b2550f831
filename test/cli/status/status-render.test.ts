import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NodeConfigPool } from '../../../src/api/types.ts';
import { buildFleetStatus } from '../../../src/cli/status/fleet-status.ts';
import { renderFleetStatus } from '../../../src/cli/status/status-view.ts';
import { visibleLength } from '../../../src/cli/text-table.ts';
import type { Node } from '../../../src/kube/types.ts';

const pool: NodeConfigPool = {
  apiVersion: 'nodeherd.io/v1alpha1',
  kind: 'NodeConfigPool',
  metadata: { name: 'web' },
  spec: {
    nodeSelector: { matchLabels: { role: 'web' } },
    configSelector: {},
    updateStrategy: { type: 'Serial', serial: { slots: 2 } },
  },
  status: {
    targetRevision: 'web-2',
    conditions: [
      {
        type: 'Degraded',
        status: 'True',
        observedGeneration: 1,
        reason: 'NodesFailed',
        message: `1 node failed: ${'x'.repeat(200)}`,
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ],
  },
};

function node(name: string, current: string, labels: Record<string, string> = { role: 'web' }): Node {
  return {
    metadata: {
      name,
      labels,
      annotations: { 'nodeherd.io/current-revision': current, 'nodeherd.io/state': 'Done' },
    },
    status: {
      conditions: [
        { type: 'Ready', status: 'True' },
        { type: 'NodeConfigReady', status: 'True' },
      ],
    },
  };
}

const status = buildFleetStatus(
  {
    pools: [pool, { ...pool, metadata: { name: 'also-web' }, status: {} }],
    revisions: [],
    nodes: [
      node('a', 'web-2'),
      node('b', 'web-1'),
      node('c', 'web-1'),
      node('d', 'web-1'),
      node('e', 'web-1', {}),
    ],
  },
  { server: 'https://127.0.0.1:6443', observedAt: '2026-01-01T00:00:00Z' },
  'web',
);

test('nodes selected by two pools are managed by neither and reported as conflicts', () => {
  assert.equal(status.pools[0]!.nodes, 0);
  assert.deepEqual(status.pools[0]!.conflictingNodes, ['a', 'b', 'c', 'd']);
});

test('progress bars, colours and lines cut to the width', () => {
  const single = buildFleetStatus(
    {
      pools: [pool],
      revisions: [],
      nodes: [node('a', 'web-2'), node('b', 'web-1'), node('c', 'web-1'), node('d', 'web-1')],
    },
    { server: 's', observedAt: 't' },
  );
  const text = renderFleetStatus(single, { color: true, width: 60, bars: true });
  const lines = text.trimEnd().split('\n');
  assert.ok(
    lines.every((l) => visibleLength(l) <= 60),
    lines.filter((l) => visibleLength(l) > 60).join('\n'),
  );
  assert.match(text, /updated {2}\[█{5}░{15}\] 1\/4/);
  assert.match(text, /\u001b\[31mTrue\u001b\[39m/, 'Degraded True in red');
  assert.match(text, /…/, 'the long message is cut');
  const plain = renderFleetStatus(single, { color: false, width: 0, bars: false });
  assert.doesNotMatch(plain, /\u001b|█/);
  assert.match(plain, /pool web {2}Serial \(2 slots\)/);
  assert.match(plain, /x{200}/, 'no width: nothing is cut');
});

test('a pool with maintenance windows shows whether one is open and when the next opens', () => {
  const windowed = (status: NodeConfigPool['status']): NodeConfigPool => ({
    ...pool,
    spec: {
      ...pool.spec,
      updateStrategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maintenanceWindows: [{ schedule: '0 2 1 * *', duration: '4h' }] },
      },
    },
    status,
  });
  const render = (p: NodeConfigPool) =>
    renderFleetStatus(
      buildFleetStatus({ pools: [p], revisions: [], nodes: [] }, { server: 's', observedAt: 't' }),
      { color: false, width: 0, bars: false },
    );
  const closed = render(windowed({ nextWindowOpen: '2030-02-01T02:00:00Z' }));
  assert.match(closed, /window {11}closed; next opens 2030-02-01T02:00:00Z/);
  const open = render(
    windowed({ nextWindowOpen: '2030-02-01T02:00:00Z', windowClosesAt: '2030-01-01T06:00:00Z' }),
  );
  assert.match(open, /window {11}open until 2030-01-01T06:00:00Z; next opens 2030-02-01T02:00:00Z/);
  assert.doesNotMatch(render(pool), /window /, 'no windows, no line');
});

test('a pool in a wave shows the pools it waits for', () => {
  const follower: NodeConfigPool = {
    ...pool,
    spec: {
      ...pool.spec,
      updateStrategy: { type: 'RollingUpdate', wave: { after: ['canary', 'eu'], soakSeconds: 600 } },
    },
  };
  const text = renderFleetStatus(
    buildFleetStatus({ pools: [follower], revisions: [], nodes: [] }, { server: 's', observedAt: 't' }),
    { color: false, width: 0, bars: false },
  );
  assert.match(text, /after {12}canary, eu \(completed, soaked 600s\)/);
});

test('nodes waiting for a reboot are counted, named in the detail, with what the pool does with them', () => {
  const asking = (name: string, extra: Record<string, string> = {}): Node => {
    const n = node(name, 'web-2');
    n.metadata.annotations = { ...n.metadata.annotations, ...extra };
    n.status!.conditions!.push({
      type: 'nodeherd.io/RebootRequired',
      status: 'True',
      reason: 'SentinelFile',
      message: '/var/run/reboot-required exists; packages: linux-image-amd64',
    } as never);
    return n;
  };
  const rebooting: NodeConfigPool = {
    ...pool,
    spec: {
      ...pool.spec,
      updateStrategy: { type: 'RollingUpdate' },
      reboots: { osRequested: { policy: 'Reboot' } },
    },
  } as NodeConfigPool;
  const nodes = [
    asking('a'),
    asking('b', { 'nodeherd.io/reboot-requested': 'x' }),
    asking('c', { 'nodeherd.io/reboot-requested': 'x', 'nodeherd.io/rebooted': 'x' }),
    node('d', 'web-2'),
  ];
  const render = (p: NodeConfigPool, detail: boolean) =>
    renderFleetStatus(
      buildFleetStatus(
        { pools: [p], revisions: [], nodes },
        { server: 's', observedAt: 't' },
        detail ? 'web' : undefined,
      ),
      { color: false, width: 0, bars: false, detail },
    );
  // b was asked and has not answered: it is rebooting, not waiting.
  assert.match(render(rebooting, false), /reboot 2 nodes waiting for a reboot \(rebooted as a rollout\)/);
  const detail = render(rebooting, true);
  assert.match(detail, /reboot a: \/var\/run\/reboot-required exists; packages: linux-image-amd64/);
  assert.match(detail, /reboot c: /);
  assert.doesNotMatch(detail, /reboot b:/);
  assert.match(render(pool, false), /policy Report: reboot them yourself/);
});

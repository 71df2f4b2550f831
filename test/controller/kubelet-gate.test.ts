// The health gate on the kubelet version (issue 35): a node given a revision that pins the kubelet
// package is not healthy until its Node reports that version, whatever else says it is done; it is
// Updating (its deadline running), not Soaking or Updated, and the verdict says why.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { kubeletPin } from '../../src/api/kubelet-version.ts';
import type { RenderedPackage } from '../../src/api/types.ts';
import { NodeHealthTracker } from '../../src/controller/node-health-tracker.ts';
import { snapshotNode } from '../../src/controller/node-snapshot.ts';
import { isHealthy, judgeNode } from '../../src/controller/rollout/node-verdict.ts';
import type { Node } from '../../src/kube/types.ts';

const NOW = Date.parse('2030-01-01T01:00:00Z');
const PINS: Record<string, RenderedPackage[]> = {
  'p-1': [{ name: 'kubelet', version: '1.31.4-1.1', state: 'present' } as RenderedPackage],
  'p-2': [{ name: 'kubelet', version: '1.32.9-1.1', state: 'present' } as RenderedPackage],
};

function node(name: string, revision: string, kubeletVersion: string): Node {
  return {
    metadata: {
      name,
      annotations: {
        'nodeherd.io/desired-revision': revision,
        'nodeherd.io/current-revision': revision,
        'nodeherd.io/state': 'Done',
        'nodeherd.io/message': `revision ${revision} applied`,
        'nodeherd.io/update-started': '2030-01-01T00:59:00Z',
      },
    },
    spec: {},
    status: {
      conditions: [
        { type: 'Ready', status: 'True', lastTransitionTime: '2030-01-01T00:50:00Z' },
        { type: 'NodeConfigReady', status: 'True', lastTransitionTime: '2030-01-01T00:50:00Z' },
      ],
      nodeInfo: { kubeletVersion },
    },
  };
}

const context = (pins = true) => ({
  zoneLabel: 'topology.kubernetes.io/zone',
  target: 'p-2',
  needsDrain: () => false,
  podsReady: () => true,
  drainBlocked: () => undefined,
  ...(pins ? { kubeletPin: (revision: string) => kubeletPin({ packages: PINS[revision] ?? [] }) } : {}),
  health: new NodeHealthTracker(),
  now: NOW,
});

const input = (snapshot: ReturnType<typeof snapshotNode>) => ({
  settings: {
    maxUnavailable: 1,
    minReadySeconds: 3,
    progressDeadlineSeconds: 300,
    failurePolicy: { action: 'Pause' as const, maxFailures: 0 },
  },
  paused: false,
  target: { name: 'p-2', number: 2 },
  episodeStart: Date.parse('2030-01-01T00:58:00Z'),
  nodes: [snapshot],
  now: NOW,
});

test('applied, Ready and Done, but its Node reports the old kubelet: not healthy, Updating, saying why', () => {
  const snapshot = snapshotNode(node('n1', 'p-2', 'v1.31.4'), context());
  assert.equal(snapshot.kubeletWaiting, 'kubelet reports v1.31.4; p-2 pins kubelet 1.32.9-1.1');
  assert.equal(isHealthy(snapshot), false);
  const { verdict, actions } = judgeNode(snapshot, input(snapshot));
  assert.equal(verdict.phase, 'Updating');
  assert.equal(verdict.detail, 'kubelet reports v1.31.4; p-2 pins kubelet 1.32.9-1.1');
  assert.equal(verdict.available, false);
  assert.ok(actions.wakeAt !== undefined, 'its progress deadline runs');
});

test('once the Node reports the pinned version it is healthy and soaks; a pool pinning no kubelet never waits', () => {
  const upgraded = snapshotNode(node('n2', 'p-2', 'v1.32.9'), context());
  assert.equal(upgraded.kubeletWaiting, undefined);
  assert.equal(isHealthy(upgraded), true);
  assert.notEqual(judgeNode(upgraded, input(upgraded)).verdict.phase, 'Updating');

  const unpinned = snapshotNode(node('n3', 'p-2', 'v1.31.4'), context(false));
  assert.equal(isHealthy(unpinned), true, 'no pin: the reported version is not looked at');
});

test('a node on a revision it was not moved from yet is judged against that revision', () => {
  const before = snapshotNode(node('n4', 'p-1', 'v1.31.4'), context());
  assert.equal(before.kubeletWaiting, undefined, 'p-1 pins 1.31.4, which it reports');
  assert.equal(isHealthy(before), true);
});

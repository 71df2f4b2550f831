// `nodeherd status`'s pause lines: who paused the pool (a person, the failure policy) and how it
// resumes, and a failure of a revision that is no longer the target, which is not the target's.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NodeConfigPool } from '../../../src/api/types.ts';
import { buildFleetStatus } from '../../../src/cli/status/fleet-status.ts';
import { renderFleetStatus } from '../../../src/cli/status/status-view.ts';
import type { Node } from '../../../src/kube/types.ts';

const pool: NodeConfigPool = {
  apiVersion: 'nodeherd.io/v1alpha1',
  kind: 'NodeConfigPool',
  metadata: { name: 'web' },
  spec: {
    nodeSelector: { matchLabels: { role: 'web' } },
    configSelector: {},
    updateStrategy: { type: 'RollingUpdate' },
  },
  status: { targetRevision: 'web-2' },
};

function node(name: string, current: string): Node {
  return {
    metadata: {
      name,
      labels: { role: 'web' },
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

test('a paused pool says who paused it and how it resumes; a failure of a reverted revision is not the target’s', () => {
  const failed = (current: string, desired: string): Node => {
    const n = node('f', current);
    n.metadata.annotations = {
      ...n.metadata.annotations,
      'nodeherd.io/state': 'Failed',
      'nodeherd.io/desired-revision': desired,
      'nodeherd.io/message': `revision ${desired} failed`,
    };
    return n;
  };
  const byPolicy = (target: string): NodeConfigPool => ({
    ...pool,
    spec: { ...pool.spec, paused: true, updateStrategy: { type: 'RollingUpdate' } },
    status: {
      targetRevision: target,
      conditions: [
        {
          type: 'Paused',
          status: 'True',
          observedGeneration: 1,
          reason: 'FailurePolicy',
          message: '1 node failed revision web-2 (maxFailures 0): f',
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
    },
  });
  const render = (p: NodeConfigPool, nodes: Node[]) =>
    renderFleetStatus(
      buildFleetStatus(
        { pools: [p], revisions: [], nodes },
        { server: 's', observedAt: '2026-01-01T00:00:00Z' },
      ),
      { color: false, width: 0, bars: false },
    );

  // The failed revision is the target: the node fails it, and the pause says how to go on.
  const failing = render(byPolicy('web-2'), [failed('web-1', 'web-2'), node('g', 'web-1')]);
  assert.match(failing, /paused by the failure policy: 1 node failed revision web-2/);
  assert.match(failing, /fix the cause or revert the change, then: \S.* resume web/);
  assert.match(failing, /failed f: revision web-2 failed/);
  // NODES UPDATED READY APPLYING WAITING FAILED: g waits; f failed the target.
  assert.match(failing, /\n {2}2\s+0\s+0\s+0\s+1\s+1\s/);

  // Reverted: the target is web-1 again, which f runs; its failure was of web-2.
  const reverted = render(byPolicy('web-1'), [failed('web-1', 'web-2'), node('g', 'web-1')]);
  assert.doesNotMatch(reverted, /failed f:/);
  assert.match(reverted, /\n {2}2\s+2\s+1\s+0\s+0\s+0\s/);
  assert.match(reverted, /1 node failed web-2, no longer the target \(f\)/);
  assert.match(reverted, /the change was reverted: \S.* resume web hands every node the target again/);

  // A person's pause, and OTA's, which a pause does not stop.
  const user = { ...pool, spec: { ...pool.spec, paused: true } };
  assert.match(
    render(user, [node('g', 'web-2')]),
    /paused by spec\.paused: nothing starts until \S.* resume web/,
  );
  const ota = { ...user, spec: { ...user.spec, updateStrategy: { type: 'OTA' as const } } };
  assert.match(render(ota, [node('g', 'web-2')]), /paused by spec\.paused, which changes nothing for OTA/);
});

// Table tests of the conditions the Serial, Spread, OnDelete and OTA pools report, and of the
// validation of their strategy settings.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { validateNodeConfigPool } from '../../../src/api/validate-node-config-pool.ts';
import type { StrategyNode } from '../../../src/controller/strategies/strategy-node.ts';
import {
  type StrategyStatusInput,
  strategyReport,
} from '../../../src/controller/strategies/strategy-status.ts';
import { NOW } from '../../support/rollout-fixtures.ts';

function n(name: string, over: Partial<StrategyNode> = {}): StrategyNode {
  return { name, zone: '', desired: 'r2', current: 'r1', state: 'Done', cordonedByUs: false, ...over };
}

function report(over: Partial<StrategyStatusInput>) {
  return strategyReport({
    type: 'Serial',
    target: { name: 'r2', number: 2 },
    nodes: [],
    healthy: () => true,
    revisionNumbers: new Map([
      ['r1', 1],
      ['r2', 2],
    ]),
    paused: false,
    now: NOW,
    ...over,
  });
}

describe('strategy status', () => {
  test('Serial names the slot holders; a failed holder degrades the pool', () => {
    const r = report({
      nodes: [
        n('a', { state: 'Failed', stateRevision: 'r2', message: 'revision r2 failed: probe' }),
        n('b'),
        n('c', { current: 'r2' }),
      ],
      slots: { count: 1, holders: [{ lease: 's-0', node: 'a', state: 'Failed' }] },
    });
    assert.equal(r.progressing.status, 'True');
    assert.match(r.progressing.message, /^1\/3 nodes on r2; 1\/1 slots held: a \(Failed\)$/);
    assert.equal(r.degraded?.reason, 'SlotHolderFailed');
    assert.match(r.degraded?.message ?? '', /a bad change stops after 1 node/);
    assert.deepEqual(r.failed, ['a']);
    assert.equal(r.done, false);
  });

  test('a Failed left from an older revision is not a failure of the target', () => {
    const r = report({ nodes: [n('a', { state: 'Failed', stateRevision: 'r1' })] });
    assert.deepEqual(r.failed, []);
    assert.equal(r.degraded, undefined);
  });

  test('every node on the target and healthy: complete', () => {
    const r = report({ nodes: [n('a', { current: 'r2' })] });
    assert.equal(r.done, true);
    assert.equal(r.progressing.reason, 'RolloutComplete');
    assert.equal(r.complete.status, 'True');
  });

  test('Spread shows the next start; a pause or the failure policy stops it', () => {
    const schedule = new Map([
      ['a', NOW - 1_000],
      ['b', NOW + 60_000],
    ]);
    const running = report({
      type: 'Spread',
      nodes: [n('a', { state: 'Applying', stateRevision: 'r2' }), n('b')],
      schedule,
    });
    assert.match(
      running.progressing.message,
      new RegExp(`next start ${new Date(NOW + 60_000).toISOString()} \\(b\\)`),
    );
    assert.equal(running.applying, 1);
    const paused = report({ type: 'Spread', nodes: [n('b')], schedule, paused: true });
    assert.equal(paused.progressing.reason, 'Paused');
    const stopped = report({
      type: 'Spread',
      nodes: [n('b')],
      schedule,
      paused: true,
      stoppedByFailure: '1 node failed',
    });
    assert.equal(stopped.progressing.reason, 'FailurePolicy');
  });

  test('OnDelete lists the older revisions in use and waits for replacements', () => {
    const r = report({
      type: 'OnDelete',
      nodes: [n('a', { desired: 'r1' }), n('b', { desired: 'r1' }), n('c', { current: 'r2' })],
      upgrade: { requested: [] },
    });
    assert.equal(r.progressing.status, 'False');
    assert.equal(r.progressing.reason, 'WaitingForNodeReplacement');
    assert.match(r.progressing.message, /older revisions in use \(revision 1: 2 nodes\)/);
    assert.equal(r.complete.reason, 'OlderRevisionsInUse');
    const upgrading = report({ type: 'OnDelete', nodes: [n('a')], upgrade: { requested: ['a'] } });
    assert.equal(upgrading.progressing.status, 'True');
    assert.match(upgrading.progressing.message, /upgrading on request: a/);
  });

  test('OTA counts the nodes with an update available', () => {
    const r = report({
      type: 'OTA',
      nodes: [n('a', { desired: 'r1' }), n('b', { desired: 'r1' }), n('c', { current: 'r2' })],
    });
    assert.match(r.progressing.message, /2 nodes have an update available/);
    assert.equal(r.progressing.reason, 'WaitingForNodeOwners');
    assert.equal(r.updateAvailable, 2);
    assert.equal(r.waiting, 0);
    const pulling = report({
      type: 'OTA',
      nodes: [
        n('a', { desired: 'r1', available: 'r2' }),
        n('b', { state: 'Applying', stateRevision: 'r2' }),
        n('c', { current: undefined, desired: undefined }),
      ],
    });
    assert.equal(
      pulling.updateAvailable,
      1,
      'the applying node and the node with no revision are not offers',
    );
    assert.match(pulling.progressing.message, /1 node has an update available; 1 node applying/);
  });

  test('Serial and Spread count the gated nodes that have not started', () => {
    const gate = '{"pool":"p","slots":1,"leaseDurationSeconds":60}';
    const serial = report({
      nodes: [
        n('a', { serialGate: gate, state: 'Waiting', stateRevision: 'r2' }),
        n('b', { serialGate: gate, state: 'Applying', stateRevision: 'r2' }),
        n('c', { serialGate: gate, current: 'r2' }),
        n('d', { desired: 'r1' }),
      ],
    });
    assert.equal(serial.waiting, 1, 'a waits; b applies, c is done, d has no gate');
    const spread = report({
      type: 'Spread',
      schedule: new Map(),
      nodes: [n('a', { notBefore: '2030-01-01T00:00:00Z' }), n('b', { hold: 'paused' })],
    });
    assert.equal(spread.waiting, 2);
    assert.equal(spread.updateAvailable, 0);
  });
});

describe('strategy validation', () => {
  const pool = (updateStrategy: unknown) => ({
    apiVersion: 'nodeherd.io/v1alpha1',
    kind: 'NodeConfigPool',
    metadata: { name: 'p' },
    spec: { nodeSelector: {}, configSelector: {}, updateStrategy },
  });
  const fields = (updateStrategy: unknown) =>
    validateNodeConfigPool(pool(updateStrategy)).map((c) => [c.field, c.type]);

  test('Spread needs spread.windowSeconds, named by its path', () => {
    assert.deepEqual(fields({ type: 'Spread', spread: {} }), [
      ['spec.updateStrategy.spread.windowSeconds', 'FieldValueRequired'],
    ]);
    const [cause] = validateNodeConfigPool(pool({ type: 'Spread' }));
    assert.equal(cause?.field, 'spec.updateStrategy.spread');
    assert.match(cause?.message ?? '', /windowSeconds is required when type is Spread/);
  });

  test('Spread and OnDelete take rollingUpdate (failure policy, upgrade rules), checked as such; Serial and OTA do not', () => {
    assert.deepEqual(
      fields({
        type: 'Spread',
        spread: { windowSeconds: 60 },
        rollingUpdate: { failurePolicy: { action: 'Rollback' } },
      }),
      [],
    );
    assert.deepEqual(fields({ type: 'OnDelete', rollingUpdate: { maxUnavailable: 2 } }), []);
    assert.deepEqual(fields({ type: 'OnDelete', rollingUpdate: { maxUnavailable: 0 } }), [
      ['spec.updateStrategy.rollingUpdate.maxUnavailable', 'FieldValueInvalid'],
    ]);
    assert.deepEqual(fields({ type: 'OTA', rollingUpdate: {} }), [
      ['spec.updateStrategy.rollingUpdate', 'FieldValueForbidden'],
    ]);
  });
});

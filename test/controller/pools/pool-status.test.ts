import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  buildPoolStatus,
  conditionChanges,
  type PoolStatusInput,
} from '../../../src/controller/pools/pool-status.ts';
import { decideRollout } from '../../../src/controller/rollout/decide.ts';
import { input, NOW, node, updated, updating } from '../../support/rollout-fixtures.ts';

function statusInput(over: Partial<PoolStatusInput> = {}): PoolStatusInput {
  const nodes = over.nodes ?? [updated('a'), updating('b'), node('c')];
  const decision =
    over.decision ??
    decideRollout(input([...nodes], { settings: { ...input([]).settings, maxUnavailable: 2 } }));
  return {
    generation: 3,
    previous: undefined,
    strategyType: 'RollingUpdate',
    target: { name: 'r2', number: 2 },
    lastComplete: 'r1',
    history: [],
    decision,
    nodes,
    revisionNumbers: new Map([
      ['r1', 1],
      ['r2', 2],
    ]),
    render: { conflicts: [] },
    paused: false,
    nodeConflicts: new Map(),
    now: NOW,
    ...over,
  };
}

const cond = (status: ReturnType<typeof buildPoolStatus>, type: string) =>
  status.conditions?.find((c) => c.type === type);

describe('pool status', () => {
  test('waves: a held revision is what Progressing says once the current one is done; never Complete', () => {
    const wave = {
      reason: 'WaitingForPools',
      message: 'r3 (revision 3) waits: waiting for 1 pool: canary is paused',
    };
    const done = [updated('a'), updated('b')];
    const idle = buildPoolStatus(statusInput({ nodes: done, decision: decideRollout(input(done)), wave }));
    assert.deepEqual(
      [
        cond(idle, 'Progressing')?.status,
        cond(idle, 'Progressing')?.reason,
        cond(idle, 'Progressing')?.message,
      ],
      ['False', 'WaitingForPools', wave.message],
    );
    assert.equal(cond(idle, 'Complete')?.status, 'False');
    assert.equal(cond(idle, 'Complete')?.reason, 'WaitingForPools');
    // The current revision still rolling out: its progress stays, the waiting revision is noted.
    const busy = buildPoolStatus(statusInput({ wave }));
    assert.equal(cond(busy, 'Progressing')?.status, 'True');
    assert.equal(cond(busy, 'Progressing')?.reason, 'RollingUpdate');
    assert.match(cond(busy, 'Progressing')?.message ?? '', /in flight; next: r3 \(revision 3\) waits/);
    assert.equal(cond(busy, 'Complete')?.reason, 'WaitingForPools');
  });

  test('a pool that selects no node is not Complete: NoNodes, whatever the decision says (issue 33)', () => {
    const status = buildPoolStatus(statusInput({ nodes: [], decision: decideRollout(input([])) }));
    assert.equal(cond(status, 'Complete')?.status, 'False');
    assert.equal(cond(status, 'Complete')?.reason, 'NoNodes');
    assert.match(cond(status, 'Complete')?.message ?? '', /nodeSelector selects no node/);
    assert.equal(cond(status, 'Progressing')?.reason, 'NoNodes');
    assert.equal(cond(status, 'Stalled')?.status, 'True');
    assert.equal(cond(status, 'Ready')?.status, 'False');
    // Its nodes all claimed by another pool too: said so.
    const claimed = buildPoolStatus(
      statusInput({
        nodes: [],
        decision: decideRollout(input([])),
        nodeConflicts: new Map([['n1', ['p', 'q']]]),
      }),
    );
    assert.match(cond(claimed, 'Complete')?.message ?? '', /selected by another pool too/);
    // No revision yet: that comes first.
    const none = buildPoolStatus(statusInput({ nodes: [], target: undefined }));
    assert.equal(cond(none, 'Complete')?.reason, 'NoRevision');
  });

  test('a held rollout is neither progressing nor complete, and says why (issue 33)', () => {
    const done = [updated('a'), updated('b')];
    const held = {
      revision: 'r2',
      allowed: 'r1',
      reason: 'ConfigConflict',
      message: 'rollout of r2 held while the NodeConfigs do not render (ConfigConflict)',
    };
    const status = buildPoolStatus(
      statusInput({
        nodes: done,
        decision: decideRollout(input(done)),
        render: { conflicts: [], problem: { reason: 'ConfigConflict', message: 'a and b write /etc/x' } },
        held,
      }),
    );
    for (const type of ['Progressing', 'Complete']) {
      assert.equal(cond(status, type)?.status, 'False', type);
      assert.equal(cond(status, type)?.reason, 'RenderHeld', type);
      assert.match(cond(status, type)?.message ?? '', /held .*; 2\/2 nodes on r2/, type);
    }
    assert.equal(cond(status, 'Stalled')?.reason, 'ConfigConflict');
    const settling = buildPoolStatus(statusInput({ render: { conflicts: [], settling: 'waiting' } }));
    assert.deepEqual(
      [cond(settling, 'RenderDegraded')?.status, cond(settling, 'RenderDegraded')?.reason],
      ['False', 'Settling'],
    );
  });

  test('maintenance windows: the next opening, and the close while open', () => {
    const windows = [{ schedule: '0 12 * * *', duration: '1h', timeZone: 'Europe/Berlin' }];
    const nodes = [updated('a')];
    const open = buildPoolStatus(
      statusInput({
        nodes,
        decision: decideRollout(
          input(nodes, { settings: { ...input([]).settings, maintenanceWindows: windows } }),
        ),
      }),
    );
    assert.equal(open.windowClosesAt, new Date(NOW + 3_600_000).toISOString().replace('.000', ''));
    assert.equal(open.nextWindowOpen, new Date(NOW + 86_400_000).toISOString().replace('.000', ''));
    assert.equal(buildPoolStatus(statusInput()).nextWindowOpen, undefined, 'no windows, no field');
  });

  test('counts per state and per revision, newest revision first', () => {
    const status = buildPoolStatus(statusInput());
    assert.equal(status.observedGeneration, 3);
    assert.equal(status.targetRevision, 'r2');
    assert.equal(status.currentRevision, 'r1');
    assert.deepEqual(
      {
        nodes: status.nodes,
        updated: status.updated,
        ready: status.ready,
        unavailable: status.unavailable,
        failed: status.failed,
        applying: status.applying,
      },
      { nodes: 3, updated: 1, ready: 1, unavailable: 2, failed: 0, applying: 2 },
    );
    assert.deepEqual(status.revisions, [
      { name: 'r2', revision: 2, nodes: 1, ready: 1, failed: 0 },
      { name: 'r1', revision: 1, nodes: 2, ready: 1, failed: 0 },
    ]);
    assert.equal(cond(status, 'Progressing')?.status, 'True');
    assert.equal(cond(status, 'Complete')?.status, 'False');
    for (const c of status.conditions ?? []) assert.equal(c.observedGeneration, 3);
  });

  test('drifted nodes (ConfigDrift True) are counted, and the count is omitted when none', () => {
    assert.equal(buildPoolStatus(statusInput()).drifted, undefined);
    const nodes = [{ ...updated('a'), drifted: true }, updated('b'), { ...node('c'), drifted: true }];
    assert.equal(buildPoolStatus(statusInput({ nodes })).drifted, 2);
  });

  test('complete, failed, paused by the failure policy, rolled back, render problems, node conflicts', () => {
    const complete = buildPoolStatus(
      statusInput({
        nodes: [updated('a'), updated('b')],
        decision: decideRollout(input([updated('a'), updated('b')])),
      }),
    );
    assert.equal(cond(complete, 'Complete')?.reason, 'RolloutComplete');
    assert.equal(cond(complete, 'Progressing')?.status, 'False');

    const failing = [updating('a', 5_000, { agentState: 'Failed', agentMessage: 'boom' }), node('b')];
    const paused = buildPoolStatus(
      statusInput({
        nodes: failing,
        decision: decideRollout(input(failing, { paused: true })),
        paused: true,
        pausedByFailure: '1 node failed',
      }),
    );
    assert.equal(cond(paused, 'Paused')?.reason, 'FailurePolicy');
    assert.equal(cond(paused, 'Degraded')?.reason, 'NodesFailed');
    assert.match(cond(paused, 'Degraded')?.message ?? '', /a: agent failed: boom/);
    assert.equal(paused.failed, 1);
    assert.equal(paused.revisions?.find((r) => r.name === 'r2')?.failed, 1);

    const rolledBack = buildPoolStatus(
      statusInput({
        pin: { to: 'r1', from: 'r2' },
        rollback: { reason: 'FailurePolicy', message: 'two failed' },
      }),
    );
    assert.equal(cond(rolledBack, 'RolledBack')?.status, 'True');

    const conflicting = buildPoolStatus(
      statusInput({
        render: {
          problem: { reason: 'ConfigConflict', message: 'file /x: content differs' },
          conflicts: [
            {
              kind: 'file',
              key: '/x',
              field: 'content',
              sources: ['a', 'b'],
              message: 'file /x: content differs',
            },
          ],
        },
        nodeConflicts: new Map([['n9', ['p', 'q']]]),
      }),
    );
    assert.equal(cond(conflicting, 'RenderDegraded')?.reason, 'ConfigConflict');
    assert.equal(conflicting.conflicts?.length, 1);
    assert.equal(cond(conflicting, 'Degraded')?.reason, 'NodeInMultiplePools');
    assert.match(cond(conflicting, 'Degraded')?.message ?? '', /n9 \(p, q\)/);
  });

  test('failed nodes that hold the whole budget stall the rollout', () => {
    const nodes = [updating('a', 5_000, { agentState: 'Failed' }), node('b')];
    const decision = decideRollout(
      input(nodes, {
        settings: { ...input([]).settings, failurePolicy: { action: 'Pause', maxFailures: 1 } },
      }),
    );
    const status = buildPoolStatus(statusInput({ nodes, decision }));
    assert.equal(cond(status, 'Progressing')?.status, 'False');
    assert.equal(cond(status, 'Progressing')?.reason, 'Stalled');
    assert.match(cond(status, 'Progressing')?.message ?? '', /1 failed node \(a\) holds the budget/);
  });

  test('pools of another strategy get counts and the conditions of their strategy report', () => {
    const status = buildPoolStatus(
      statusInput({
        strategyType: 'Serial',
        decision: undefined,
        strategy: {
          progressing: {
            status: 'True',
            reason: 'Serial',
            message: '1/3 nodes on r2; 1/1 slots held: b (Applying)',
          },
          complete: { status: 'False', reason: 'RolloutInProgress', message: '1/3 nodes on r2' },
          degraded: { reason: 'SlotHolderFailed', message: 'b failed' },
          failed: ['b'],
          applying: 0,
          updateAvailable: 0,
          waiting: 1,
          done: false,
        },
      }),
    );
    assert.equal(cond(status, 'Progressing')?.reason, 'Serial');
    assert.equal(cond(status, 'Degraded')?.reason, 'SlotHolderFailed');
    assert.equal(status.failed, 1);
    assert.equal(status.nodes, 3);
    assert.equal(status.waiting, 1);
    assert.equal(status.updateAvailable, 0);
  });

  test('an unchanged world gives the same status (no write), and transitions keep their time', () => {
    const first = buildPoolStatus(statusInput());
    const again = buildPoolStatus(statusInput({ previous: first, now: NOW + 60_000 }));
    assert.deepEqual(again, first);
    const later = buildPoolStatus(
      statusInput({
        previous: first,
        now: NOW + 60_000,
        nodes: [updated('a'), updated('b')],
        decision: decideRollout(input([updated('a'), updated('b')])),
      }),
    );
    assert.equal(cond(later, 'Paused')?.lastTransitionTime, cond(first, 'Paused')?.lastTransitionTime);
    assert.notEqual(cond(later, 'Complete')?.lastTransitionTime, cond(first, 'Complete')?.lastTransitionTime);
    assert.deepEqual(
      conditionChanges(first.conditions as never, later.conditions as never).map((c) => [
        c.type,
        c.status,
        c.reason,
        c.warning,
      ]),
      [
        ['Progressing', 'False', 'RolloutComplete', false],
        ['Complete', 'True', 'RolloutComplete', false],
      ],
    );
  });
});

// Pre-staging in the pure rollout decision (issue 35.4): which nodes are told to download the target's
// packages (RolloutDecision.prestage), that a node whose turn comes starts only once its download
// succeeded, and that a failed download fails it before anything is disrupted; docs/operations.md,
// "Pre-staging packages".

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PrestageReport } from '../../../src/api/node-protocol.ts';
import { decideRollout } from '../../../src/controller/rollout/decide.ts';
import type { NodeSnapshot, RolloutInput } from '../../../src/controller/rollout/types.ts';
import { input, NOW, node, settings, updating } from '../../support/rollout-fixtures.ts';

/** A node on r1 whose plan to r2 installs packages. */
const pending = (name: string, over: Partial<NodeSnapshot> = {}) =>
  node(name, { needsDownload: true, ...over });
const answered = (revision: string, outcome: PrestageReport['outcome'], message?: string) => ({
  prestageRevision: revision,
  prestaged: { revision, outcome, ...(message ? { message } : {}) },
});
const prestaging = (nodes: NodeSnapshot[], over: Partial<RolloutInput> = {}): RolloutInput =>
  input(nodes, { prestage: { maxConcurrent: 2, timeoutSeconds: 900 }, ...over });
const phases = (d: ReturnType<typeof decideRollout>) =>
  Object.fromEntries(d.verdicts.map((v) => [v.name, v.phase]));

describe('pre-staging', () => {
  test('without spec.prestage nothing is asked and the first node starts at once', () => {
    const d = decideRollout(input([pending('a'), pending('b')]));
    assert.deepEqual(d.prestage, []);
    assert.deepEqual(
      d.starts.map((s) => s.node),
      ['a'],
    );
  });

  test('the node whose turn it is downloads first: its place is kept, nothing starts, the next in line download too', () => {
    const d = decideRollout(prestaging([pending('a'), pending('b'), pending('c'), pending('d')]));
    assert.deepEqual(d.starts, [], 'a starts only once its packages are downloaded');
    assert.equal(d.blocked?.reason, 'Prestaging');
    assert.match(d.blocked?.message ?? '', /waiting for a to download r2's packages/);
    // a (its turn) and b: maxConcurrent 2 downloading at once; c and d wait for a place.
    assert.deepEqual(d.prestage, ['a', 'b']);
    assert.equal(d.budget.unavailable, 0, 'a downloading node is not unavailable');
  });

  test('once downloaded the node starts, its ask goes, and the next downloads take the places', () => {
    const d = decideRollout(
      prestaging([pending('a', answered('r2', 'Downloaded')), pending('b'), pending('c'), pending('d')]),
    );
    assert.deepEqual(
      d.starts.map((s) => s.node),
      ['a'],
    );
    assert.deepEqual(d.prestage, ['b', 'c'], 'a started: no ask; b and c download (2 at once)');
  });

  test('nodes that answered keep their ask until their turn and do not count against maxConcurrent', () => {
    const d = decideRollout(
      prestaging(
        [
          updating('a'),
          pending('b', answered('r2', 'Downloaded')),
          pending('c', answered('r2', 'Downloaded')),
          pending('d'),
          pending('e'),
          pending('f'),
        ],
        { settings: settings({ maxUnavailable: 2 }) },
      ),
    );
    assert.deepEqual(
      d.starts.map((s) => s.node),
      ['b'],
    );
    // Looking 2 (budget) + 2 (maxConcurrent) ahead: c answered, d and e download.
    assert.deepEqual(d.prestage, ['c', 'd', 'e']);
  });

  test('a node that needs no download is neither asked nor held', () => {
    const d = decideRollout(prestaging([node('a'), pending('b')]));
    assert.deepEqual(
      d.starts.map((s) => s.node),
      ['a'],
    );
    assert.deepEqual(d.prestage, ['b']);
  });

  test('an answer for another revision is not this one: the node is asked again and waits', () => {
    const d = decideRollout(prestaging([pending('a', answered('r0', 'Downloaded'))]));
    assert.deepEqual(d.starts, []);
    assert.deepEqual(d.prestage, ['a']);
  });

  test('a failed download fails the canary before its turn: nothing is cordoned or drained, the policy acts', () => {
    const bad = pending('a', {
      needsDrain: true,
      ...answered('r2', 'Failed', "E: Version '9.9' for 'kubelet' was not found"),
    });
    const d = decideRollout(
      prestaging([bad, pending('b'), pending('c')], {
        settings: settings({ canary: { nodes: 1 } }),
      }),
    );
    assert.equal(phases(d).a, 'Failed');
    const failure = d.failures.find((f) => f.name === 'a');
    assert.equal(failure?.failure?.reason, 'DownloadFailed');
    assert.match(failure?.failure?.message ?? '', /Version '9\.9' for 'kubelet' was not found/);
    assert.equal(failure?.touched, true, 'a failure of this rollout');
    assert.equal(failure?.available, true, 'nothing was disrupted');
    assert.deepEqual(d.starts, [], 'no node is started, so none is drained');
    assert.deepEqual(d.drain, []);
    assert.equal(d.failureAction?.action, 'Pause', 'the failure policy (Pause) acts on the canary');
    assert.deepEqual(d.prestage, [], 'the failure policy acts: the asks go');
  });

  test('with Rollback a failed download rolls the pool back', () => {
    const d = decideRollout(
      prestaging([pending('a', answered('r2', 'Failed', 'E: Unable to locate package x')), pending('b')], {
        settings: settings({ failurePolicy: { action: 'Rollback', maxFailures: 0 } }),
      }),
    );
    assert.equal(d.failureAction?.action, 'Rollback');
    assert.match(d.failureAction?.message ?? '', /download of r2's packages failed before its turn/);
  });

  test('a failure left from an ask that went (a pause) is no failure', () => {
    const stale = pending('a', { prestaged: { revision: 'r2', outcome: 'Failed', message: 'old' } });
    const d = decideRollout(prestaging([stale]));
    assert.equal(phases(d).a, 'Pending');
    assert.deepEqual(d.prestage, ['a'], 'asked again');
  });

  test('paused: every ask goes', () => {
    const d = decideRollout(
      prestaging([pending('a', answered('r2', 'Downloaded')), pending('b')], { paused: true }),
    );
    assert.deepEqual(d.prestage, []);
    assert.deepEqual(d.starts, []);
  });

  test('during the canary only the canary downloads', () => {
    const d = decideRollout(
      prestaging([pending('a'), pending('b'), pending('c')], {
        settings: settings({ canary: { nodes: 1 }, maxUnavailable: 3 }),
      }),
    );
    assert.deepEqual(d.prestage, ['a']);
  });

  test('outside the maintenance window the next in line download ahead of it', () => {
    const d = decideRollout(
      prestaging([pending('a'), pending('b'), pending('c')], {
        settings: settings({
          maintenanceWindows: [{ schedule: '0 3 * * *', duration: '1h', timeZone: 'UTC' }],
        }),
      }),
    );
    assert.equal(d.blocked?.reason, 'OutsideMaintenanceWindow');
    assert.deepEqual(d.prestage, ['a', 'b']);
  });

  test('an unavailable node (free to start) is not held for its download', () => {
    const down = pending('a', { agentState: 'Failed', agentMessage: 'revision r1 failed: x' });
    const d = decideRollout(prestaging([down, pending('b')]));
    assert.deepEqual(
      d.starts.map((s) => [s.node, s.free]),
      [['a', true]],
    );
  });
});

describe('pre-staging: an ask left unanswered (spec.prestage.timeoutSeconds)', () => {
  /** Asked `ago` ms before NOW (the fixture's clock) to pre-stage r2, and no answer for it. */
  const asked = (ago: number, over: Partial<NodeSnapshot> = {}) => ({
    prestageRevision: 'r2',
    prestageAskedAt: NOW - ago,
    ...over,
  });
  const timed = (nodes: NodeSnapshot[], over: Partial<RolloutInput> = {}) =>
    input(nodes, { prestage: { maxConcurrent: 2, timeoutSeconds: 60 }, ...over });

  test('past the timeout the node starts anyway, saying so; the next in line is asked', () => {
    const d = decideRollout(
      timed([pending('a', { needsDrain: true, ...asked(60_000) }), pending('b'), pending('c')]),
    );
    assert.deepEqual(
      d.starts.map((s) => [s.node, s.drain, s.prestageTimedOut]),
      [['a', true, { askedAt: NOW - 60_000, timeoutSeconds: 60 }]],
    );
    assert.equal(d.blocked?.reason, 'BudgetExhausted', 'a takes the budget: nothing waits for a download');
    assert.deepEqual(d.prestage, ['b', 'c'], 'a started: its ask goes; b and c download');
  });

  test('within the timeout it waits, and the pool is looked at again when the timeout ends', () => {
    const d = decideRollout(timed([pending('a', asked(59_000)), pending('b')]));
    assert.deepEqual(d.starts, []);
    assert.equal(d.blocked?.reason, 'Prestaging');
    assert.match(d.blocked?.message ?? '', /within 60s of its ask \(spec\.prestage\.timeoutSeconds\)/);
    assert.equal(d.requeueAfterMs, 1_000);
  });

  test('an ask with no time yet (written by an older controller) waits: its time comes with the next write', () => {
    const d = decideRollout(timed([pending('a', { prestageRevision: 'r2' })]));
    assert.deepEqual(d.starts, []);
    assert.equal(d.blocked?.reason, 'Prestaging');
  });

  test('an answer Failed stays a failure past the timeout: nothing starts, the policy acts', () => {
    const bad = pending('a', {
      needsDrain: true,
      ...asked(3_600_000, {
        prestaged: { revision: 'r2', outcome: 'Failed', message: 'E: no such version' },
      }),
    });
    const d = decideRollout(timed([bad, pending('b')]));
    assert.equal(phases(d).a, 'Failed');
    assert.equal(d.failures[0]?.failure?.reason, 'DownloadFailed');
    assert.deepEqual(d.starts, []);
    assert.equal(d.failureAction?.action, 'Pause');
  });

  test('an answer for another revision is none for this ask: past the timeout the node starts', () => {
    const d = decideRollout(
      timed([pending('a', asked(61_000, { prestaged: { revision: 'r1', outcome: 'Downloaded' } }))]),
    );
    assert.deepEqual(
      d.starts.map((s) => s.node),
      ['a'],
    );
    assert.ok(d.starts[0]?.prestageTimedOut);
  });

  test('an ask for an older target does not time out this one: the node waits for its new ask', () => {
    const d = decideRollout(timed([pending('a', asked(3_600_000, { prestageRevision: 'r1' }))]));
    assert.deepEqual(d.starts, []);
    assert.deepEqual(d.prestage, ['a'], 'asked again, for r2 (the marks give it a new time)');
  });
});

// RollingUpdate's fast path, on Node objects and the real decision, snapshot and verdict code: a place
// freed goes to the next waiting node on the Node event, never beyond maxUnavailable, and only while
// the decision it goes on from still stands.

import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import pino from 'pino';
import { defaultedPoolSpec } from '../../../../src/api/pool-defaults.ts';
import type { NodeConfigPoolSpec } from '../../../../src/api/types.ts';
import { UPDATE_STARTED_ANNOTATION } from '../../../../src/controller/annotations.ts';
import type { ControllerContext } from '../../../../src/controller/controller-context.ts';
import type { DecisionExecutor } from '../../../../src/controller/decision-executor.ts';
import { ControllerMetrics } from '../../../../src/controller/metrics.ts';
import { NodeHealthTracker } from '../../../../src/controller/node-health-tracker.ts';
import { snapshotNode } from '../../../../src/controller/node-snapshot.ts';
import { snapshotContext } from '../../../../src/controller/pools/pool-observer.ts';
import { decideRollout } from '../../../../src/controller/rollout/decide.ts';
import type { RevisionRef, RolloutInput } from '../../../../src/controller/rollout/types.ts';
import { rollingSettings, rollingUpdateOf } from '../../../../src/controller/strategies/rolling-settings.ts';
import {
  type HandoffBasis,
  RollingUpdateHandoff,
} from '../../../../src/controller/strategies/rolling-update/rolling-update-handoff.ts';
import type { Node } from '../../../../src/kube/types.ts';

const TARGET: RevisionRef = { name: 'p-2', number: 2 };
const START = Date.parse('2030-01-01T01:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

interface NodeShape {
  desired: string;
  current: string;
  state: string;
  ready?: boolean;
  startedAt?: number;
}

function nodeObject(name: string, s: NodeShape): Node {
  return {
    metadata: {
      name,
      creationTimestamp: '2030-01-01T00:00:00Z',
      labels: { pool: 'p' },
      annotations: {
        'nodeherd.io/desired-revision': s.desired,
        'nodeherd.io/current-revision': s.current,
        'nodeherd.io/state': s.state,
        ...(s.startedAt !== undefined ? { [UPDATE_STARTED_ANNOTATION]: iso(s.startedAt) } : {}),
      },
    },
    spec: {},
    status: {
      conditions: [
        {
          type: 'Ready',
          status: s.ready === false ? 'False' : 'True',
          lastTransitionTime: '2030-01-01T00:10:00Z',
        },
        { type: 'NodeConfigReady', status: 'True', lastTransitionTime: '2030-01-01T00:10:00Z' },
      ],
    },
  };
}

const onOld = (): NodeShape => ({ desired: 'p-1', current: 'p-1', state: 'Done' });
const applying = (): NodeShape => ({
  desired: 'p-2',
  current: 'p-1',
  state: 'Applying',
  startedAt: START - 1000,
});
const done = (): NodeShape => ({ desired: 'p-2', current: 'p-2', state: 'Done', startedAt: START - 1000 });

class Fleet {
  readonly nodes = new Map<string, Node>();
  readonly starts: string[] = [];
  readonly metrics = new ControllerMetrics();
  generation = 1;
  needsDrain = false;
  now = START;
  readonly health = new NodeHealthTracker();
  /** Answers of start() not given yet (a start in flight). */
  hold: (() => void)[] = [];
  holding = false;
  readonly handoff: RollingUpdateHandoff;
  readonly spec = defaultedPoolSpec({
    nodeSelector: { matchLabels: { pool: 'p' } },
    configSelector: { matchLabels: { pool: 'p' } },
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } },
  } as NodeConfigPoolSpec);

  constructor(shapes: Record<string, NodeShape>) {
    for (const [name, shape] of Object.entries(shapes)) this.nodes.set(name, nodeObject(name, shape));
    const nodes = this.nodes;
    const ctx = {
      informers: {
        nodes: { get: (name: string) => nodes.get(name), list: () => [...nodes.values()] },
        pools: {
          get: (name: string) =>
            name === 'p' ? { metadata: { name: 'p', generation: this.generation }, spec: {} } : undefined,
        },
      },
      health: this.health,
      planner: { needsDrain: () => this.needsDrain },
      drainer: { blocked: () => undefined },
      pods: { allReady: () => true },
      metrics: this.metrics,
      logger: pino({ level: 'silent' }),
      now: () => this.now,
    } as unknown as ControllerContext;
    const executor = {
      start: async (_pool: string, target: RevisionRef, name: string, at: number) => {
        this.starts.push(name);
        if (this.holding) await new Promise<void>((resolve) => this.hold.push(resolve));
        this.set(name, { desired: target.name, current: 'p-1', state: 'Done', startedAt: at });
      },
    } as unknown as DecisionExecutor;
    this.handoff = new RollingUpdateHandoff(ctx, executor);
  }

  input(over: Partial<RolloutInput> = {}): RolloutInput {
    const context = snapshotContext(
      {
        planner: { needsDrain: () => this.needsDrain },
        drainer: { blocked: () => undefined },
        pods: {},
        health: this.health,
      } as unknown as ControllerContext,
      this.spec,
      TARGET.name,
      this.now,
    );
    return {
      settings: rollingSettings(rollingUpdateOf(this.spec)),
      paused: false,
      target: TARGET,
      episodeStart: START - 60_000,
      nodes: [...this.nodes.values()].map((n) => snapshotNode(n, context)),
      now: this.now,
      ...over,
    };
  }

  /** A reconcile's decision, remembered as the reconciler does. */
  decide(over: Partial<RolloutInput> = {}, basis: Partial<HandoffBasis> = {}) {
    const input = this.input(over);
    const decision = decideRollout(input);
    this.handoff.remember({
      pool: 'p',
      generation: this.generation,
      annotations: undefined,
      spec: this.spec,
      input,
      decision,
      observed: [...this.nodes.values()],
      eligible: true,
      ...basis,
    });
    return decision;
  }

  /** A Node changes (in the cache, then the informer's handler). */
  set(name: string, shape: NodeShape): void {
    const old = this.nodes.get(name);
    const node = nodeObject(name, shape);
    this.nodes.set(name, node);
    this.health.noteChange(name, this.now, shape.ready !== false, true);
    this.handoff.onNode('update', node, old);
  }
}

describe('RollingUpdate fast path', () => {
  let fleet: Fleet;
  beforeEach(() => {
    fleet = new Fleet({ a: applying(), b: applying(), c: onOld(), d: onOld(), e: onOld() });
  });

  test('a node in flight that becomes healthy frees its place: the next waiting node starts on that event', () => {
    const decision = fleet.decide();
    assert.equal(decision.blocked?.reason, 'BudgetExhausted');
    assert.deepEqual(fleet.starts, []);
    fleet.set('a', done());
    assert.deepEqual(fleet.starts, ['c']);
    fleet.set('b', done());
    assert.deepEqual(fleet.starts, ['c', 'd']);
    // c is counted (its start), and a second event of a healthy node frees nothing more.
    fleet.set('a', done());
    assert.deepEqual(fleet.starts, ['c', 'd']);
  });

  test('a node turning unavailable on its own takes the place a finishing one frees', () => {
    // b was updated before this rollout began: unhealthy now, it is counted but is no failure of it.
    const earlier = { ...done(), startedAt: START - 120_000 };
    fleet = new Fleet({ a: applying(), b: earlier, c: done(), d: onOld(), e: onOld() });
    // One place free: the decision starts d itself (its start is in its verdicts); then the budget is full.
    const decision = fleet.decide();
    assert.deepEqual(
      decision.starts.map((s) => s.node),
      ['d'],
    );
    fleet.set('d', { ...applying(), startedAt: fleet.now });
    fleet.set('b', { ...earlier, state: 'Verifying' }); // unavailable, counted
    fleet.set('a', done());
    assert.deepEqual(fleet.starts, [], 'a freed a place, but b took it');
    fleet.set('d', done());
    assert.deepEqual(fleet.starts, ['e']);
  });

  test('no start beyond the budget, whichever order events arrive in', () => {
    fleet = new Fleet({
      a: applying(),
      b: applying(),
      c: onOld(),
      d: onOld(),
      e: onOld(),
      f: onOld(),
    });
    fleet.decide();
    for (const name of ['a', 'b']) fleet.set(name, done());
    assert.deepEqual(fleet.starts, ['c', 'd']);
    for (const name of ['a', 'b', 'a']) fleet.set(name, done());
    assert.deepEqual(fleet.starts, ['c', 'd'], 'c and d hold both places');
  });

  test('nothing starts while a reconcile decides, and the reconcile waits for the starts in flight', async () => {
    fleet.decide();
    fleet.holding = true;
    fleet.set('a', done());
    assert.deepEqual(fleet.starts, ['c']);
    let begun = false;
    const begin = fleet.handoff.begin('p').then(() => {
      begun = true;
    });
    await new Promise((r) => setImmediate(r));
    assert.equal(begun, false, 'the start of c is not answered yet');
    fleet.set('b', done());
    assert.deepEqual(fleet.starts, ['c'], 'b freed a place while the pool was being reconciled');
    for (const resolve of fleet.hold) resolve();
    await begin;
    assert.equal(begun, true);
    fleet.handoff.end('p');
    fleet.set('b', done());
    assert.deepEqual(fleet.starts, ['c'], 'the reconcile forgot the old decision and made none yet');
  });

  test('a decision blocked by anything but the overall budget is not carried on', () => {
    const blocked: [string, Partial<RolloutInput>][] = [
      ['paused', { paused: true }],
      ['a health gate', { gate: { verdict: 'hold', reason: 'AlertFiring', message: 'x' } }],
      ['a zone budget', { settings: { ...fleet.input().settings, maxUnavailablePerZone: 1 } }],
    ];
    for (const [what, over] of blocked) {
      fleet = new Fleet({ a: applying(), b: applying(), c: onOld(), d: onOld() });
      fleet.decide(over);
      fleet.set('a', done());
      assert.deepEqual(fleet.starts, [], what);
    }
    fleet = new Fleet({ a: applying(), b: applying(), c: onOld(), d: onOld() });
    fleet.decide({}, { eligible: false });
    fleet.set('a', done());
    assert.deepEqual(fleet.starts, [], 'a reconcile that says no (a wave, a policy action, failed writes)');
  });

  test("the pool's spec changing (a pause) or the membership changing ends the fast path", () => {
    fleet.decide();
    fleet.generation = 2;
    fleet.set('a', done());
    assert.deepEqual(fleet.starts, []);

    fleet = new Fleet({ a: applying(), b: applying(), c: onOld(), d: onOld() });
    fleet.decide();
    fleet.handoff.onPool('p', 2, undefined);
    fleet.set('a', done());
    assert.deepEqual(fleet.starts, [], 'a pool event with a new generation');

    fleet = new Fleet({ a: applying(), b: applying(), c: onOld(), d: onOld() });
    fleet.decide();
    fleet.handoff.onPool('p', 1, { 'nodeherd.io/rollback-to': 'p-1' });
    fleet.set('a', done());
    assert.deepEqual(fleet.starts, [], 'a pool event with new annotations (a rollback pin)');

    fleet = new Fleet({ a: applying(), b: applying(), c: onOld(), d: onOld() });
    fleet.decide();
    const joining = nodeObject('z', onOld());
    fleet.handoff.onNode('add', joining, undefined);
    fleet.set('a', done());
    assert.deepEqual(fleet.starts, [], 'a node joined');

    fleet = new Fleet({ a: applying(), b: applying(), c: onOld(), d: onOld() });
    fleet.decide();
    fleet.handoff.onPool('p', 1, undefined); // its own status write: the decision stands
    fleet.set('a', done());
    assert.deepEqual(fleet.starts, ['c']);
  });

  test('failures beyond maxFailures leave the failure policy to the reconcile', () => {
    // maxFailures defaults to 0: one touched node failing is one too many.
    fleet.decide();
    fleet.set('b', { ...applying(), state: 'Failed' });
    fleet.set('a', done());
    assert.deepEqual(fleet.starts, []);
  });

  test('a next node that needs a drain is left to the reconcile', () => {
    fleet.decide();
    fleet.needsDrain = true;
    fleet.set('a', done());
    assert.deepEqual(fleet.starts, []);
  });

  test('nodes that changed while the reconcile decided are judged again when it remembers', () => {
    const input = fleet.input();
    const observed = [...fleet.nodes.values()];
    fleet.handoff.begin('p');
    fleet.set('a', done()); // during the reconcile: not acted on
    assert.deepEqual(fleet.starts, []);
    fleet.handoff.remember({
      pool: 'p',
      generation: 1,
      annotations: undefined,
      spec: fleet.spec,
      input,
      decision: decideRollout(input),
      observed,
      eligible: true,
    });
    assert.deepEqual(fleet.starts, ['c'], 'a was counted by the decision, and is healthy now');
    fleet.handoff.end('p');
  });

  test('each start is counted in nodeherd_rollout_event_starts_total', async () => {
    fleet.decide();
    fleet.set('a', done());
    fleet.set('b', done());
    const text = await fleet.metrics.registry.metrics();
    assert.match(text, /^nodeherd_rollout_event_starts_total\{pool="p"\} 2$/m);
  });
});

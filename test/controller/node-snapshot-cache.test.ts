// The per-Node-object caches of a pool reconcile (issue 17): a node's snapshot and the pools selecting
// it are kept while nothing they were made from changed. A kept one must be the one a fresh reading
// would make: the random sequences below run the same events through a pipeline that keeps its Node
// objects (so the caches answer) and one that reads fresh copies every time (so they never do), and
// compare the snapshots and the rollout decisions after every step; the pool members are compared
// with poolMembership()'s after random label and selector changes.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ControllerContext } from '../../src/controller/controller-context.ts';
import { NodeHealthTracker } from '../../src/controller/node-health-tracker.ts';
import { agentReport, type SnapshotContext, snapshotNode } from '../../src/controller/node-snapshot.ts';
import { type PoolSelector, poolMembership } from '../../src/controller/pool-membership.ts';
import { poolMembers } from '../../src/controller/pools/pool-observer.ts';
import { decideRollout } from '../../src/controller/rollout/decide.ts';
import type { NodeSnapshot, RollingUpdateSettings } from '../../src/controller/rollout/types.ts';
import type { Node } from '../../src/kube/types.ts';

const SEED = Number(process.env.NODEHERD_SEED ?? Math.floor(Math.random() * 2 ** 31));

/** mulberry32, as the randomised rollouts use it. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const T0 = Date.parse('2030-01-01T01:00:00Z');

function nodeObject(name: string, annotations: Record<string, string>, ready = true): Node {
  return {
    metadata: {
      name,
      creationTimestamp: '2030-01-01T00:00:00Z',
      labels: { zone: 'z1', zone2: 'a' },
      annotations,
    },
    spec: {},
    status: {
      conditions: [
        { type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: '2030-01-01T00:10:00Z' },
        { type: 'NodeConfigReady', status: 'True', lastTransitionTime: '2030-01-01T00:10:05Z' },
      ],
    },
  };
}

function context(health: NodeHealthTracker, over: Partial<SnapshotContext> = {}): SnapshotContext {
  return {
    zoneLabel: 'zone',
    target: 'p-2',
    needsDrain: (from, to) => from === 'p-1' && to === 'p-2',
    podsReady: () => true,
    drainBlocked: () => undefined,
    health,
    now: T0,
    ...over,
  };
}

const done = (rev: string) => ({
  'nodeherd.io/desired-revision': rev,
  'nodeherd.io/current-revision': rev,
  'nodeherd.io/state': 'Done',
  'nodeherd.io/message': `revision ${rev} applied`,
});

describe('a kept node snapshot', () => {
  test('is the same object while the Node object and everything else stay the same', () => {
    const health = new NodeHealthTracker();
    const n = nodeObject('n1', done('p-1'));
    const first = snapshotNode(n, context(health));
    assert.equal(snapshotNode(n, context(health, { now: T0 + 5_000 })), first);
  });

  test('is made afresh for a new Node object, another target, zone label or tracker', () => {
    const health = new NodeHealthTracker();
    const n = nodeObject('n1', done('p-1'));
    const first = snapshotNode(n, context(health));
    assert.equal(first.needsDrain, true);

    const changed = nodeObject('n1', done('p-2'));
    const second = snapshotNode(changed, context(health));
    assert.notEqual(second, first);
    assert.equal(second.currentRevision, 'p-2');

    const otherTarget = snapshotNode(n, context(health, { target: 'p-3' }));
    assert.notEqual(otherTarget, first);
    assert.equal(otherTarget.needsDrain, false, 'the plan from p-1 to p-3 needs no drain');

    const otherZone = snapshotNode(n, context(health, { zoneLabel: 'zone2' }));
    assert.equal(otherZone.zone, 'a');

    const otherTracker = snapshotNode(n, context(new NodeHealthTracker()));
    assert.notEqual(otherTracker, snapshotNode(n, context(health)));
  });

  test('is made afresh when what the controller knows of the node changes', () => {
    const health = new NodeHealthTracker();
    const n = nodeObject('n1', done('p-1'));
    const first = snapshotNode(n, context(health));
    const podsDown = snapshotNode(n, context(health, { podsReady: () => false }));
    assert.equal(podsDown.podsReady, false);
    const blocked = snapshotNode(n, context(health, { drainBlocked: () => 'PDB' }));
    assert.equal(blocked.drainBlocked, 'PDB');
    const noDrain = snapshotNode(n, context(health, { needsDrain: () => false }));
    assert.equal(noDrain.needsDrain, false);
    health.noteChange('n1', T0 + 1_000, true, true);
    const seenReady = snapshotNode(n, context(health));
    assert.equal(seenReady.readyChangedAt, T0 + 1_000);
    assert.notEqual(seenReady, first);
  });

  test("is made afresh when the health tracker's record of the node changed", () => {
    const health = new NodeHealthTracker();
    const n = nodeObject('n1', { ...done('p-2'), 'nodeherd.io/update-started': '2030-01-01T00:59:00.000Z' });
    const first = snapshotNode(n, context(health));
    assert.equal(first.wasHealthy, true);
    health.forget('n1');
    const after = snapshotNode(n, context(health));
    assert.notEqual(after, first);
    // Another reader recorded the node unhealthy on the same update: the tracker's word counts.
    health.observe('n1', 'p-2@x', false, T0);
    assert.notEqual(snapshotNode(n, context(health)), after);
  });

  test('a report left from before the start stays stale until it changes', () => {
    const health = new NodeHealthTracker();
    const failed = {
      'nodeherd.io/desired-revision': 'p-2',
      'nodeherd.io/current-revision': 'p-1',
      'nodeherd.io/state': 'Failed',
      'nodeherd.io/message': 'it broke',
    };
    const n = nodeObject('n1', failed);
    assert.equal(snapshotNode(n, context(health)).agentState, 'Failed');
    health.noteStart('n1', 'p-2', agentReport(n));
    assert.equal(snapshotNode(n, context(health)).agentState, undefined, 'stale since the start');
  });
});

// The random sequences: a pool of a few nodes, events on the Node objects, on the controller's own
// knowledge of them and on the pool; after each, both pipelines read every node and decide.

const NAMES = ['a1', 'a2', 'b1', 'b2', 'c1', 'c2', 'c3'];
const REVISIONS = ['p-1', 'p-2', 'p-3'];
const STATES = ['Done', 'Applying', 'Verifying', 'Failed', 'Idle'];

const SETTINGS: RollingUpdateSettings = {
  maxUnavailable: 2,
  maxUnavailablePerZone: 1,
  minReadySeconds: 10,
  progressDeadlineSeconds: 60,
  failurePolicy: { action: 'Pause', maxFailures: 1 },
};

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

function runSequence(seed: number, steps: number): void {
  const rand = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const nodes = new Map<string, Node>();
  for (const [i, name] of NAMES.entries()) {
    const n = nodeObject(name, done('p-1'));
    n.metadata.labels = { zone: `z${i % 3}`, zone2: i % 2 ? 'a' : 'b' };
    nodes.set(name, n);
  }
  const kept = new NodeHealthTracker();
  const fresh = new NodeHealthTracker();
  const trackers = [kept, fresh];
  let now = T0;
  let target = 'p-2';
  let zoneLabel = 'zone';
  let healthFromNodeOnly = true;
  let planKnown = true;
  const podsDown = new Set<string>();
  const blocked = new Map<string, string>();
  const episodeStart = T0 - 1_000;

  const replace = (name: string, change: (n: Node) => void) => {
    const copy = structuredClone(nodes.get(name)!);
    change(copy);
    nodes.set(name, copy);
    const ready = copy.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
    for (const t of trackers) t.noteChange(name, now, ready, true);
  };
  const annotate = (name: string, key: string, value: string | undefined) =>
    replace(name, (n) => {
      const a = { ...n.metadata.annotations };
      if (value === undefined) delete a[key];
      else a[key] = value;
      n.metadata.annotations = a;
    });

  const events: (() => string)[] = [
    () => {
      const name = pick(NAMES);
      const rev = pick(REVISIONS);
      annotate(name, 'nodeherd.io/desired-revision', rev);
      return `${name} desired ${rev}`;
    },
    () => {
      const name = pick(NAMES);
      const rev = pick(REVISIONS);
      annotate(name, 'nodeherd.io/current-revision', rev);
      return `${name} current ${rev}`;
    },
    () => {
      const name = pick(NAMES);
      const state = pick(STATES);
      annotate(name, 'nodeherd.io/state', state);
      return `${name} state ${state}`;
    },
    () => {
      const name = pick(NAMES);
      const message = pick(['revision p-1 failed: probe', 'revision p-2 failed: probe', 'applied', 'broke']);
      annotate(name, 'nodeherd.io/message', message);
      return `${name} message ${message}`;
    },
    () => {
      const name = pick(NAMES);
      const at = rand() < 0.2 ? undefined : new Date(now - Math.floor(rand() * 120_000)).toISOString();
      annotate(name, 'nodeherd.io/update-started', at);
      return `${name} update-started ${at}`;
    },
    () => {
      const name = pick(NAMES);
      const ready = rand() < 0.6;
      replace(name, (n) => {
        const ready0 = n.status!.conditions!.find((c) => c.type === 'Ready')!;
        ready0.status = ready ? 'True' : 'False';
        ready0.lastTransitionTime = new Date(now - 500).toISOString();
      });
      return `${name} ready ${ready}`;
    },
    () => {
      const name = pick(NAMES);
      const cordon = rand() < 0.5;
      replace(name, (n) => {
        n.spec = cordon ? { unschedulable: true } : {};
        const a = { ...n.metadata.annotations };
        if (cordon) a['nodeherd.io/cordoned-by'] = 'nodeherd-controller';
        else delete a['nodeherd.io/cordoned-by'];
        n.metadata.annotations = a;
      });
      return `${name} cordoned ${cordon}`;
    },
    () => {
      const name = pick(NAMES);
      const rev = pick(REVISIONS);
      for (const t of trackers) t.noteStart(name, rev, agentReport(nodes.get(name)!));
      return `${name} started on ${rev}`;
    },
    () => {
      const name = pick(NAMES);
      for (const t of trackers) t.forget(name);
      return `${name} forgotten`;
    },
    () => {
      // The tracker told of a change the Node object does not show (yet).
      const name = pick(NAMES);
      const ready = rand() < 0.5;
      for (const t of trackers) t.noteChange(name, now, ready, true);
      return `${name} seen ready ${ready}`;
    },
    () => {
      const name = pick(NAMES);
      if (podsDown.has(name)) podsDown.delete(name);
      else podsDown.add(name);
      return `${name} pods ready ${!podsDown.has(name)}`;
    },
    () => {
      const name = pick(NAMES);
      if (blocked.has(name)) blocked.delete(name);
      else blocked.set(name, 'a PodDisruptionBudget');
      return `${name} drain blocked ${blocked.has(name)}`;
    },
    () => {
      target = pick(REVISIONS);
      return `target ${target}`;
    },
    () => {
      // The planner learns a revision (it answers no drain for one it cannot read).
      planKnown = !planKnown;
      return `plan known ${planKnown}`;
    },
    () => {
      zoneLabel = zoneLabel === 'zone' ? 'zone2' : 'zone';
      return `zone label ${zoneLabel}`;
    },
    () => {
      healthFromNodeOnly = !healthFromNodeOnly;
      return `health from the node only ${healthFromNodeOnly}`;
    },
    () => {
      now += Math.floor(rand() * 30_000);
      return `now +${now - T0}`;
    },
  ];

  const history: string[] = [];
  for (let step = 0; step < steps; step++) {
    history.push(pick(events)());
    now += Math.floor(rand() * 2_000);
    const read = (health: NodeHealthTracker, copy: boolean): NodeSnapshot[] => {
      const ctx = context(health, {
        zoneLabel,
        target,
        needsDrain: (from, to) => planKnown && from !== to && (from === 'p-1' || to === 'p-3'),
        podsReady: (name) => !podsDown.has(name),
        drainBlocked: (name) => blocked.get(name),
        now,
        healthFromNodeOnly,
      });
      return NAMES.map((name) =>
        snapshotNode(copy ? structuredClone(nodes.get(name)!) : nodes.get(name)!, ctx),
      );
    };
    // The kept pipeline's snapshots are frozen: nothing downstream may modify what the caches keep.
    const keptSnapshots = read(kept, false).map(deepFreeze);
    const freshSnapshots = read(fresh, true);
    const where = `seed ${seed}, step ${step}: ${history.slice(-6).join('; ')}`;
    assert.deepEqual(keptSnapshots, freshSnapshots, where);
    const decide = (snapshots: NodeSnapshot[]) =>
      decideRollout({
        settings: SETTINGS,
        paused: false,
        target: { name: target, number: REVISIONS.indexOf(target) + 1 },
        lastComplete: { name: 'p-1', number: 1 },
        episodeStart,
        nodes: snapshots,
        now,
      });
    assert.deepEqual(decide(keptSnapshots), decide(freshSnapshots), where);
  }
}

describe(`kept and fresh readings decide alike (seed ${SEED})`, () => {
  for (let run = 0; run < 30; run++) {
    test(`random sequence ${run}`, () => runSequence(SEED + run, 300));
  }
});

describe('pool members kept per Node object', () => {
  function contextOf(nodes: Map<string, Node>, pools: PoolSelector[]): ControllerContext {
    return {
      informers: {
        nodes: { list: () => [...nodes.values()], get: (name: string) => nodes.get(name) },
        pools: {
          list: () =>
            pools.map((p) => ({ metadata: { name: p.name }, spec: { nodeSelector: p.nodeSelector } })),
        },
      },
    } as unknown as ControllerContext;
  }

  test(`are poolMembership's after random label and selector changes (seed ${SEED})`, () => {
    const rand = random(SEED);
    const names = Array.from({ length: 12 }, (_, i) => `n${String(i).padStart(2, '0')}`);
    const values = ['a', 'b', 'c'];
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
    const nodes = new Map<string, Node>();
    for (const name of [...names].reverse())
      nodes.set(name, { metadata: { name, labels: { role: pick(values), tier: pick(values) } } });
    const pools: PoolSelector[] = [
      { name: 'p1', nodeSelector: { matchLabels: { role: 'a' } } },
      { name: 'p2', nodeSelector: { matchLabels: { tier: 'b' } } },
      {
        name: 'p3',
        nodeSelector: { matchExpressions: [{ key: 'role', operator: 'In', values: ['b', 'c'] }] },
      },
    ];
    for (let step = 0; step < 300; step++) {
      const r = rand();
      if (r < 0.6) {
        const name = pick(names);
        const labels = nodes.get(name)?.metadata.labels ?? {};
        nodes.set(name, {
          metadata: { name, labels: { ...labels, [pick(['role', 'tier'])]: pick(values) } },
        });
      } else if (r < 0.7) {
        const name = pick(names);
        if (nodes.has(name)) nodes.delete(name);
        else nodes.set(name, { metadata: { name, labels: { role: pick(values), tier: pick(values) } } });
      } else if (r < 0.85) {
        const pool = pick(pools);
        pool.nodeSelector = { matchLabels: { [pick(['role', 'tier'])]: pick(values) } };
      }
      const ctx = contextOf(nodes, pools);
      const expected = poolMembership(
        [...nodes.values()].map((n) => ({ name: n.metadata.name, labels: n.metadata.labels })),
        pools,
      );
      for (const pool of pools) {
        const got = poolMembers(ctx, pool.name);
        assert.deepEqual(
          got.nodes.map((n) => n.metadata.name),
          expected.members.get(pool.name),
          `step ${step}, ${pool.name}`,
        );
        assert.deepEqual(
          got.conflicts,
          new Map([...expected.conflicts].filter(([, p]) => p.includes(pool.name))),
          `step ${step}, ${pool.name}`,
        );
        for (const n of got.nodes) assert.equal(n, nodes.get(n.metadata.name));
      }
    }
  });
});

// The timeline model alone (pure): classification of nodes from their annotations and Ready
// condition, tracks reconstructed from one look and recorded live, rows aggregated on a large pool,
// buckets, and the text drawing of `nodeherd status --timeline`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  CURRENT_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  STATE_ANNOTATION,
  STATE_REVISION_ANNOTATION,
} from '../../../src/api/node-protocol.ts';
import type { NodeConfigPool } from '../../../src/api/types.ts';
import {
  dominantState,
  eventTimesByNode,
  type Interval,
  intervalBuckets,
  type NodeTrack,
  nodeState,
  reconstructPaused,
  reconstructTimeline,
  reconstructTrack,
  recordPaused,
  recordState,
  rolloutContext,
  rowBuckets,
  stateDuring,
  timelineRows,
} from '../../../src/cli/dashboard/timeline.ts';
import { renderTimelineText } from '../../../src/cli/status/timeline-text.ts';
import { ROLLBACK_FROM_ANNOTATION, UPDATE_STARTED_ANNOTATION } from '../../../src/controller/annotations.ts';
import type { Node } from '../../../src/kube/types.ts';

const T0 = Date.parse('2026-11-25T10:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

function pool(extra: { minReadySeconds?: number; rollbackFrom?: string } = {}): NodeConfigPool {
  return {
    apiVersion: 'nodeherd.io/v1alpha1',
    kind: 'NodeConfigPool',
    metadata: {
      name: 'workers',
      ...(extra.rollbackFrom ? { annotations: { [ROLLBACK_FROM_ANNOTATION]: extra.rollbackFrom } } : {}),
    },
    spec: {
      nodeSelector: {},
      configSelector: {},
      updateStrategy: {
        type: 'RollingUpdate',
        rollingUpdate: { ...(extra.minReadySeconds ? { minReadySeconds: extra.minReadySeconds } : {}) },
      },
    },
    status: {
      targetRevision: 'workers-2',
      history: [
        { revision: 1, name: 'workers-1', startedAt: iso(T0 - 3_600_000), result: 'Complete' },
        { revision: 2, name: 'workers-2', startedAt: iso(T0), result: 'InProgress' },
      ],
    },
  } as NodeConfigPool;
}

interface NodeSpec {
  current?: string;
  desired?: string;
  state?: string;
  stateRevision?: string;
  ready?: boolean;
  readySince?: number;
  started?: number;
  zone?: string;
}

function node(name: string, s: NodeSpec): Node {
  const annotations: Record<string, string> = {};
  if (s.current) annotations[CURRENT_REVISION_ANNOTATION] = s.current;
  if (s.desired) annotations[DESIRED_REVISION_ANNOTATION] = s.desired;
  if (s.state) annotations[STATE_ANNOTATION] = s.state;
  if (s.stateRevision) annotations[STATE_REVISION_ANNOTATION] = s.stateRevision;
  if (s.started !== undefined) annotations[UPDATE_STARTED_ANNOTATION] = iso(s.started);
  return {
    metadata: { name, annotations, labels: s.zone ? { 'topology.kubernetes.io/zone': s.zone } : {} },
    status: {
      conditions: [
        {
          type: 'Ready',
          status: s.ready === false ? 'False' : 'True',
          ...(s.readySince !== undefined ? { lastTransitionTime: iso(s.readySince) } : {}),
        },
      ],
    },
  };
}

test('nodeState: each state from the annotations and Ready', () => {
  const context = rolloutContext(pool({ minReadySeconds: 10 }), T0);
  assert.equal(context.startedAt, T0, 'the rollout starts at its history record');
  const now = T0 + 60_000;
  const on = { current: 'workers-2', desired: 'workers-2', state: 'Done', stateRevision: 'workers-2' };
  assert.equal(nodeState(node('a', { current: 'workers-1', desired: 'workers-1' }), context, now), 'waiting');
  assert.equal(
    nodeState(node('b', { current: 'workers-1', desired: 'workers-2', state: 'Waiting' }), context, now),
    'waiting',
  );
  assert.equal(
    nodeState(node('c', { current: 'workers-1', desired: 'workers-2', state: 'Applying' }), context, now),
    'applying',
  );
  assert.equal(
    nodeState(
      node('d', { current: 'workers-1', desired: 'workers-2', state: 'Applying', ready: false }),
      context,
      now,
    ),
    'notready',
  );
  assert.equal(
    nodeState(node('e', { ...on, started: T0 + 40_000, readySince: now - 5_000 }), context, now),
    'soaking',
  );
  assert.equal(
    nodeState(node('f', { ...on, started: T0 + 10_000, readySince: T0 + 20_000 }), context, now),
    'done',
  );
  assert.equal(
    nodeState(
      node('g', { current: 'workers-1', desired: 'workers-2', state: 'Failed', stateRevision: 'workers-2' }),
      context,
      now,
    ),
    'failed',
  );
  // A rollback: nodes moved during it were rolled back; a node that never left is simply done.
  const back = rolloutContext(pool({ rollbackFrom: 'workers-3' }), T0);
  assert.equal(nodeState(node('h', { ...on, started: T0 + 5_000 }), back, now), 'rolledback');
  assert.equal(nodeState(node('i', { ...on, started: T0 - 500_000 }), back, now), 'done');
});

test('reconstructTrack: waiting, applying until Ready again, soaking, done', () => {
  const context = rolloutContext(pool({ minReadySeconds: 10 }), T0);
  const now = T0 + 120_000;
  const track = reconstructTrack(
    node('a', {
      current: 'workers-2',
      desired: 'workers-2',
      state: 'Done',
      started: T0 + 30_000,
      readySince: T0 + 40_000,
    }),
    context,
    now,
  );
  assert.deepEqual(
    track.segments.map((s) => [s.state, s.from - T0, s.to === undefined ? null : s.to - T0]),
    [
      ['waiting', 0, 30_000],
      ['applying', 30_000, 40_000],
      ['soaking', 40_000, 50_000],
      ['done', 50_000, null],
    ],
  );
  // A failed node: failed from its agent's Failed Event on.
  const failed = reconstructTrack(
    node('b', { current: 'workers-1', desired: 'workers-2', state: 'Failed', started: T0 + 1_000 }),
    context,
    now,
    { failed: T0 + 4_000 },
  );
  assert.deepEqual(
    failed.segments.map((s) => [s.state, s.from - T0]),
    [
      ['waiting', 0],
      ['applying', 1_000],
      ['failed', 4_000],
    ],
  );
});

test('recordState: a new segment only on a change; two changes at one instant keep the later', () => {
  const track: NodeTrack = { name: 'a', segments: [] };
  recordState(track, 'waiting', 0);
  recordState(track, 'waiting', 5);
  recordState(track, 'applying', 10);
  recordState(track, 'notready', 12);
  recordState(track, 'applying', 12);
  recordState(track, 'done', 20);
  assert.deepEqual(track.segments, [
    { state: 'waiting', from: 0, to: 10 },
    { state: 'applying', from: 10, to: 20 },
    { state: 'done', from: 20 },
  ]);
  assert.equal(stateDuring(track, 9, 11), 'applying', 'the most severe state of a bucket shows');
  assert.equal(stateDuring(track, 100, 200), 'done');
  assert.equal(stateDuring(track, -10, -5), undefined);
});

function thousandTracks(zones: number): NodeTrack[] {
  return Array.from({ length: 1000 }, (_, i) => {
    const start = i * 10;
    const track: NodeTrack = {
      name: `n${String(i).padStart(4, '0')}`,
      ...(zones > 0 ? { zone: `zone-${i % zones}` } : {}),
      segments: [],
    };
    recordState(track, 'waiting', 0);
    recordState(track, 'applying', start);
    recordState(track, i === 500 ? 'failed' : 'done', start + 5);
    return track;
  });
}

test('timelineRows: a row per node while they fit; 1,000 nodes grouped by zone or by batch, groups expand', () => {
  const few = thousandTracks(0).slice(0, 10);
  assert.equal(timelineRows(few, { maxRows: 40 }).length, 10);

  const zoned = thousandTracks(3);
  const byZone = timelineRows(zoned, { maxRows: 40 });
  assert.deepEqual(
    byZone.map((r) => [r.key, r.nodes.length]),
    [
      ['zone:zone-0', 334],
      ['zone:zone-1', 333],
      ['zone:zone-2', 333],
    ],
  );
  const expanded = timelineRows(zoned, { maxRows: 40, expanded: new Set(['zone:zone-1']) });
  assert.equal(expanded.length, 3 + 333, 'the expanded zone keeps its row and shows its nodes below it');
  assert.equal(expanded.filter((r) => !r.group).length, 333);

  const batches = timelineRows(thousandTracks(0), { maxRows: 40 });
  assert.equal(batches.length, 40);
  assert.equal(batches[0]!.label, 'nodes 1-25');
  assert.deepEqual(batches[0]!.nodes.slice(0, 2), ['n0000', 'n0001'], 'batches follow update order');

  const tracks = new Map(zoned.map((t) => [t.name, t]));
  const row = batches[20]!; // holds n0500, the failed node
  assert.ok(row.nodes.includes('n0500'));
  const cells = rowBuckets(row, tracks, 0, 10_000, 100);
  const last = cells[cells.length - 1]!;
  assert.equal(last.failed, 1);
  assert.equal(last.done, 24);
  assert.equal(dominantState(last), 'failed', 'one failed node in a group shows');
  assert.equal(dominantState({ done: 3, waiting: 5 }), 'waiting', 'otherwise the majority shows');
  assert.equal(dominantState({ waiting: 1, applying: 1 }), 'applying', 'on a tie, the work going on');
});

test('renderTimelineText: a row per node, a character per moment, a legend', () => {
  const p = pool({ minReadySeconds: 10 });
  const now = T0 + 100_000;
  const members = [
    node('sim-0001', {
      current: 'workers-2',
      desired: 'workers-2',
      state: 'Done',
      started: T0,
      readySince: T0 + 20_000,
    }),
    node('sim-0002', { current: 'workers-1', desired: 'workers-2', state: 'Failed', started: T0 + 50_000 }),
    node('sim-0003', { current: 'workers-1', desired: 'workers-1' }),
  ];
  const timeline = reconstructTimeline(p, members, now);
  const text = renderTimelineText(timeline, { color: false, width: 0 });
  const lines = text.trimEnd().split('\n');
  assert.match(lines[0]!, /^pool workers {2}timeline of workers-2: 10:00:00–10:01:40 UTC/);
  const row = (name: string) => lines.find((l) => l.includes(name))!;
  assert.match(row('sim-0001'), /\|a+s+=+\| done$/);
  assert.match(row('sim-0002'), /\|\.+X+\| failed$/);
  assert.match(row('sim-0003'), /\|\.+\| waiting$/);
  assert.equal(row('sim-0001').indexOf('|'), row('sim-0003').indexOf('|'), 'the bars line up');
  assert.match(
    lines[lines.length - 1]!,
    /legend: \. waiting {2}a applying {2}! NotReady {2}s soaking {2}= done {2}X failed {2}r rolled back/,
  );
});

test('eventTimesByNode: the latest Applied and Failed of each node', () => {
  const times = eventTimesByNode([
    { metadata: {}, involvedObject: { kind: 'Node', name: 'a' }, reason: 'Applied', lastTimestamp: iso(T0) },
    {
      metadata: {},
      involvedObject: { kind: 'Node', name: 'a' },
      reason: 'Applied',
      lastTimestamp: iso(T0 + 5000),
    },
    {
      metadata: {},
      involvedObject: { kind: 'Node', name: 'a' },
      reason: 'Failed',
      lastTimestamp: iso(T0 + 1000),
    },
    { metadata: {}, involvedObject: { kind: 'Pod', name: 'b' }, reason: 'Applied', lastTimestamp: iso(T0) },
  ]);
  assert.deepEqual(Object.fromEntries(times), { a: { applied: T0 + 5000, failed: T0 + 1000 } });
});

test('pauses: reconstructed from the Paused condition, recorded live, drawn as a line of their own', () => {
  const paused = pool();
  paused.spec.paused = true;
  paused.status!.conditions = [
    {
      type: 'Paused',
      status: 'True',
      reason: 'PausedByUser',
      message: '',
      observedGeneration: 1,
      lastTransitionTime: iso(T0 + 30_000),
    },
  ];
  assert.deepEqual(reconstructPaused(paused, T0), [{ from: T0 + 30_000 }]);
  assert.deepEqual(reconstructPaused(pool(), T0), [], 'a running pool has no pause');

  const intervals: Interval[] = [];
  recordPaused(intervals, false, 0);
  recordPaused(intervals, true, 10);
  recordPaused(intervals, true, 15);
  recordPaused(intervals, false, 20);
  recordPaused(intervals, true, 40);
  assert.deepEqual(intervals, [{ from: 10, to: 20 }, { from: 40 }]);
  assert.deepEqual(intervalBuckets(intervals, 0, 50, 5), [false, true, false, false, true]);

  const members = [node('sim-0001', { current: 'workers-1', desired: 'workers-1' })];
  const text = renderTimelineText(reconstructTimeline(paused, members, T0 + 60_000), {
    color: false,
    width: 0,
  });
  const line = text.split('\n').find((l) => l.includes('(pool paused)'))!;
  assert.match(line, /\| {30}#{30}\|$/, 'paused for the second half of the minute');
  assert.match(text, /# pool paused\n$/);
});

// The CPU of a pool reconcile's pure part, in this process, without an API server (issue 17): a
// RollingUpdate of N nodes in the informer's cache, each "reconcile" observing the pool (members, node
// snapshots, strategy nodes), deciding (rollout decision and marks), tracking and building the status
// and metrics, as PoolReconciler does; between two reconciles a few Node objects change, as the watch
// would replace them: the starts just decided get their desired-revision, and some nodes in flight
// finish (current-revision, Done). The figure is the time per reconcile, median and mean over the
// rollout, and the process's heap use; what it leaves out (rendering, the writes, the status write's
// comparison) does not grow with the pool.
//
// Run: node bench/pool-reconcile-cpu.bench.ts
//   POOL_CPU_NODES=5000          nodes
//   POOL_CPU_MAX_UNAVAILABLE=10% the pool's maxUnavailable
//   POOL_CPU_FINISH=8            nodes in flight that finish between two reconciles
//   POOL_CPU_PROF=file           write a CPU profile of the rollout (node:inspector)

import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { defaultedPoolSpec } from '../src/api/pool-defaults.ts';
import type { NodeConfigPool } from '../src/api/types.ts';
import type { ControllerContext } from '../src/controller/controller-context.ts';
import { ControllerMetrics } from '../src/controller/metrics.ts';
import { NodeHealthTracker } from '../src/controller/node-health-tracker.ts';
import { PodIndex } from '../src/controller/pod-index.ts';
import { updatePoolMetrics } from '../src/controller/pools/pool-metrics.ts';
import { PoolObserver, poolMembers } from '../src/controller/pools/pool-observer.ts';
import { buildPoolStatus } from '../src/controller/pools/pool-status.ts';
import { RolloutTracker } from '../src/controller/pools/rollout-tracker.ts';
import { beginRollout } from '../src/controller/revisions/rollout-history.ts';
import { rollingUpdate } from '../src/controller/strategies/rolling-update/rolling-update.ts';
import { trimNode } from '../src/kube/informer.ts';
import type { Node } from '../src/kube/types.ts';
import { nodeObject, READY } from '../src/sim/node-object.ts';
import { kubeTime } from '../src/util/kube-time.ts';
import { benchNumber } from './support/quick.ts';
import { reportFigure } from './support/report.ts';

const NODES = benchNumber('POOL_CPU_NODES', 5000, 1000);
const MAX_UNAVAILABLE = process.env.POOL_CPU_MAX_UNAVAILABLE ?? '10%';
const FINISH = benchNumber('POOL_CPU_FINISH', 8, 8);
const PROFILE = process.env.POOL_CPU_PROF;

let version = 0;
const nodes = new Map<string, Node>();
function put(node: Node): void {
  nodes.set(node.metadata.name, {
    ...node,
    metadata: { ...node.metadata, resourceVersion: String(++version) },
  });
}
function annotate(name: string, annotations: Record<string, string>): void {
  const node = nodes.get(name)!;
  put({
    ...node,
    metadata: { ...node.metadata, annotations: { ...node.metadata.annotations, ...annotations } },
  });
}

const started = Date.now();
for (let i = 0; i < NODES; i++) {
  const name = `n-${String(i).padStart(5, '0')}`;
  const done = { 'nodeherd.io/desired-revision': 'p-1', 'nodeherd.io/current-revision': 'p-1' };
  const object = nodeObject(
    {
      name,
      zone: `z${i % 3}`,
      labels: { pool: 'p' },
      annotations: { ...done, 'nodeherd.io/state': 'Done', 'nodeherd.io/message': 'revision p-1 applied' },
    },
    READY,
    started - 3_600_000,
    started - 3_600_000,
  ) as unknown as Node;
  const conditions = [
    ...(object.status?.conditions ?? []),
    { type: 'NodeConfigReady', status: 'True', lastTransitionTime: kubeTime(started - 3_000_000) },
  ];
  put(trimNode({ ...object, status: { ...object.status, conditions } } as Node));
}

const pool: NodeConfigPool = {
  apiVersion: 'nodeherd.io/v1alpha1',
  kind: 'NodeConfigPool',
  metadata: { name: 'p', generation: 1 },
  spec: {
    nodeSelector: { matchLabels: { pool: 'p' } },
    configSelector: { matchLabels: { pool: 'p' } },
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: MAX_UNAVAILABLE } },
  },
} as NodeConfigPool;
const spec = defaultedPoolSpec(pool.spec);
const metrics = new ControllerMetrics();
let now = started;
const ctx = {
  informers: {
    nodes: { get: (name: string) => nodes.get(name), list: () => [...nodes.values()] },
    pools: { list: () => [pool] },
    leases: { list: () => [] },
  },
  pods: new PodIndex(),
  health: new NodeHealthTracker(),
  planner: { needsDrain: () => false },
  drainer: { blocked: () => undefined },
  metrics,
  now: () => now,
} as unknown as ControllerContext;
const tracker = new RolloutTracker(metrics);
const target = { name: 'p-2', number: 2 };
const revisions = [{ name: 'p-1', number: 1 }, target];
const history = beginRollout([], target, kubeTime(started - 1000), 'Superseded');

const inFlight: string[] = [];
const times: number[] = [];
let complete = false;
const session = PROFILE ? new Session() : undefined;
if (session) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
}
const t0 = performance.now();
while (!complete && times.length < 100_000) {
  now += 50;
  const t = performance.now();
  const members = poolMembers(ctx, 'p');
  const observer = new PoolObserver(ctx, pool, spec, members.nodes, revisions, now);
  const snapshot = observer.observe({ target, history, paused: false });
  const decision = rollingUpdate.decide(snapshot);
  const rollout = decision.rollout!;
  tracker.observe('p', rollout, snapshot.snapshots, now);
  const status = buildPoolStatus({
    generation: 1,
    previous: pool.status,
    strategyType: 'RollingUpdate',
    target,
    history,
    decision: rollout,
    nodes: snapshot.snapshots,
    revisionNumbers: observer.revisionNumbers,
    render: { conflicts: [] },
    paused: false,
    nodeConflicts: members.conflicts,
    now,
  });
  updatePoolMetrics(metrics, 'p', status, rollout, snapshot.snapshots);
  pool.status = status;
  times.push(performance.now() - t);
  complete = rollout.complete;
  // The watch: the starts get the target, and some nodes in flight finish.
  for (const start of rollout.starts) {
    annotate(start.node, {
      'nodeherd.io/desired-revision': target.name,
      'nodeherd.io/update-started': new Date(now).toISOString(),
    });
    inFlight.push(start.node);
  }
  for (const name of inFlight.splice(0, FINISH)) {
    annotate(name, {
      'nodeherd.io/current-revision': target.name,
      'nodeherd.io/state': 'Done',
      'nodeherd.io/message': `revision ${target.name} applied`,
    });
  }
}
const totalMs = performance.now() - t0;
if (session) {
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(PROFILE!, JSON.stringify(profile));
}
const sorted = [...times].sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)]!;
const mean = times.reduce((a, b) => a + b, 0) / times.length;
console.log(
  `# pool reconcile CPU: ${NODES} nodes, maxUnavailable ${MAX_UNAVAILABLE}, ${FINISH} nodes finish between reconciles (node ${process.version})`,
);
console.log(
  `${times.length} reconciles in ${(totalMs / 1000).toFixed(1)} s: ${median.toFixed(2)} ms median, ${mean.toFixed(2)} ms mean, ` +
    `p99 ${sorted[Math.floor(sorted.length * 0.99)]!.toFixed(2)} ms; heap used ${(process.memoryUsage().heapUsed / 1048576).toFixed(0)} MB`,
);
reportFigure({
  bench: 'pool-reconcile-cpu',
  name: 'pool reconcile, observe to status, mean',
  value: mean,
  unit: 'ms',
  note: `${NODES} nodes, maxUnavailable ${MAX_UNAVAILABLE}, in process`,
});

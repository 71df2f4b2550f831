// Which update strategy to pick: the same fleet, kubelet and limit of concurrent disruption, rolled out
// four ways, against the embedded API server (its own process), simulated nodes running the real agent
// (this process) and the real nodeherd-controller (its own process, the bundle and Node flags the image
// ships; STRATEGY_BENCH_CONTROLLER_SOURCE=1 runs bin/nodeherd-controller.ts instead):
//
// - jitter: the baseline of bash loops, no controller: the harness writes every node's desired-revision
//   and a random nodeherd.io/not-before in the window (the agent's Spread gate stands in for
//   `sleep $((RANDOM % 300))` before the apply).
// - Spread (spread.maxUnavailable = the limit, so times are handed out just in time within it, which
//   keeps the peak: windowSeconds = the window, without the 20 % slack that Spread without a budget
//   needs, see REAL.spreadWindowS; a canary of 1 % of the nodes, after which the others' window opens), Serial (slots = the limit, the same
//   canary: only the first 1 % in line have the target until they are updated), RollingUpdate (maxUnavailable =
//   the limit, minReadySeconds 0, failurePolicy Pause: the defaults).
//
// Per strategy, on a fresh cluster and in a process of its own: every node bootstraps to revision v0; then a good change (a kubelet
// drop-in: every node restarts kubelet and is NotReady for the restart time) and a change that breaks
// kubelet (the simulated kubelet dies at start with that drop-in and never comes back: the agent reports
// Failed and, under the default failurePolicy Pause, leaves the node for a human). Figures: the peak of concurrently NotReady nodes (Ready not True on the
// server, counted from every Node change the watch delivers), the time from the change until every node
// is Ready and Done on it, and the nodes that started applying the breaking change before the rollout
// stopped (no node started it for 80 s, longer than a broken node takes to report Failed). Beside them
// (issue 17): the total time ÷ the physical limit ⌈N/B⌉ × T, the peak of NotReady nodes that were
// updating (apart from nodes NotReady on their own), the API requests per second during the good change
// and where they go (verb and resource), the controller's peak RSS and the API server's RSS (with the most client
// connections it had open: each TLS connection costs it ~60–75 KB), and for a
// human: the controller's pool reconciles, the simulated nodes' event-loop delay, the median time from
// a place freed in the budget to the next start, the watch events the simulated nodes received by kind,
// and Spread's own schedule density.
//
// Real time would take hours, so every duration runs SCALE (10 by default) times faster: the kubelet restart
// (30 s → 3 s NotReady), the window (300 s → 30 s), the agent's unit timeout (60 s → 6 s), the Serial
// slot lease (600 s → 60 s). Times are reported scaled back to real seconds. Not scaled: the node
// lease and grace period (see runStrategy), and controller and agent reaction times (tens of ms), which
// therefore weigh ten times more here than on a real fleet.
//
// Run: node bench/strategies.bench.ts
//   STRATEGY_BENCH_NODES=1000          nodes (the limit is 10 % of them; quick: 200)
//   STRATEGY_BENCH_ONLY=jitter,Spread  strategies to run (default all four)
//   STRATEGY_BENCH_SCALE=10            time scale: every duration runs this many times faster (1: real
//                                      time; it must divide 300, 360 and 600)
//   STRATEGY_BENCH_TRACE=1             also time the agents' own steps (their log lines: applying, each
//                                      action, applied) from the moment the watch showed the node its target
//   STRATEGY_BENCH_SEED=1              seed of the jitter's random offsets
//   STRATEGY_BENCH_OS=rpm              the nodes are RPM nodes (dnf) instead of Debian's (apt)
//   STRATEGY_BENCH_CONTROLLER_LOG=warn the controller's --log-level (its log goes to stderr)
//   STRATEGY_BENCH_SPREAD_WINDOW_S=300 Spread's windowSeconds (real; default nodes × restart ÷ limit)
//   STRATEGY_BENCH_RUNS=1              runs per strategy; from 2 on, each run places the nodes in 2–4
//                                      zones at random (seed + run) and the worst peak and hit count
//                                      over the runs are reported too (issue 17: Spread's peak ≤ the
//                                      limit in ≥ 20 randomised runs)

import './support/simulator-threads.ts';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { revisionName } from '../src/api/hash.ts';
import {
  CURRENT_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  NODE_CONFIG_READY_CONDITION,
  NOT_BEFORE_ANNOTATION,
  SERIAL_SLOT_ANNOTATION,
  STATE_ANNOTATION,
  STATE_REVISION_ANNOTATION,
} from '../src/api/node-protocol.ts';
import { renderConfigs } from '../src/api/render.ts';
import { buildRevision } from '../src/api/revision.ts';
import type { NodeConfigSpec } from '../src/api/types.ts';
import { adminKubeconfigPath } from '../src/apiserver/auth/credentials.ts';
import { isKubeError } from '../src/kube/kube-error.ts';
import { LightKubeClient } from '../src/kube/light/light-kube-client.ts';
import type { KubeObject } from '../src/kube/light/types.ts';
import { Fleet } from '../src/sim/fleet.ts';
import { KUBELET_REQUEST_TIMEOUT_MS, sharedClient } from '../src/sim/node-clients.ts';
import { readyConditionOf } from '../src/sim/node-object.ts';
import { simulatedNodeAgents } from '../src/sim/simulated-node-agents.ts';
import type { LogFields, Logger } from '../src/util/logger.ts';
import { startApiServerProcess } from './support/apiserver-process.ts';
import {
  CONTROLLER_SOURCE_ENTRY,
  controllerBundle,
  SHIPPED_CONTROLLER_FLAGS,
} from './support/controller-bundle.ts';
import { scrapeControllerMetrics } from './support/controller-metrics.ts';
import { diesWithParent } from './support/parent-death.ts';
import { loadAverage, processCpuSeconds } from './support/proc.ts';
import { benchNumber, benchSetting } from './support/quick.ts';
import { reportFigure } from './support/report.ts';

const ROOT = join(import.meta.dirname, '..');
const GROUP = '/apis/nodeherd.io/v1alpha1';
const POOL = 'bench';

/**
 * Every duration runs this many times faster than on a real fleet. Reaction times (watch, reconcile,
 * API round trips) are not scaled, so they weigh SCALE times more here than on a real fleet; and the
 * faster the clock, the more work per second the two cores of a laptop-sized machine must do for the
 * same fleet. 1 runs in real time.
 */
const SCALE = benchNumber('STRATEGY_BENCH_SCALE', 10, 10);
if (!(SCALE >= 1 && [300, 360, 600].every((s) => Number.isInteger(s / SCALE))))
  throw new Error(
    `STRATEGY_BENCH_SCALE must be ≥ 1 and divide 300, 360 and 600 (windows and lease in whole seconds): ${SCALE}`,
  );
const REAL = {
  kubeletRestartS: 30,
  windowS: 300,
  // Spread's window: nodes × NotReady time ÷ limit is 300 s only if a node is NotReady for exactly the
  // restart; it is NotReady a little longer (the agent's report, the kubelet's Ready, the watch), and
  // starts jitter by the agents' reaction time, so a window without slack puts limit + 1 or more nodes
  // NotReady at the seams. docs/operations.md asks for this slack; the bench configures what it says.
  spreadWindowS: 360,
  // With spread.maxUnavailable the budget, not the slack, keeps the peak: the window is nodes × restart ÷ limit.
  spreadBudgetWindowS: 300,
  leaseS: 40,
  unitTimeoutS: 60,
  serialLeaseS: 600,
};
const scaledMs = (realSeconds: number) => (realSeconds * 1000) / SCALE;
const realS = (scaledMillis: number) => (scaledMillis * SCALE) / 1000;

const NODES = benchNumber('STRATEGY_BENCH_NODES', 1000, 200);
const LIMIT = Math.max(1, Math.floor(NODES / 10));
const SEED = benchNumber('STRATEGY_BENCH_SEED', 1, 1);
const RUNS = Math.max(1, benchNumber('STRATEGY_BENCH_RUNS', 1, 1));
const STRATEGIES = ['jitter', 'Spread', 'Serial', 'RollingUpdate'] as const;
type Strategy = (typeof STRATEGIES)[number];
const SELECTED = benchSetting('STRATEGY_BENCH_ONLY', STRATEGIES.join(','), STRATEGIES.join(','))
  .split(',')
  .map((name) => {
    const strategy = STRATEGIES.find((s) => s.toLowerCase() === name.trim().toLowerCase());
    if (!strategy)
      throw new Error(
        `STRATEGY_BENCH_ONLY: unknown strategy ${JSON.stringify(name)} (${STRATEGIES.join(', ')})`,
      );
    return strategy;
  });

/** Spread's window (real seconds): STRATEGY_BENCH_SPREAD_WINDOW_S, else nodes × restart ÷ limit. */
const SPREAD_WINDOW_S = benchNumber(
  'STRATEGY_BENCH_SPREAD_WINDOW_S',
  REAL.spreadBudgetWindowS,
  REAL.spreadBudgetWindowS,
);

/**
 * The canary of Spread and Serial (rollingUpdate.canary.nodes): the first 1 % of the schedule (Spread)
 * or of the line (Serial) goes alone first.
 */
const SPREAD_CANARY = '1%';

/** In the kubelet drop-in of the breaking change: the simulated kubelet dies at start with it. */
const BREAK_MARK = 'NODEHERD_BENCH_BREAKS_KUBELET';
/**
 * The breaking change has stopped spreading once no node started it for this long (scaled): longer
 * than a broken node takes to report Failed (the unit timeout) plus the controller's reaction.
 */
const SETTLE_MS = scaledMs(REAL.unitTimeoutS) + 2_000;
/** Longest a phase may take (scaled) before it is reported as not finished: 30 min real, at least 3 min. */
const PHASE_DEADLINE_MS = Math.max(180_000, scaledMs(1800));
/** Longest the breaking change is followed (scaled): the window, the unit timeout and the settling. */
const BROKEN_DEADLINE_MS = scaledMs(REAL.spreadWindowS + REAL.unitTimeoutS) + 3 * SETTLE_MS;

function kubeletConfig(value: string, breaks = false): NodeConfigSpec {
  return {
    files: [
      { path: '/etc/kubernetes/kubelet-extra.conf', content: { inline: { data: `value: ${value}\n` } } },
    ],
    units: [
      {
        name: 'kubelet.service',
        dropIns: [
          {
            name: '20-nodeherd.conf',
            content: `[Service]\nEnvironment=NODEHERD_VALUE=${value}${breaks ? ` ${BREAK_MARK}=1` : ''}\n`,
          },
        ],
        filePaths: ['/etc/kubernetes/kubelet-extra.conf'],
        healthProbe: { http: { url: 'http://127.0.0.1:10248/healthz' }, timeoutSeconds: 1 },
      },
    ],
  };
}

function rendered(spec: NodeConfigSpec) {
  const result = renderConfigs([
    { apiVersion: 'nodeherd.io/v1alpha1', kind: 'NodeConfig', metadata: { name: 'kubelet' }, spec },
  ]);
  if (!result.config || !result.hash) throw new Error(`render failed: ${JSON.stringify(result.errors)}`);
  return {
    config: result.config,
    hash: result.hash,
    hashAlgorithm: result.hashAlgorithm,
    sources: result.sources,
  };
}

/** The revision name the controller gives this spec in the pool. */
const controllerRevisionName = (spec: NodeConfigSpec) => revisionName(POOL, rendered(spec).hash);

/** Small seeded generator (mulberry32): the same offsets on every run with the same seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The most of `times` within any interval of `widthMs`. */
function densest(times: number[], widthMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let first = 0, last = 0; last < sorted.length; last++) {
    while (sorted[last]! - sorted[first]! > widthMs) first++;
    best = Math.max(best, last - first + 1);
  }
  return best;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
/** The n-th smallest (1-based) of values, or NaN when there are fewer. */
const nth = (values: number[], n: number) => [...values].sort((a, b) => a - b)[n - 1] ?? Number.NaN;

/**
 * What the server holds for every node, from the fleet's watch: NotReady count and its peak, and per
 * phase (one target revision) when each node started applying, failed, and was healthy on it.
 */
class NodeView {
  /** NotReady nodes and since when. */
  private readonly notReadyNodes = new Map<string, number>();
  peakNotReady = 0;
  /**
   * Peak of NotReady nodes that were updating (started on the phase's target and not yet healthy on
   * it): what the rollout disrupted, without nodes NotReady on their own (a kubelet lease renewed late
   * by a loaded simulator, say).
   */
  peakNotReadyUpdating = 0;
  /** How long each node that turned Ready again in this phase had been NotReady. */
  notReadyDurations: number[] = [];
  target: string | undefined;
  started = new Map<string, number>();
  /** Spread: each node's not-before for the target as last seen, and how often one was rewritten. */
  notBefore = new Map<string, string>();
  notBeforeRewrites = 0;
  failed = new Set<string>();
  healthy = new Map<string, number>();
  /** Per node, when the watch first showed each step of its update to the target (stage breakdown). */
  desiredAt = new Map<string, number>();
  /** Serial: when the controller's hand-over of a slot showed on the Node (nodeherd.io/serial-slot). */
  slotAt = new Map<string, number>();
  notReadyAt = new Map<string, number>();
  readyAgainAt = new Map<string, number>();
  doneAt = new Map<string, number>();
  configReadyAt = new Map<string, number>();

  get notReady(): number {
    return this.notReadyNodes.size;
  }

  /** A new phase: counts and the peak start from the current state. */
  phase(target: string): void {
    this.target = target;
    this.started = new Map();
    this.notBefore = new Map();
    this.notBeforeRewrites = 0;
    this.failed = new Set();
    this.healthy = new Map();
    this.desiredAt = new Map();
    this.slotAt = new Map();
    this.notReadyAt = new Map();
    this.readyAgainAt = new Map();
    this.doneAt = new Map();
    this.configReadyAt = new Map();
    this.peakNotReady = this.notReadyNodes.size;
    this.peakNotReadyUpdating = 0;
    this.notReadyDurations = [];
  }

  observe(name: string, node: KubeObject | undefined): void {
    const at = performance.now();
    if (node === undefined) {
      this.notReadyNodes.delete(name);
      return;
    }
    const ready = readyConditionOf(node)?.status;
    const since = this.notReadyNodes.get(name);
    if (ready === 'True') {
      if (since !== undefined) this.notReadyDurations.push(at - since);
      this.notReadyNodes.delete(name);
    } else if (since === undefined) {
      this.notReadyNodes.set(name, at);
      this.peakNotReady = Math.max(this.peakNotReady, this.notReadyNodes.size);
    }
    const annotations = node.metadata?.annotations ?? {};
    const state = annotations[STATE_ANNOTATION];
    const target = this.target;
    if (target === undefined || annotations[DESIRED_REVISION_ANNOTATION] !== target) return;
    if (!this.desiredAt.has(name)) this.desiredAt.set(name, at);
    if (annotations[SERIAL_SLOT_ANNOTATION] !== undefined && !this.slotAt.has(name))
      this.slotAt.set(name, at);
    if (this.started.has(name)) {
      if (ready !== 'True' && !this.notReadyAt.has(name)) this.notReadyAt.set(name, at);
      if (ready === 'True' && this.notReadyAt.has(name) && !this.readyAgainAt.has(name))
        this.readyAgainAt.set(name, at);
      if (state === 'Done' && annotations[CURRENT_REVISION_ANNOTATION] === target && !this.doneAt.has(name))
        this.doneAt.set(name, at);
      const configReady = (node.status as { conditions?: KubeObject[] } | undefined)?.conditions?.find(
        (c) => c.type === NODE_CONFIG_READY_CONDITION,
      );
      if (this.doneAt.has(name) && configReady?.status === 'True' && !this.configReadyAt.has(name))
        this.configReadyAt.set(name, at);
    }
    const notBefore = annotations[NOT_BEFORE_ANNOTATION];
    if (notBefore !== undefined) {
      const seen = this.notBefore.get(name);
      if (seen !== undefined && seen !== notBefore) this.notBeforeRewrites++;
      this.notBefore.set(name, notBefore);
    }
    // The state alone may still describe the previous revision; state-revision says which it is about.
    const stateRevision = annotations[STATE_REVISION_ANNOTATION];
    const aboutTarget = stateRevision === undefined || stateRevision === target;
    if (aboutTarget && (state === 'Applying' || state === 'Verifying' || state === 'Failed')) {
      if (!this.started.has(name)) this.started.set(name, at);
      if (state === 'Failed') this.failed.add(name);
    }
    if (
      !this.healthy.has(name) &&
      ready === 'True' &&
      state === 'Done' &&
      annotations[CURRENT_REVISION_ANNOTATION] === target
    ) {
      this.healthy.set(name, at);
      if (!this.started.has(name)) this.started.set(name, at);
    }
    if (ready !== 'True') {
      let updating = 0;
      for (const notReady of this.notReadyNodes.keys())
        if (this.started.has(notReady) && !this.healthy.has(notReady)) updating++;
      this.peakNotReadyUpdating = Math.max(this.peakNotReadyUpdating, updating);
    }
  }
}

/**
 * STRATEGY_BENCH_TRACE: when each node's agent logged each step of the phase's update (its logger's
 * messages, actions by id), to set beside the watch's view: where a hand-over's time goes on the node.
 */
class AgentTrace {
  readonly enabled = process.env.STRATEGY_BENCH_TRACE === '1';
  private steps = new Map<string, Map<string, number>>();
  private recording = false;

  /** A logger for the agents: records the first time each node logs each step while recording. */
  logger(): Logger {
    const make = (fields: LogFields): Logger => {
      const log = (first: LogFields | string, message?: string) => {
        const node = fields.node;
        if (!this.recording || typeof node !== 'string') return;
        const step =
          typeof first === 'string'
            ? first
            : `${message ?? ''}${first.action ? ` ${String(first.action)}` : ''}`;
        const steps = this.steps.get(node) ?? new Map<string, number>();
        this.steps.set(node, steps);
        if (!steps.has(step)) steps.set(step, performance.now());
      };
      return { debug: log, info: log, warn: log, error: log, child: (more) => make({ ...fields, ...more }) };
    };
    return make({});
  }

  start(): void {
    this.steps = new Map();
    this.recording = true;
  }

  /** Medians (and p90) of each step from the node being given the target, in the order they happen. */
  report(view: NodeView): string[] {
    this.recording = false;
    const since = new Map<string, number[]>();
    const add = (step: string, ms: number) => since.set(step, [...(since.get(step) ?? []), ms]);
    for (const [node, given] of view.desiredAt) {
      for (const [step, at] of this.steps.get(node) ?? []) add(`agent: ${step}`, at - given);
      const applying = view.started.get(node);
      if (applying !== undefined) add('watch: Applying', applying - given);
      const notReady = view.notReadyAt.get(node);
      if (notReady !== undefined) add('watch: NotReady', notReady - given);
    }
    const p = (values: number[], q: number) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length * q)]!;
    return [...since]
      .sort((a, b) => median(a[1]) - median(b[1]))
      .map(
        ([step, values]) =>
          `${median(values).toFixed(0)} ms (p90 ${p(values, 0.9).toFixed(0)}, ${values.length} nodes) ${step}`,
      );
  }
}

interface GoodResult {
  peakNotReady: number;
  /** The peak of NotReady nodes that were updating (NodeView.peakNotReadyUpdating). */
  peakNotReadyUpdating: number;
  /** Median time a node was NotReady (scaled ms). */
  notReadyP50Ms: number;
  /** Most nodes that started applying within one kubelet restart time: how evenly starts were spaced. */
  maxStartsPerRestart: number;
  /**
   * Median time from the k-th node turning healthy to the (k + limit)-th start (scaled ms): how long a
   * freed place in the budget stayed unused before the next node took it.
   */
  handoffP50Ms: number;
  /** The same, 90th percentile (scaled ms): a long tail here is places left free for seconds. */
  handoffP90Ms: number;
  /** Where a hand-over's time goes: medians of each step of a node's update (scaled ms), see stagesOf. */
  stages: [string, number][];
  /** Median time from a node's start to it being healthy on the target (scaled ms). */
  updateP50Ms: number;
  /** From the change to the first node's start (scaled ms). */
  firstStartMs: number;
  /**
   * Nodes updating (started, not yet healthy) on average from the first start to the last healthy
   * node, ÷ the limit: how full the budget was kept (1: a place never stayed free).
   */
  occupancy: number;
  /**
   * Places in use on average in each tenth of the time from the first start to the last healthy node
   * (÷ the limit): where a rollout left places free (at the start, along the way, or in its last turn).
   */
  occupancyByTenth: number[];
  /** From the change to the last node's start (scaled ms). */
  lastStartMs: number;
  /**
   * The first turn: from the change to the limit-th node given the target and to the limit-th node
   * applying (scaled ms). A first turn spread over seconds delays every later turn by as much.
   */
  firstTurnGivenMs: number;
  firstTurnStartedMs: number;
  /** Spread: most not-before times within one kubelet restart time (the schedule's own density), and rewrites. */
  maxNotBeforePerRestart: number;
  notBeforeRewrites: number;
  totalMs: number;
  finished: boolean;
}

interface BrokenResult {
  hit: number;
  failed: number;
  peakNotReady: number;
  /** From the change to the last node that started applying it. */
  lastHitMs: number;
  settled: boolean;
}

/**
 * Medians of each step of a node's update, as the watch saw them: a freed place to the next node given
 * the target (the controller), given to applying (the agent), applying to NotReady (the apply up to the
 * kubelet restart), NotReady to Ready (the restart), Ready to Done (the agent's verification and
 * report), Done to NodeConfigReady, and the last of those to healthy. Serial gives every node the target
 * at once: there the hand-over's own step is a slot handed (the Node's serial-slot) to applying.
 */
function stagesOf(view: NodeView): [string, number][] {
  const between = (from: Map<string, number>, to: Map<string, number>) =>
    median([...to].flatMap(([name, at]) => (from.has(name) ? [at - from.get(name)!] : [])));
  const healthy = [...view.healthy.values()].sort((a, b) => a - b);
  const desired = [...view.desiredAt.values()].sort((a, b) => a - b);
  const freedToDesired = median(
    healthy.slice(0, Math.max(0, desired.length - LIMIT)).map((h, k) => desired[k + LIMIT]! - h),
  );
  return [
    ['freed → next given the target', freedToDesired],
    ['given → applying', between(view.desiredAt, view.started)],
    ...(view.slotAt.size > 0
      ? [
          [
            `slot handed (Node annotation, ${view.slotAt.size} nodes) → applying`,
            between(view.slotAt, view.started),
          ] as [string, number],
        ]
      : []),
    ['applying → NotReady', between(view.started, view.notReadyAt)],
    ['NotReady → Ready', between(view.notReadyAt, view.readyAgainAt)],
    ['Ready → Done', between(view.readyAgainAt, view.doneAt)],
    ['Done → NodeConfigReady', between(view.doneAt, view.configReadyAt)],
    ['NodeConfigReady → healthy', between(view.configReadyAt, view.healthy)],
  ];
}

/** Waits until every node is healthy on the phase's target, or the deadline. */
async function allHealthy(view: NodeView, t0: number): Promise<GoodResult> {
  const handoffGaps = () => {
    const healthy = [...view.healthy.values()].sort((a, b) => a - b);
    const starts = [...view.started.values()].sort((a, b) => a - b);
    return healthy.slice(0, Math.max(0, starts.length - LIMIT)).map((h, k) => starts[k + LIMIT]! - h);
  };
  const handoffs = () => median(handoffGaps());
  const handoffsP90 = () => {
    const gaps = handoffGaps().sort((a, b) => a - b);
    return gaps.length > 0 ? gaps[Math.min(gaps.length - 1, Math.floor(gaps.length * 0.9))]! : Number.NaN;
  };
  const updates = () => median([...view.healthy].map(([name, at]) => at - (view.started.get(name) ?? at)));
  /** Each node's update, start to healthy, and the time from the first start to the last healthy. */
  const updateSpans = () => {
    const spans = [...view.healthy].map(([name, at]) => [view.started.get(name) ?? at, at] as const);
    const from = Math.min(...spans.map(([start]) => start));
    return { spans, from, to: Math.max(...spans.map(([, end]) => end)) };
  };
  const occupancy = () => {
    const { spans, from, to } = updateSpans();
    return spans.reduce((sum, [start, end]) => sum + (end - start), 0) / Math.max(1, to - from) / LIMIT;
  };
  const occupancyByTenth = () => {
    const { spans, from, to } = updateSpans();
    const step = Math.max(1, to - from) / 10;
    return Array.from({ length: 10 }, (_, i) => {
      const [a, b] = [from + i * step, from + (i + 1) * step];
      const busy = spans.reduce(
        (sum, [start, end]) => sum + Math.max(0, Math.min(end, b) - Math.max(start, a)),
        0,
      );
      return busy / step / LIMIT;
    });
  };
  const result = (totalMs: number, finished: boolean): GoodResult => ({
    peakNotReady: view.peakNotReady,
    peakNotReadyUpdating: view.peakNotReadyUpdating,
    notReadyP50Ms: median(view.notReadyDurations),
    maxStartsPerRestart: densest([...view.started.values()], scaledMs(REAL.kubeletRestartS)),
    maxNotBeforePerRestart: densest(
      [...view.notBefore.values()].map(Date.parse),
      scaledMs(REAL.kubeletRestartS),
    ),
    notBeforeRewrites: view.notBeforeRewrites,
    handoffP50Ms: handoffs(),
    handoffP90Ms: handoffsP90(),
    stages: stagesOf(view),
    updateP50Ms: updates(),
    firstStartMs: view.started.size > 0 ? Math.min(...view.started.values()) - t0 : Number.NaN,
    occupancy: occupancy(),
    occupancyByTenth: view.healthy.size > 0 ? occupancyByTenth() : [],
    lastStartMs: view.started.size > 0 ? Math.max(...view.started.values()) - t0 : Number.NaN,
    firstTurnGivenMs: nth([...view.desiredAt.values()], LIMIT) - t0,
    firstTurnStartedMs: nth([...view.started.values()], LIMIT) - t0,
    totalMs,
    finished,
  });
  for (;;) {
    if (view.healthy.size >= NODES && view.notReady === 0)
      return result(Math.max(...view.healthy.values()) - t0, true);
    if (performance.now() - t0 > PHASE_DEADLINE_MS) return result(Number.NaN, false);
    await sleep(50);
  }
}

/**
 * Waits until the breaking change has stopped spreading: some node started it, and no node started it
 * for SETTLE_MS (or every node has it). Broken nodes stay NotReady, and their agents retry now and
 * then: the agent restores the previous revision itself only under failurePolicy Rollback, and the
 * default is Pause.
 */
async function settled(view: NodeView, t0: number): Promise<BrokenResult> {
  for (;;) {
    const lastHit = view.started.size > 0 ? Math.max(...view.started.values()) : t0;
    const now = performance.now();
    const done = view.started.size > 0 && (view.started.size >= NODES || now - lastHit > SETTLE_MS);
    const overdue = now - t0 > BROKEN_DEADLINE_MS;
    if (done || overdue) {
      return {
        hit: view.started.size,
        failed: view.failed.size,
        peakNotReady: view.peakNotReady,
        lastHitMs: lastHit - t0,
        settled: done,
      };
    }
    await sleep(50);
  }
}

interface RequestFigures {
  total: number;
  perSecond: number;
  /** "verb resource" → requests, most first. */
  byKind: [string, number][];
  /** Of those, the ones answered 409 (lost compare-and-swap or create races), by "verb resource". */
  conflicts: [string, number][];
}

interface StrategyResult {
  strategy: Strategy;
  good: GoodResult;
  broken: BrokenResult;
  kubeletDeaths: number;
  setupS: number;
  /** API requests the server received during the good change (change → every node Ready and Done). */
  requests: RequestFigures;
  /** Peak RSS (VmHWM) of the controller process, MB; undefined for jitter (no controller). */
  controllerPeakMb: number | undefined;
  /** Event-loop delay of the process running the simulated nodes during the good change, ms. */
  simLoopDelayMs: { p99: number; max: number };
  /** STRATEGY_BENCH_TRACE: the agents' steps during the good change (AgentTrace.report). */
  agentSteps: string[];
  /**
   * Watch events the simulated nodes (their agents, and the bench's own watch of every Node) received
   * during the good change, by the kind of object: what the API server fanned out to them.
   */
  simWatchEvents: [string, number][];
  /**
   * The simulated nodes' failed requests during the good change, by what failed (lease, status, agent,
   * watch), each with the first error's message: a node whose Lease renewals keep failing goes NotReady
   * on its own after the grace period, which the rollout counts against the change.
   */
  simFailures: [string, number, string][];
  /** The controller's pool reconciles during the good change (where a rollout's waits go). */
  reconciles: ControllerCounters | undefined;
  /** The machine's 1-minute load average as the good change started and as it ended. */
  load: [number, number];
  /** RSS and peak RSS of the API server at the end, MB. */
  serverRssMb: number;
  /** CPU seconds (user + system) the API server used during the good change. */
  serverCpuS: number;
  /** CPU of this process (the simulated nodes: agents, kubelets, the harness) during the good change. */
  simCpuS: number;
  serverPeakMb: number;
  /** Client connections the API server had open at most (the simulated nodes' pools, the controller). */
  serverPeakConnections: number;
}

function requestsBetween(
  before: Record<string, number>,
  after: Record<string, number>,
  ms: number,
): RequestFigures {
  const all = Object.entries(after)
    .map(([kind, count]): [string, number] => [kind, count - (before[kind] ?? 0)])
    .filter(([, count]) => count > 0)
    .sort((a, b) => b[1] - a[1]);
  const byKind = all.filter(([kind]) => !kind.endsWith(' 409'));
  const conflicts = all
    .filter(([kind]) => kind.endsWith(' 409'))
    .map(([kind, count]): [string, number] => [kind.slice(0, -4), count]);
  const total = byKind.reduce((sum, [, count]) => sum + count, 0);
  return { total, perSecond: total / (ms / 1000), byKind, conflicts };
}

interface ControllerCounters {
  /** Pool reconciles, their total seconds, and the ones that failed (retried after a back-off). */
  poolReconciles: number;
  poolReconcileSeconds: number;
  poolReconcileErrors: number;
  /** Seconds the rollout queue's items waited before a worker took them, summed. */
  queueWaitSeconds: number;
  queueWaits: number;
  /** The controller process's CPU time (user + system), seconds. */
  cpuSeconds: number;
}

/** The counters of the controller's /metrics that say where a rollout's time goes. */
async function controllerCounters(
  port: number | undefined,
  pid: number | undefined,
  kubeconfig: string,
): Promise<ControllerCounters | undefined> {
  if (port === undefined || pid === undefined) return undefined;
  const text = await scrapeControllerMetrics(`http://127.0.0.1:${port}/metrics`, kubeconfig);
  const value = (pattern: string) =>
    Number(new RegExp(`^${pattern} ([0-9.e+-]+)$`, 'm').exec(text)?.[1] ?? 0);
  return {
    poolReconciles: value('nodeherd_reconcile_duration_seconds_count\\{kind="pool"\\}'),
    poolReconcileSeconds: value('nodeherd_reconcile_duration_seconds_sum\\{kind="pool"\\}'),
    poolReconcileErrors: value('nodeherd_reconcile_errors_total\\{kind="pool"\\}'),
    queueWaitSeconds: value('workqueue_queue_duration_seconds_sum\\{name="rollout"\\}'),
    queueWaits: value('workqueue_queue_duration_seconds_count\\{name="rollout"\\}'),
    cpuSeconds: processCpuSeconds(pid),
  };
}

function subtractCounters(
  after: ControllerCounters | undefined,
  before: ControllerCounters | undefined,
): ControllerCounters | undefined {
  if (!after || !before) return undefined;
  const keys = Object.keys(after) as (keyof ControllerCounters)[];
  return Object.fromEntries(keys.map((k) => [k, after[k] - before[k]])) as unknown as ControllerCounters;
}

/** VmHWM of a process, MB (undefined once it exited). */
function peakRssMb(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN) / 1024;
  } catch {
    return undefined;
  }
}

function strategySpec(strategy: Exclude<Strategy, 'jitter'>): Record<string, unknown> {
  switch (strategy) {
    case 'Spread':
      return {
        type: 'Spread',
        rollingUpdate: { canary: { nodes: SPREAD_CANARY } },
        spread: { windowSeconds: SPREAD_WINDOW_S / SCALE, maxUnavailable: LIMIT },
      };
    case 'Serial':
      return {
        type: 'Serial',
        // Serial honours the canary as Spread does (issue 34): the first 1 % alone, then the slots.
        rollingUpdate: { canary: { nodes: SPREAD_CANARY } },
        serial: { slots: LIMIT, leaseDurationSeconds: REAL.serialLeaseS / SCALE },
      };
    case 'RollingUpdate':
      return {
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: LIMIT, progressDeadlineSeconds: 600 },
      };
  }
}

/** The zone of every node, in order: random (seeded) from the second run on, round-robin before. */
function zonesFor(run: number): string[] | undefined {
  if (run === 0) return undefined;
  const rand = random(SEED * 1000 + run);
  const zones = ['zone-a', 'zone-b', 'zone-c', 'zone-d'].slice(0, 2 + Math.floor(rand() * 3));
  return Array.from({ length: NODES }, () => zones[Math.floor(rand() * zones.length)]!);
}

async function runStrategy(strategy: Strategy, run = 0): Promise<StrategyResult> {
  const setupStarted = performance.now();
  const dataDir = mkdtempSync(join(tmpdir(), 'nodeherd-strategy-bench-'));
  const stateRoot = mkdtempSync(join(tmpdir(), 'nodeherd-strategy-bench-agents-'));
  const server = await startApiServerProcess({
    dataDir,
    nodeFlags: profileFlags('apiserver'),
    // The node lease and grace period stay real (40 s, renewed every 10 s): scaled, 1,000 kubelets
    // renew 1,000 times a second and starve the simulator, whose late renewals then turn Ready nodes
    // Unknown. Restarted kubelets post NotReady themselves, so the figures do not depend on the grace.
    env: { BENCH_NODE_MONITOR_GRACE_MS: String(REAL.leaseS * 1000) },
  });
  const kubeconfig = adminKubeconfigPath(dataDir);
  // Every simulated node talks through this one client: it keeps up to one idle connection per node,
  // as each node's own agent would. With the transport's default of 2 idle connections, every burst
  // of requests ended in new TLS connections (a third of the simulator's CPU at 1,000 nodes).
  const light = LightKubeClient.fromKubeconfig(kubeconfig, { maxFreeSockets: NODES });
  // The kubelets' own pool, with kubelet's heartbeat timeout: a renewal that hangs is tried again
  // after 10 s, not after the transport's 30 s (which with the retry reached the 40 s grace).
  const kubeletLight = LightKubeClient.fromKubeconfig(kubeconfig, {
    maxFreeSockets: NODES,
    requestTimeoutMs: KUBELET_REQUEST_TIMEOUT_MS,
  });
  const view = new NodeView();
  const trace = new AgentTrace();
  let kubeletDeaths = 0;
  const simFailures = new Map<string, { count: number; first: string }>();
  const fleet = new Fleet({
    onError: (_node, error, during) => {
      const seen = simFailures.get(during);
      if (seen) seen.count++;
      else simFailures.set(during, { count: 1, first: error.message });
    },
    clientFor: sharedClient(light),
    kubeletClientFor: sharedClient(kubeletLight),
    adminClient: light,
    startConcurrency: 64,
    leaseDurationSeconds: REAL.leaseS,
    renewIntervalMs: (REAL.leaseS * 1000) / 4,
    // The kubelet process is back at once; the server sees it NotReady for its startup time.
    startupNotReadyMs: scaledMs(REAL.kubeletRestartS),
    systemd: { targetDurations: { 'kubelet.service': { restart: 100 } } },
    faults: {
      kubeletStartFails: ({ definition }) => {
        if (!definition?.includes(BREAK_MARK)) return false;
        kubeletDeaths++;
        return 'kubelet: unknown flag in its drop-in (the benchmark’s breaking change)';
      },
    },
    agent: simulatedNodeAgents({
      stateRoot,
      agent: {
        unitTimeoutMs: scaledMs(REAL.unitTimeoutS),
        ...(trace.enabled ? { logger: trace.logger() } : {}),
      },
    }),
    onServerChange: (name, node) => view.observe(name, node),
  });
  let controller: ChildProcess | undefined;
  let metricsPort: number | undefined;
  try {
    const zones = zonesFor(run);
    // STRATEGY_BENCH_OS=rpm: the pool's nodes are RPM nodes (dnf), as on RHEL and its rebuilds.
    const rpm = process.env.STRATEGY_BENCH_OS === 'rpm' ? { packageManager: 'dnf' as const } : {};
    await fleet.add(NODES, { labels: { pool: POOL }, ...(zones ? { zones } : {}), ...rpm });
    await fleet.synced();
    const specs = [kubeletConfig('v0'), kubeletConfig('v1'), kubeletConfig('v2', true)] as const;
    let change: (spec: NodeConfigSpec) => Promise<string>;
    if (strategy === 'jitter') {
      const rand = random(SEED);
      let generation = 0;
      change = async (spec) => {
        const revision = buildRevision(
          {
            apiVersion: 'nodeherd.io/v1alpha1',
            kind: 'NodeConfigPool',
            metadata: { name: 'jitter' },
            spec: { nodeSelector: {}, configSelector: {} },
          },
          rendered(spec),
          ++generation,
        );
        await light.create(`${GROUP}/nodeconfigrevisions`, revision);
        const name = revision.metadata.name;
        // What a bash loop over the nodes does, with the agent's Spread gate for the sleep: every node
        // gets the revision now and a random not-before in the window. The bootstrap goes everywhere at once.
        const windowMs = generation === 1 ? 0 : scaledMs(REAL.windowS);
        const start = Date.now();
        view.phase(name);
        const queue = fleet.names().map((node) => ({ node, at: start + rand() * windowMs }));
        await Promise.all(
          Array.from({ length: 32 }, async () => {
            for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
              const annotations = {
                [DESIRED_REVISION_ANNOTATION]: name,
                [NOT_BEFORE_ANNOTATION]: windowMs > 0 ? new Date(next.at).toISOString() : null,
              };
              await light.patch(`/api/v1/nodes/${next.node}`, { metadata: { annotations } });
            }
          }),
        );
        return name;
      };
    } else {
      metricsPort = await freePort();
      controller = startController(kubeconfig, metricsPort);
      const apply = async (spec: NodeConfigSpec) => {
        const body = {
          apiVersion: 'nodeherd.io/v1alpha1',
          kind: 'NodeConfig',
          metadata: { name: 'kubelet', labels: { pool: POOL } },
          spec,
        };
        try {
          await light.create(`${GROUP}/nodeconfigs`, body);
        } catch (err) {
          if (!isKubeError(err, 409)) throw err;
          await light.patch(`${GROUP}/nodeconfigs/kubelet`, { spec }, 'merge');
        }
      };
      change = async (spec) => {
        const name = controllerRevisionName(spec);
        view.phase(name);
        await apply(spec);
        return name;
      };
      await light.create(`${GROUP}/nodeconfigpools`, {
        apiVersion: 'nodeherd.io/v1alpha1',
        kind: 'NodeConfigPool',
        metadata: { name: POOL },
        spec: {
          nodeSelector: { matchLabels: { pool: POOL } },
          configSelector: { matchLabels: { pool: POOL } },
          // Bootstrap: every node at once; the strategy under test is set afterwards.
          updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '100%' } },
        },
      });
    }

    const bootstrapStart = performance.now();
    await change(specs[0]);
    const bootstrap = await allHealthy(view, bootstrapStart);
    if (!bootstrap.finished) throw new Error(`${strategy}: bootstrap to v0 did not finish`);
    if (strategy !== 'jitter')
      await light.patch(
        `${GROUP}/nodeconfigpools/${POOL}`,
        { spec: { updateStrategy: strategySpec(strategy) } },
        'merge',
      );
    await sleep(2_000);
    const setupS = (performance.now() - setupStarted) / 1000;

    let t0 = performance.now();
    // The simulated nodes (agents and kubelets) share this process: a stalled loop starts nodes late, together.
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const requestsBefore = await server.requests();
    const reconcilesBefore = await controllerCounters(metricsPort, controller?.pid, kubeconfig);
    const loadBefore = loadAverage();
    const serverCpuBefore = processCpuSeconds(server.pid);
    const simCpuBefore = processCpuSeconds(process.pid);
    if (trace.enabled) trace.start();
    const eventsBefore = light.stats().watchEventsByKind;
    simFailures.clear();
    await change(specs[1]);
    const good = await allHealthy(view, t0);
    const serverCpuS = processCpuSeconds(server.pid) - serverCpuBefore;
    const simCpuS = processCpuSeconds(process.pid) - simCpuBefore;
    const agentSteps = trace.enabled ? trace.report(view) : [];
    const requests = requestsBetween(
      requestsBefore,
      await server.requests(),
      good.finished ? good.totalMs : performance.now() - t0,
    );
    const reconciles = subtractCounters(
      await controllerCounters(metricsPort, controller?.pid, kubeconfig),
      reconcilesBefore,
    );
    const load: [number, number] = [loadBefore, loadAverage()];
    const goodFailures = [...simFailures].map(([during, { count, first }]): [string, number, string] => [
      during,
      count,
      first,
    ]);
    const simWatchEvents = Object.entries(light.stats().watchEventsByKind)
      .map(([kind, count]): [string, number] => [kind, count - (eventsBefore[kind] ?? 0)])
      .filter(([, count]) => count > 0)
      .sort((a, b) => b[1] - a[1]);
    loopDelay.disable();
    const simLoopDelayMs = { p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 };
    await sleep(2_000);

    t0 = performance.now();
    await change(specs[2]);
    const broken = await settled(view, t0);
    const serverMemory = await server.memory(false);
    return {
      strategy,
      good,
      broken,
      kubeletDeaths,
      setupS,
      requests,
      controllerPeakMb: peakRssMb(controller?.pid),
      simLoopDelayMs,
      agentSteps,
      simWatchEvents,
      simFailures: goodFailures,
      reconciles,
      load,
      serverRssMb: serverMemory.rssMb,
      serverCpuS,
      simCpuS,
      serverPeakMb: serverMemory.peakMb,
      serverPeakConnections: serverMemory.peakConnections,
    };
  } finally {
    if (controller) {
      controller.kill('SIGTERM');
      await new Promise((resolve) => controller!.once('exit', resolve));
    }
    await fleet.close();
    light.close();
    kubeletLight.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(stateRoot, { recursive: true, force: true });
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** STRATEGY_BENCH_CPU_PROF_DIR: CPU profiles of the API server and the controller go there. */
function profileFlags(process_: string): string[] {
  const dir = process.env.STRATEGY_BENCH_CPU_PROF_DIR;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${join(dir, process_)}`] : [];
}

/** What runs as the controller: the bundle the image ships (built in main), or the sources. */
let controllerEntry = CONTROLLER_SOURCE_ENTRY;
const controllerFlags = process.env.STRATEGY_BENCH_CONTROLLER_SOURCE === '1' ? [] : SHIPPED_CONTROLLER_FLAGS;

function startController(kubeconfig: string, metricsPort: number): ChildProcess {
  return spawn(
    ...diesWithParent(process.execPath, [
      ...controllerFlags,
      ...profileFlags('controller'),
      controllerEntry,
      '--kubeconfig',
      kubeconfig,
      '--no-leader-elect',
      '--metrics-address',
      `127.0.0.1:${metricsPort}`,
      '--log-level',
      process.env.STRATEGY_BENCH_CONTROLLER_LOG ?? 'warn',
    ]),
    { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] },
  );
}

/**
 * Spread (issue 17): a breaking change stops after at most the canary plus one spacing's worth of
 * nodes (one node: the spacing is window ÷ nodes). Serial (issue 34): at most the canary, which
 * alone has the target (and so takes slots) until it is updated.
 */
function hitTarget(strategy: Strategy): { target?: { op: '<='; value: number } } {
  if (strategy !== 'Spread' && strategy !== 'Serial') return {};
  const canary = Math.ceil((Number.parseInt(SPREAD_CANARY, 10) * NODES) / 100);
  return { target: { op: '<=', value: strategy === 'Spread' ? canary + 1 : canary } };
}

const seconds = (ms: number) => (Number.isFinite(ms) ? `${realS(ms).toFixed(0)} s` : 'not finished');
/** To a tenth of a second, where whole seconds hide the difference (a hand-over's median and p90). */
const tenths = (ms: number) => (Number.isFinite(ms) ? `${realS(ms).toFixed(1)} s` : '-');

/**
 * A strategy's details and figures, printed as soon as its first run ends, so that a strategy that
 * crashes later (Serial at 5,000 nodes ran the process out of heap) does not take them along.
 */
function reportStrategy(r: StrategyResult): void {
  const limitS = Math.ceil(NODES / LIMIT) * REAL.kubeletRestartS;
  const ratio = realS(r.good.totalMs) / limitS;
  console.log(`${r.strategy}, the good change:`);
  console.log(
    `  requests during the good change: ${r.requests.total}, ${r.requests.byKind
      .slice(0, 8)
      .map(([kind, count]) => `${kind} ${count}`)
      .join(
        ', ',
      )}; answered 409: ${r.requests.conflicts.map(([kind, count]) => `${kind} ${count}`).join(', ') || 'none'}`,
  );
  // The window the requests were counted over: the good change, until every node was healthy on it.
  const goodS = r.requests.total / r.requests.perSecond;
  console.log(
    `  API server CPU during the good change: ${r.serverCpuS.toFixed(1)} s, ${((r.serverCpuS / goodS) * 100).toFixed(0)} % of a core, ${((r.serverCpuS * 1000) / Math.max(1, r.requests.total)).toFixed(2)} ms per request`,
  );
  console.log(
    `  a node from its start to healthy: ${seconds(r.good.updateP50Ms)} (median); a place freed in the budget to the next start: ${tenths(r.good.handoffP50Ms)} (median; p90 ${tenths(r.good.handoffP90Ms)}); the first start ${seconds(r.good.firstStartMs)} after the change; from then on ${(r.good.occupancy * LIMIT).toFixed(0)} of ${LIMIT} places in use on average (by tenth of that time: ${r.good.occupancyByTenth.map((o) => (o * LIMIT).toFixed(0)).join(', ')}); the last start ${seconds(r.good.lastStartMs)} after the change; the ${LIMIT}th node given the target ${tenths(r.good.firstTurnGivenMs)}, applying ${tenths(r.good.firstTurnStartedMs)} after the change`,
  );
  console.log(
    `  steps, medians on the scaled clock: ${r.good.stages.map(([step, ms]) => `${step} ${ms.toFixed(0)} ms`).join(', ')}`,
  );
  console.log(
    `  simulated nodes' CPU during the good change (agents, kubelets, harness): ${r.simCpuS.toFixed(1)} s, ${((r.simCpuS / goodS) * 100).toFixed(0)} % of a core`,
  );
  console.log(
    `  simulated nodes' event loop during the good change: delay p99 ${r.simLoopDelayMs.p99.toFixed(0)} ms, max ${r.simLoopDelayMs.max.toFixed(0)} ms (scaled clock)`,
  );
  for (const step of r.agentSteps) console.log(`  from given the target, scaled clock: ${step}`);
  console.log(
    `  watch events the simulated nodes received during the good change: ${r.simWatchEvents.map(([kind, count]) => `${kind} ${count} (${(count / NODES).toFixed(1)} per node updated)`).join(', ')}`,
  );
  console.log(
    `  the simulated nodes' failed requests during the good change: ${r.simFailures.map(([during, count, first]) => `${during} ${count} (the first: ${first})`).join(', ') || 'none'}`,
  );
  const c = r.reconciles;
  if (c)
    console.log(
      `  controller during the good change: ${c.poolReconciles} pool reconciles, ${((c.poolReconcileSeconds / Math.max(1, c.poolReconciles)) * 1000).toFixed(0)} ms each on average ` +
        `(${c.poolReconcileSeconds.toFixed(1)} s in all), ${c.poolReconcileErrors} failed and retried; queue wait ${((c.queueWaitSeconds / Math.max(1, c.queueWaits)) * 1000).toFixed(0)} ms on average; ` +
        `controller CPU ${c.cpuSeconds.toFixed(1)} s (${((100 * c.cpuSeconds) / (r.good.totalMs / 1000)).toFixed(0)} % of a core); ` +
        `load average ${r.load[0].toFixed(1)} → ${r.load[1].toFixed(1)}`,
    );
  const note = `${NODES} nodes, scale 1:${SCALE}`;
  const boundByLimit = r.strategy === 'RollingUpdate' || r.strategy === 'Serial';
  reportFigure({
    bench: 'strategies',
    name: `${r.strategy}: peak concurrently NotReady nodes that were updating`,
    value: r.good.peakNotReadyUpdating,
    unit: 'nodes',
    target: { op: '<=', value: LIMIT },
    note: `started on the change and not yet healthy on it (the peak above also counts nodes NotReady on their own); ${note}`,
  });
  reportFigure({
    bench: 'strategies',
    name: `${r.strategy}: total time ÷ physical limit`,
    value: ratio,
    unit: '×',
    ...(boundByLimit ? { target: { op: '<=' as const, value: 1.1 } } : {}),
    note: `limit ⌈${NODES}/${LIMIT}⌉ × ${REAL.kubeletRestartS} s NotReady = ${limitS} s; ${note}`,
  });
  reportFigure({
    bench: 'strategies',
    name: `${r.strategy}: API requests per second during the good change`,
    value: r.requests.perSecond,
    unit: 'requests/s',
    note: `on the 1:${SCALE} clock; ${r.requests.total} requests, most to ${r.requests.byKind
      .slice(0, 3)
      .map(([kind, count]) => `${kind} (${((count / Math.max(1, r.requests.total)) * 100).toFixed(0)} %)`)
      .join(', ')}; ${note}`,
  });
  reportFigure({
    bench: 'strategies',
    name: `${r.strategy}: API server CPU during the good change`,
    value: (r.serverCpuS / goodS) * 100,
    unit: '% of a core',
    note: `${r.serverCpuS.toFixed(1)} s, ${((r.serverCpuS * 1000) / Math.max(1, r.requests.total)).toFixed(2)} ms per request; ${note}`,
  });
  if (r.controllerPeakMb !== undefined)
    reportFigure({
      bench: 'strategies',
      name: `${r.strategy}: controller RSS, peak`,
      value: r.controllerPeakMb,
      unit: 'MB',
      target: { op: '<=', value: 300 },
      note,
    });
  reportFigure({
    bench: 'strategies',
    name: `${r.strategy}: API server RSS at the end`,
    value: r.serverRssMb,
    unit: 'MB',
    note: `peak ${r.serverPeakMb.toFixed(0)} MB, at most ${r.serverPeakConnections} client connections open (${(r.serverPeakConnections / NODES).toFixed(1)} per node; ~60–75 KB each); ${note}`,
  });
  reportFigure({
    bench: 'strategies',
    name: `${r.strategy}: peak concurrently NotReady nodes`,
    value: r.good.peakNotReady,
    unit: 'nodes',
    target: { op: '<=', value: LIMIT },
    note: `limit of concurrent disruption ${LIMIT}; a node NotReady ${seconds(r.good.notReadyP50Ms)} (median); ${note}`,
  });
  reportFigure({
    bench: 'strategies',
    name: `${r.strategy}: total time (change → every node Ready and Done)`,
    value: Number.isFinite(r.good.totalMs) ? realS(r.good.totalMs) : Number.NaN,
    unit: 's',
    note: `real seconds; ${note}`,
  });
  reportFigure({
    bench: 'strategies',
    name: `${r.strategy}: nodes hit by a change that breaks kubelet`,
    value: r.broken.hit,
    unit: 'nodes',
    ...hitTarget(r.strategy),
    note: `${r.broken.failed} reported Failed; last hit ${seconds(r.broken.lastHitMs)} after the change${r.broken.settled ? '' : '; not settled'}`,
  });
}

/**
 * Each strategy's run goes in a process of its own, as its API server and controller do: the simulated
 * nodes of one run (5,000 agents' state, their garbage, a heap grown to hold them) must not slow the
 * next one, or a strategy's figures would depend on the ones run before it.
 */
const CHILD_ENV = 'STRATEGY_BENCH_CHILD';
const CHILD_OUT_ENV = 'STRATEGY_BENCH_CHILD_OUT';
const CHILD_CONTROLLER_ENV = 'STRATEGY_BENCH_CONTROLLER_ENTRY';

// JSON has no NaN or Infinity (a figure not reached is one); they travel as strings.
const encodeNumbers = (_key: string, value: unknown) =>
  typeof value === 'number' && !Number.isFinite(value) ? `#${value}` : value;
const decodeNumbers = (_key: string, value: unknown) =>
  value === '#NaN' || value === '#Infinity' || value === '#-Infinity' ? Number(value.slice(1)) : value;

async function runInChild(strategy: Strategy, run: number): Promise<StrategyResult> {
  const out = join(mkdtempSync(join(tmpdir(), 'nodeherd-strategy-bench-run-')), 'result.json');
  try {
    const child = spawn(...diesWithParent(process.execPath, [...process.execArgv, import.meta.filename]), {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: {
        ...process.env,
        [CHILD_ENV]: `${strategy}:${run}`,
        [CHILD_OUT_ENV]: out,
        [CHILD_CONTROLLER_ENV]: controllerEntry,
      },
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`${strategy} (run ${run + 1}): the run's process exited with ${code}`);
    return JSON.parse(readFileSync(out, 'utf8'), decodeNumbers) as StrategyResult;
  } finally {
    rmSync(dirname(out), { recursive: true, force: true });
  }
}

/** In the run's own process: one strategy's run, its result written where the parent reads it. */
async function childMain(spec: string): Promise<void> {
  const [strategy, run] = spec.split(':') as [Strategy, string];
  controllerEntry = process.env[CHILD_CONTROLLER_ENV] ?? controllerEntry;
  const result = await runStrategy(strategy, Number(run));
  writeFileSync(process.env[CHILD_OUT_ENV]!, JSON.stringify(result, encodeNumbers));
  // The fleet, server and controller are closed; a handle left behind must not keep the run going.
  process.exit(0);
}

async function main(): Promise<void> {
  const started = performance.now();
  const bundleDir = mkdtempSync(join(tmpdir(), 'nodeherd-strategy-bench-controller-'));
  if (process.env.STRATEGY_BENCH_CONTROLLER_SOURCE !== '1')
    controllerEntry = await controllerBundle(bundleDir);
  process.on('exit', () => rmSync(bundleDir, { recursive: true, force: true }));
  console.log(
    `# update strategies: ${NODES} simulated nodes, limit ${LIMIT} nodes (10 %), kubelet restart ${REAL.kubeletRestartS} s, ` +
      `window ${REAL.windowS} s (Spread ${SPREAD_WINDOW_S} s, budget ${LIMIT}, canary ${SPREAD_CANARY}); time scale 1:${SCALE} (figures in real seconds); node ${process.version}`,
  );
  const results: StrategyResult[] = [];
  // Per strategy and run: the peak of nodes NotReady while updating (what the budget limits), the peak
  // of all NotReady nodes (nodes NotReady on their own too: on an overloaded machine their heartbeats
  // lapse, which no strategy causes), and the nodes the breaking change reached.
  const worst = new Map<Strategy, { peaks: number[]; allPeaks: number[]; hits: number[] }>();
  for (const strategy of SELECTED) {
    for (let run = 0; run < RUNS; run++) {
      const result = await runInChild(strategy, run);
      if (run === 0) {
        results.push(result);
        reportStrategy(result);
      }
      const w = worst.get(strategy) ?? { peaks: [], allPeaks: [], hits: [] };
      w.peaks.push(result.good.peakNotReadyUpdating);
      w.allPeaks.push(result.good.peakNotReady);
      w.hits.push(result.broken.hit);
      worst.set(strategy, w);
      console.log(
        `${strategy}${RUNS > 1 ? ` (run ${run + 1}/${RUNS})` : ''}: good change: peak ${result.good.peakNotReady} NotReady, ${result.good.peakNotReadyUpdating} of them updating (a node NotReady for ${seconds(result.good.notReadyP50Ms)}, median; at most ${result.good.maxStartsPerRestart} started within ${REAL.kubeletRestartS} s${result.good.notBeforeRewrites || result.good.maxNotBeforePerRestart ? `, at most ${result.good.maxNotBeforePerRestart} not-before times within it, ${result.good.notBeforeRewrites} rewritten` : ''}), all done in ${seconds(result.good.totalMs)}; ` +
          `breaking change: ${result.broken.hit} nodes hit (${result.broken.failed} reported Failed, ${result.kubeletDeaths} kubelet deaths), ` +
          `last one ${seconds(result.broken.lastHitMs)} after the change${result.broken.settled ? '' : ' (had not settled at the deadline)'}, ` +
          `peak ${result.broken.peakNotReady} NotReady (setup ${result.setupS.toFixed(0)} s)`,
      );
    }
  }
  for (const [strategy, w] of RUNS > 1 ? worst : []) {
    const note = `${RUNS} runs, nodes in 2–4 zones at random from the second; per run ${w.peaks.join(', ')}; all NotReady nodes (also those NotReady on their own) per run ${w.allPeaks.join(', ')}; ${NODES} nodes, scale 1:${SCALE}`;
    reportFigure({
      bench: 'strategies',
      name: `${strategy}: peak concurrently NotReady nodes that were updating, worst of ${RUNS} runs`,
      value: Math.max(...w.peaks),
      unit: 'nodes',
      target: { op: '<=', value: LIMIT },
      note,
    });
    reportFigure({
      bench: 'strategies',
      name: `${strategy}: nodes hit by a change that breaks kubelet, worst of ${RUNS} runs`,
      value: Math.max(...w.hits),
      unit: 'nodes',
      ...hitTarget(strategy),
      note: `per run ${w.hits.join(', ')}`,
    });
  }
  // The physical limit: ⌈N/B⌉ batches of B nodes, each NotReady T (no soak in this bench).
  const limitS = Math.ceil(NODES / LIMIT) * REAL.kubeletRestartS;
  console.log(
    `\nstrategy | peak NotReady (limit ${LIMIT}) | total time (÷ limit ${limitS} s) | nodes hit by a change that breaks kubelet | API requests/s (scaled clock) | controller peak RSS | server RSS`,
  );
  for (const r of results) {
    const ratio = realS(r.good.totalMs) / limitS;
    console.log(
      `${r.strategy} | ${r.good.peakNotReady} | ${seconds(r.good.totalMs)} (${ratio.toFixed(2)} ×) | ${r.broken.hit} of ${NODES} | ` +
        `${r.requests.perSecond.toFixed(0)} | ${r.controllerPeakMb?.toFixed(0) ?? '-'} MB | ${r.serverRssMb.toFixed(0)} MB (peak ${r.serverPeakMb.toFixed(0)})`,
    );
  }
  console.log(`total ${((performance.now() - started) / 1000).toFixed(0)} s of wall time`);
}

const childSpec = process.env[CHILD_ENV];
if (childSpec) await childMain(childSpec);
else await main();

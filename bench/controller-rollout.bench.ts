// Rollout controller benchmark: a pool of 1,000 simulated nodes (running the real agent) rolled out
// with maxUnavailable 10% by the real nodeherd-controller process, against the embedded API server in
// its own process.
//
// Figures:
// - rollout wall time (NodeConfig change → pool Complete) against the ideal of a perfect scheduler,
//   batches × (apply time + soak), where apply time is the median per-node time from desired-revision
//   to the node being healthy on it (measured on the nodes, so it includes the simulated kubelet
//   restart). Target ≤ 1.05×.
// - latency from a NodeConfig change to the first node given the new revision (desired-revision set):
//   every rollout of the big pool, plus samples on a small pool of the same cluster. Target p99 ≤ 250 ms
//   plus the controller's default render quiet period (it waits for the NodeConfigs to settle, issue 33;
//   bench/render-settle.bench.ts measures that part).
// - RSS of the controller process (peak and at the end).
//
// Run: node bench/controller-rollout.bench.ts
//   CTRL_BENCH_NODES=1000            nodes in the big pool
//   CTRL_BENCH_MAX_UNAVAILABLE=10%   its maxUnavailable
//   CTRL_BENCH_SOAK_S=5              its minReadySeconds
//   CTRL_BENCH_RESTART_MS=1500       simulated kubelet restart
//   CTRL_BENCH_NOT_READY_MS=3000     NotReady time of a restarted kubelet
//   CTRL_BENCH_ROLLOUTS=2            rollouts of the big pool
//   CTRL_BENCH_LATENCY_SAMPLES=40    config changes on the small pool
//   CTRL_BENCH_QUIET_MS=10000        pause after the bootstrap and between rollouts

import './support/simulator-threads.ts';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CURRENT_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  NODE_CONFIG_READY_CONDITION,
  STATE_ANNOTATION,
} from '../src/api/node-protocol.ts';
import type { NodeConfigSpec } from '../src/api/types.ts';
import { adminKubeconfigPath } from '../src/apiserver/auth/credentials.ts';
import { DEFAULT_RENDER_SETTLE } from '../src/controller/configs/config-settle.ts';
import { Informer } from '../src/kube/informer.ts';
import { KubeClient } from '../src/kube/kube-client.ts';
import { loadKubeConfig } from '../src/kube/kube-config.ts';
import { isKubeError } from '../src/kube/kube-error.ts';
import { LightKubeClient } from '../src/kube/light/light-kube-client.ts';
import type { Node } from '../src/kube/types.ts';
import { Fleet } from '../src/sim/fleet.ts';
import { sharedClient } from '../src/sim/node-clients.ts';
import { simulatedNodeAgents } from '../src/sim/simulated-node-agents.ts';
import { startApiServerProcess } from './support/apiserver-process.ts';
import { scrapeControllerMetrics } from './support/controller-metrics.ts';
import { benchNumber } from './support/quick.ts';
import { reportFigure } from './support/report.ts';

const ROOT = join(import.meta.dirname, '..');
const GROUP = '/apis/nodeherd.io/v1alpha1';
const NODES = benchNumber('CTRL_BENCH_NODES', 1000, 200);
const MAX_UNAVAILABLE = process.env.CTRL_BENCH_MAX_UNAVAILABLE ?? '10%';
const SOAK_S = Number(process.env.CTRL_BENCH_SOAK_S ?? 5);
const RESTART_MS = Number(process.env.CTRL_BENCH_RESTART_MS ?? 1500);
const NOT_READY_MS = Number(process.env.CTRL_BENCH_NOT_READY_MS ?? 3000);
const ROLLOUTS = benchNumber('CTRL_BENCH_ROLLOUTS', 2, 1);
const LATENCY_SAMPLES = benchNumber('CTRL_BENCH_LATENCY_SAMPLES', 40, 10);
const QUIET_MS = benchNumber('CTRL_BENCH_QUIET_MS', 10_000, 3_000);
const LATENCY_TARGET_MS = 250 + DEFAULT_RENDER_SETTLE.quietMs;

function kubeletConfig(value: string): NodeConfigSpec {
  return {
    files: [
      { path: '/etc/kubernetes/kubelet-extra.conf', content: { inline: { data: `value: ${value}\n` } } },
    ],
    units: [
      {
        name: 'kubelet.service',
        dropIns: [{ name: '20-nodeherd.conf', content: `[Service]\nEnvironment=NODEHERD_VALUE=${value}\n` }],
        filePaths: ['/etc/kubernetes/kubelet-extra.conf'],
        healthProbe: { http: { url: 'http://127.0.0.1:10248/healthz' }, timeoutSeconds: 5 },
      },
    ],
  };
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function metric(url: string, name: string, kubeconfig: string): Promise<number | undefined> {
  const text = await scrapeControllerMetrics(url, kubeconfig);
  const match = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
  return match ? Number(match[1]) : undefined;
}

function procStatus(pid: number): { rssMb: number; peakMb: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(text)?.[1] ?? 0);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

function healthyOn(node: Node, revision: string): boolean {
  const a = node.metadata.annotations ?? {};
  const cond = (type: string) => node.status?.conditions?.find((c) => c.type === type)?.status;
  return (
    a[DESIRED_REVISION_ANNOTATION] === revision &&
    a[CURRENT_REVISION_ANNOTATION] === revision &&
    a[STATE_ANNOTATION] === 'Done' &&
    cond('Ready') === 'True' &&
    cond(NODE_CONFIG_READY_CONDITION) === 'True'
  );
}

/**
 * Per node of a pool: when it was given a revision other than `previous` (desired-revision changed),
 * and when it was first healthy on that revision. Waiters resolve at the first such node.
 */
class NodeTimeline {
  readonly given = new Map<string, number>();
  readonly healthy = new Map<string, number>();
  private pool = '';
  private previous = '';
  private firstGiven: (() => void) | undefined;

  constructor(nodes: Informer<Node>) {
    nodes.on((type, node) => {
      if (type === 'delete' || !this.pool || node.metadata.labels?.pool !== this.pool) return;
      const name = node.metadata.name;
      const at = performance.now();
      const desired = node.metadata.annotations?.[DESIRED_REVISION_ANNOTATION];
      if (desired && desired !== this.previous && !this.given.has(name)) {
        this.given.set(name, at);
        this.firstGiven?.();
        this.firstGiven = undefined;
      }
      if (desired && this.given.has(name) && !this.healthy.has(name) && healthyOn(node, desired))
        this.healthy.set(name, at);
    });
  }

  /** Starts recording the nodes of `pool` leaving `previous`; resolves when the first one does. */
  track(pool: string, previous: string): Promise<void> {
    this.pool = pool;
    this.previous = previous;
    this.given.clear();
    this.healthy.clear();
    return new Promise((resolve) => {
      this.firstGiven = resolve;
    });
  }
}

async function main(): Promise<void> {
  console.log(
    `# rollout controller benchmark: ${NODES} nodes, maxUnavailable ${MAX_UNAVAILABLE}, soak ${SOAK_S} s, ` +
      `kubelet restart ${RESTART_MS} ms + ${NOT_READY_MS} ms NotReady (node ${process.version})`,
  );
  const dataDir = mkdtempSync(join(tmpdir(), 'nodeherd-ctrl-bench-'));
  const stateRoot = mkdtempSync(join(tmpdir(), 'nodeherd-ctrl-bench-agents-'));
  const server = await startApiServerProcess({ dataDir });
  const kubeconfig = adminKubeconfigPath(dataDir);
  const light = LightKubeClient.fromKubeconfig(kubeconfig);
  const admin = new KubeClient(loadKubeConfig({ kubeconfig }));
  const fleet = new Fleet({
    clientFor: sharedClient(light),
    adminClient: light,
    startConcurrency: 64,
    startupNotReadyMs: NOT_READY_MS,
    agent: simulatedNodeAgents({ stateRoot }),
    systemd: { targetDurations: { 'kubelet.service': { restart: RESTART_MS } } },
  });
  let controller: ChildProcess | undefined;
  try {
    const started = performance.now();
    await fleet.add(NODES, { labels: { pool: 'big' }, namePrefix: 'big-' });
    await fleet.add(10, { labels: { pool: 'small' }, namePrefix: 'small-' });
    console.log(`fleet of ${NODES + 10} nodes up in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    const apply = async (name: string, pool: string, value: string) => {
      const body = {
        apiVersion: 'nodeherd.io/v1alpha1',
        kind: 'NodeConfig',
        metadata: { name, labels: { pool } },
        spec: kubeletConfig(value),
      };
      try {
        await admin.create(`${GROUP}/nodeconfigs`, body);
      } catch (err) {
        if (!isKubeError(err, 409)) throw err;
        await admin.patch(`${GROUP}/nodeconfigs/${name}`, { spec: body.spec });
      }
    };
    await apply('big-kubelet', 'big', 'v0');
    await apply('small-kubelet', 'small', 'v0');
    for (const [pool, maxUnavailable, soak] of [
      ['big', MAX_UNAVAILABLE, SOAK_S],
      ['small', '100%', 0],
    ] as const) {
      await admin.create(`${GROUP}/nodeconfigpools`, {
        apiVersion: 'nodeherd.io/v1alpha1',
        kind: 'NodeConfigPool',
        metadata: { name: pool },
        spec: {
          nodeSelector: { matchLabels: { pool } },
          configSelector: { matchLabels: { pool } },
          updateStrategy: {
            type: 'RollingUpdate',
            rollingUpdate: { maxUnavailable, minReadySeconds: soak, progressDeadlineSeconds: 600 },
          },
        },
      });
    }

    const metricsPort = await freePort();
    const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    controller = spawn(
      process.execPath,
      [
        join(ROOT, 'bin', 'nodeherd-controller.ts'),
        '--kubeconfig',
        kubeconfig,
        '--no-leader-elect',
        '--metrics-address',
        `127.0.0.1:${metricsPort}`,
        '--log-level',
        'warn',
      ],
      { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] },
    );
    const controllerPid = controller.pid!;
    let peakMb = 0;
    const sampler = setInterval(() => {
      try {
        peakMb = Math.max(peakMb, procStatus(controllerPid).rssMb);
      } catch {}
    }, 200);

    type Pool = { status?: { targetRevision?: string; conditions?: { type: string; status: string }[] } };
    const complete = async (pool: string, revision?: string) => {
      for (;;) {
        const p = await admin.get<Pool>(`${GROUP}/nodeconfigpools/${pool}`);
        const done = p.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True');
        if (done && (!revision || p.status?.targetRevision === revision)) return p.status!.targetRevision!;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    /** Waits until the pool completes a revision other than `before`. */
    const completeAfter = async (pool: string, before: string) => {
      for (;;) {
        const revision = await complete(pool);
        if (revision !== before) return revision;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const bootStart = performance.now();
    await complete('big');
    await complete('small');
    console.log(
      `first revision (bootstrap) on every node: ${((performance.now() - bootStart) / 1000).toFixed(1)} s`,
    );

    const nodes = new Informer<Node>(admin, { path: '/api/v1/nodes' });
    const timeline = new NodeTimeline(nodes);
    nodes.start();
    await nodes.waitForSync();

    // Let the bootstrap's aftermath (agents reporting, Events) settle before measuring.
    await new Promise((res) => setTimeout(res, QUIET_MS));
    const percent = /^(\d+)%$/.exec(MAX_UNAVAILABLE);
    const budget = Math.max(
      1,
      percent ? Math.floor((NODES * Number(percent[1])) / 100) : Number(MAX_UNAVAILABLE),
    );
    const batches = Math.ceil(NODES / budget);
    const reactions: number[] = [];
    for (let r = 1; r <= ROLLOUTS; r++) {
      const before = await complete('big');
      const firstGiven = timeline.track('big', before);
      const t0 = performance.now();
      await apply('big-kubelet', 'big', `v${r}`);
      await firstGiven;
      const reaction = Math.min(...timeline.given.values()) - t0;
      reactions.push(reaction);
      const target = await completeAfter('big', before);
      const wallMs = performance.now() - t0;
      const applyMs = [...timeline.healthy.entries()].map(([n, at]) => at - timeline.given.get(n)!);
      const applyP50 = quantile(applyMs, 0.5);
      const applyMean = applyMs.reduce((a, b) => a + b, 0) / applyMs.length;
      const idealMs = batches * (applyP50 + SOAK_S * 1000);
      const idealMeanMs = batches * (applyMean + SOAK_S * 1000);
      // Controller reaction per freed slot: the node started k-th after the first budget-full was
      // started when the k-th slot freed (the k-th earliest node healthy and soaked).
      // The ideal of a perfect scheduler with these very nodes: each node's own apply time plus the
      // soak, started in the same order on the first free slot of the budget, with no reaction time.
      const order = [...timeline.given.entries()].sort((a, b) => a[1] - b[1]).map(([n]) => n);
      const slots: number[] = Array.from({ length: budget }, () => 0);
      for (const n of order) {
        const occupancy =
          (timeline.healthy.get(n) ?? timeline.given.get(n)!) - timeline.given.get(n)! + SOAK_S * 1000;
        const slot = slots.indexOf(Math.min(...slots));
        slots[slot]! += occupancy;
      }
      const perfectMs = Math.max(...slots);
      const givenTimes = [...timeline.given.values()].sort((a, b) => a - b);
      const freedTimes = [...timeline.healthy.values()].map((h) => h + SOAK_S * 1000).sort((a, b) => a - b);
      const lags = givenTimes.slice(budget).map((g, k) => g - freedTimes[k]!);
      console.log(
        `rollout ${r}: controller reaction per freed slot (slot free → next node given its revision) p50 ${quantile(lags, 0.5).toFixed(0)} ms, p99 ${quantile(lags, 0.99).toFixed(0)} ms`,
      );
      console.log(
        `rollout ${r} (${target}): ${NODES} nodes in ${(wallMs / 1000).toFixed(1)} s; ideal ${batches} batches × (${(applyP50 / 1000).toFixed(2)} s apply p50 + ${SOAK_S} s soak) = ${(idealMs / 1000).toFixed(1)} s: ` +
          `ratio ${(wallMs / idealMs).toFixed(3)} (target ≤ 1.05); with the mean apply time (${(applyMean / 1000).toFixed(2)} s) ${(idealMeanMs / 1000).toFixed(1)} s: ratio ${(wallMs / idealMeanMs).toFixed(3)}; ` +
          `apply per node p99 ${quantile(applyMs, 0.99).toFixed(0)} ms; first node given the revision ${reaction.toFixed(0)} ms after the change`,
      );
      console.log(
        `rollout ${r}: a perfect scheduler with the measured per-node apply times: ${(perfectMs / 1000).toFixed(1)} s: ratio ${(wallMs / perfectMs).toFixed(3)}`,
      );
      const sizes = `${NODES} nodes, maxUnavailable ${MAX_UNAVAILABLE}, soak ${SOAK_S} s`;
      reportFigure({
        bench: 'controller-rollout',
        name: `rollout ${r}: wall time`,
        value: wallMs / 1000,
        unit: 's',
        note: sizes,
      });
      reportFigure({
        bench: 'controller-rollout',
        name: `rollout ${r}: wall time ÷ ideal (batches × (median apply + soak))`,
        value: wallMs / idealMs,
        unit: '×',
        target: { op: '<=', value: 1.05 },
        note: `ideal ${(idealMs / 1000).toFixed(1)} s; ${sizes}`,
      });
      reportFigure({
        bench: 'controller-rollout',
        name: `rollout ${r}: wall time ÷ a perfect scheduler with the measured apply times`,
        value: wallMs / perfectMs,
        unit: '×',
        note: `perfect ${(perfectMs / 1000).toFixed(1)} s`,
      });
      await new Promise((res) => setTimeout(res, QUIET_MS));
    }

    const samples: number[] = [];
    for (let i = 1; i <= LATENCY_SAMPLES; i++) {
      const before = await complete('small');
      const firstGiven = timeline.track('small', before);
      const t0 = performance.now();
      await apply('small-kubelet', 'small', `s${i}`);
      await firstGiven;
      samples.push(Math.min(...timeline.given.values()) - t0);
      await completeAfter('small', before);
    }
    const all = [...reactions, ...samples];
    console.log(
      `NodeConfig change → first node given the new revision (${all.length} samples, the cluster holding ${NODES + 10} nodes): ` +
        `p50 ${quantile(all, 0.5).toFixed(0)} ms, p99 ${quantile(all, 0.99).toFixed(0)} ms, max ${Math.max(...all).toFixed(0)} ms (target p99 ≤ ${LATENCY_TARGET_MS} ms)`,
    );
    reportFigure({
      bench: 'controller-rollout',
      name: 'NodeConfig change → first node given the revision, p99',
      value: quantile(all, 0.99),
      unit: 'ms',
      target: { op: '<=', value: LATENCY_TARGET_MS },
      note: `${all.length} samples, ${NODES + 10} nodes in the cluster; includes the ${DEFAULT_RENDER_SETTLE.quietMs} ms render quiet period`,
    });
    clearInterval(sampler);
    const end = procStatus(controllerPid);
    const heapMb = ((await metric(metricsUrl, 'nodejs_heap_size_used_bytes', kubeconfig)) ?? 0) / 1024 / 1024;
    const reconciles = await metric(
      metricsUrl,
      'nodeherd_reconcile_duration_seconds_count\\{kind="pool"\\}',
      kubeconfig,
    );
    console.log(
      `controller RSS: ${end.rssMb.toFixed(1)} MB at the end, peak ${Math.max(peakMb, end.peakMb).toFixed(1)} MB; V8 heap used ${heapMb.toFixed(1)} MB; ` +
        `${reconciles} pool reconciles`,
    );
    reportFigure({
      bench: 'controller-rollout',
      name: 'controller RSS, peak',
      value: Math.max(peakMb, end.peakMb),
      unit: 'MB',
      note: `${NODES + 10} nodes`,
    });
    await nodes.stop();
  } finally {
    controller?.kill('SIGTERM');
    await fleet.close();
    light.close();
    admin.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(stateRoot, { recursive: true, force: true });
  }
}

await main();

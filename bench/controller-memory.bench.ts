// Controller memory benchmark (issue 17): the real nodeherd-controller against the embedded API server
// holding N Node objects, created directly (shaped like a simulated kubelet's, src/sim/node-object.ts)
// instead of by N agents, so 5,000 nodes fit on a small machine. A stand-in agent in this process
// answers every desired-revision the controller hands out (NodeConfigReady True, then current-revision
// and state Done, as the agent's reporter writes them), so the rollouts run to the end.
//
// Phases, each with the controller's RSS (VmRSS from /proc; peak VmHWM) and its V8 heap/external memory
// (prom-client's default metrics on its /metrics):
// - idle: the caches synced, the pool not yet created;
// - bootstrap: the pool created, its first revision rolled out to every node (peak during it);
// - rollout: a NodeConfig change rolled out to every node (peak during it);
// - after: settled after the rollout.
// The API server's RSS and peak are reported too, and per phase the controller's pool reconciles (count,
// ms each on average: nodeherd_reconcile_duration_seconds{kind="pool"}), its CPU seconds (/proc) and the
// machine's load average.
//
// By default it runs what ships: the controller bundled as the image bundles it (src/dist/images: one
// minified ES module, the image's Node flags, NODE_ENV=production, the Deployment's flags but a free
// metrics port).
//
// Run: node bench/controller-memory.bench.ts
//   CTRL_MEM_NODES=5000            Node objects in the pool
//   CTRL_MEM_PODS_PER_NODE=0       Pods bound to each node (the controller caches every Pod)
//   CTRL_MEM_MAX_UNAVAILABLE=10%   the pool's maxUnavailable
//   CTRL_MEM_SOURCE=1              run bin/nodeherd-controller.ts (type stripping) instead of the bundle
//   CTRL_MEM_NODE_FLAGS="…"        Node flags instead of the image's (CONTROLLER_NODE_FLAGS); "" for none
//   CTRL_MEM_HEAPSNAPSHOT=DIR      write heap snapshots of the controller (idle, end of rollout) into DIR
//   CTRL_MEM_SETTLE_MS=5000        pause before a settled measurement
//   CTRL_MEM_CPU_PROF_DIR=DIR      write a CPU profile of the controller into DIR (at its exit)

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { controllerArgs } from '../src/api/deploy-manifests.ts';
import {
  CURRENT_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  MESSAGE_ANNOTATION,
  NODE_CONFIG_READY_CONDITION,
  STATE_ANNOTATION,
  STATE_REVISION_ANNOTATION,
} from '../src/api/node-protocol.ts';
import type { NodeConfigSpec } from '../src/api/types.ts';
import { adminKubeconfigPath } from '../src/apiserver/auth/credentials.ts';
import { Informer, trimNode } from '../src/kube/informer.ts';
import { KubeClient } from '../src/kube/kube-client.ts';
import { loadKubeConfig } from '../src/kube/kube-config.ts';
import type { Node } from '../src/kube/types.ts';
import { nodeObject, READY } from '../src/sim/node-object.ts';
import { kubeTime } from '../src/util/kube-time.ts';
import { startApiServerProcess } from './support/apiserver-process.ts';
import { controllerBundle, SHIPPED_CONTROLLER_FLAGS } from './support/controller-bundle.ts';
import { scrapeControllerMetrics } from './support/controller-metrics.ts';
import { loadAverage, processCpuSeconds } from './support/proc.ts';
import { benchNumber } from './support/quick.ts';
import { reportFigure } from './support/report.ts';

const ROOT = join(import.meta.dirname, '..');
const GROUP = '/apis/nodeherd.io/v1alpha1';
const NODES = benchNumber('CTRL_MEM_NODES', 5000, 300);
const PODS_PER_NODE = benchNumber('CTRL_MEM_PODS_PER_NODE', 0, 0);
const MAX_UNAVAILABLE = process.env.CTRL_MEM_MAX_UNAVAILABLE ?? '10%';
const FROM_SOURCE = process.env.CTRL_MEM_SOURCE === '1';
// The image's Node flags, unless CTRL_MEM_NODE_FLAGS names others ('' for none).
const NODE_FLAGS = (process.env.CTRL_MEM_NODE_FLAGS ?? SHIPPED_CONTROLLER_FLAGS.join(' '))
  .split(/\s+/)
  .filter(Boolean);
const SNAPSHOT_DIR = process.env.CTRL_MEM_HEAPSNAPSHOT;
const SETTLE_MS = benchNumber('CTRL_MEM_SETTLE_MS', 5000, 2000);
const CPU_PROF_DIR = process.env.CTRL_MEM_CPU_PROF_DIR;
const WRITE_CONCURRENCY = 32;

function spec(value: string): NodeConfigSpec {
  return {
    files: [{ path: '/etc/nodeherd-bench/value.conf', content: { inline: { data: `value: ${value}\n` } } }],
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function procStatus(pid: number): { rssMb: number; peakMb: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(text)?.[1] ?? 0);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

async function metrics(url: string, kubeconfig: string): Promise<Record<string, number>> {
  const text = await scrapeControllerMetrics(url, kubeconfig);
  const out: Record<string, number> = {};
  for (const name of [
    'nodejs_heap_size_used_bytes',
    'nodejs_heap_size_total_bytes',
    'nodejs_external_memory_bytes',
  ]) {
    const match = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
    if (match) out[name] = Number(match[1]) / 1024 / 1024;
  }
  for (const name of [
    'nodeherd_reconcile_duration_seconds_count',
    'nodeherd_reconcile_duration_seconds_sum',
  ]) {
    const match = new RegExp(`^${name}\\{kind="pool"\\} (\\S+)$`, 'm').exec(text);
    out[name] = match ? Number(match[1]) : 0;
  }
  return out;
}

async function runLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * Answers the controller as an agent would, for every node: once a node's desired-revision differs
 * from what it reported, NodeConfigReady True on its status, then current-revision, state Done.
 */
class StandInAgents {
  private readonly inFlight = new Set<string>();
  private readonly queue: string[] = [];
  private active = 0;
  applied = 0;

  private readonly client: KubeClient;
  private readonly nodes: Informer<Node>;

  constructor(client: KubeClient, nodes: Informer<Node>) {
    this.client = client;
    this.nodes = nodes;
    nodes.on((type, node) => {
      if (type !== 'delete') this.consider(node);
    });
  }

  private consider(node: Node): void {
    const a = node.metadata.annotations ?? {};
    const desired = a[DESIRED_REVISION_ANNOTATION];
    if (!desired || a[STATE_REVISION_ANNOTATION] === desired) return;
    const name = node.metadata.name;
    if (this.inFlight.has(name)) return;
    this.inFlight.add(name);
    this.queue.push(name);
    this.pump();
  }

  private pump(): void {
    while (this.active < WRITE_CONCURRENCY && this.queue.length > 0) {
      const name = this.queue.shift()!;
      this.active++;
      this.apply(name)
        .catch((err) => console.error(`stand-in agent ${name}: ${(err as Error).message}`))
        .finally(() => {
          this.active--;
          this.inFlight.delete(name);
          const node = this.nodes.get(name);
          if (node) this.consider(node);
          this.pump();
        });
    }
  }

  private async apply(name: string): Promise<void> {
    const desired = this.nodes.get(name)?.metadata.annotations?.[DESIRED_REVISION_ANNOTATION];
    if (!desired) return;
    const now = kubeTime(Date.now());
    const path = `/api/v1/nodes/${name}`;
    await this.client.patch(
      `${path}/status`,
      {
        status: {
          conditions: [
            {
              type: NODE_CONFIG_READY_CONDITION,
              status: 'True',
              reason: 'Applied',
              message: `revision ${desired} applied`,
              lastHeartbeatTime: now,
              lastTransitionTime: now,
            },
          ],
        },
      },
      'strategic',
    );
    const node = await this.client.patch<Node>(path, {
      metadata: {
        annotations: {
          [CURRENT_REVISION_ANNOTATION]: desired,
          [STATE_ANNOTATION]: 'Done',
          [STATE_REVISION_ANNOTATION]: desired,
          [MESSAGE_ANNOTATION]: `applied ${desired}`,
        },
      },
    });
    this.nodes.upsert(trimNode(node));
    this.applied++;
  }
}

interface Sample {
  phase: string;
  rssMb: number;
  peakMb: number;
  heapUsedMb: number;
  heapTotalMb: number;
  externalMb: number;
  serverRssMb: number;
  serverPeakMb: number;
  /** During the phase: pool reconciles, their seconds, the controller's CPU seconds; load at its end. */
  poolReconciles: number;
  poolReconcileSeconds: number;
  cpuSeconds: number;
  load: number;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'nodeherd-ctrl-mem-'));
  const dataDir = join(work, 'data');
  const what = FROM_SOURCE ? 'bin/nodeherd-controller.ts (sources)' : 'the bundle the image ships';
  console.log(
    `# controller memory benchmark: ${NODES} nodes, ${PODS_PER_NODE} pods per node, maxUnavailable ${MAX_UNAVAILABLE}; ` +
      `controller: ${what}${NODE_FLAGS.length ? ` with ${NODE_FLAGS.join(' ')}` : ''} (node ${process.version})`,
  );
  // No kubelets renew these Nodes' Leases: the node lifecycle controller must not mark them NotReady.
  const server = await startApiServerProcess({
    dataDir,
    env: { BENCH_NODE_MONITOR_GRACE_MS: String(24 * 3600_000) },
  });
  const kubeconfig = adminKubeconfigPath(dataDir);
  const admin = new KubeClient(loadKubeConfig({ kubeconfig }), { maxSockets: WRITE_CONCURRENCY + 4 });
  let controller: ChildProcess | undefined;
  const samples: Sample[] = [];
  try {
    const started = performance.now();
    const names = Array.from({ length: NODES }, (_, i) => `mem-${String(i).padStart(5, '0')}`);
    const now = Date.now();
    await runLimited(names, WRITE_CONCURRENCY, async (name) => {
      await admin.create('/api/v1/nodes', nodeObject({ name, labels: { pool: 'mem' } }, READY, now, now));
    });
    if (PODS_PER_NODE > 0) {
      await admin
        .create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'workload' } })
        .catch(() => undefined);
      const pods = names.flatMap((node) => Array.from({ length: PODS_PER_NODE }, (_, k) => ({ node, k })));
      await runLimited(pods, WRITE_CONCURRENCY, async ({ node, k }) => {
        await admin.create('/api/v1/namespaces/workload/pods', {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: `${node}-w${k}`, namespace: 'workload', labels: { app: `w${k}` } },
          spec: {
            nodeName: node,
            containers: [
              { name: 'app', image: 'registry.example/app:1.0', resources: { requests: { cpu: '100m' } } },
            ],
          },
        });
      });
    }
    console.log(
      `${NODES} Nodes${PODS_PER_NODE ? ` and ${NODES * PODS_PER_NODE} Pods` : ''} created in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    const metricsPort = await freePort();
    const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    const entry = FROM_SOURCE ? join(ROOT, 'bin', 'nodeherd-controller.ts') : await controllerBundle(work);
    const args = [
      ...controllerArgs().filter((a) => !a.startsWith('--metrics-address=') && !a.startsWith('--log-level=')),
      `--metrics-address=127.0.0.1:${metricsPort}`,
      '--log-level=warn',
      '--kubeconfig',
      kubeconfig,
    ];
    const snapshotFlags = SNAPSHOT_DIR
      ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${SNAPSHOT_DIR}`]
      : [];
    const profileFlags = CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`] : [];
    controller = spawn(process.execPath, [...NODE_FLAGS, ...snapshotFlags, ...profileFlags, entry, ...args], {
      cwd: SNAPSHOT_DIR ?? ROOT,
      env: { ...process.env, NODE_ENV: 'production' },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const pid = controller.pid!;
    let phasePeak = 0;
    const sampler = setInterval(() => {
      try {
        phasePeak = Math.max(phasePeak, procStatus(pid).rssMb);
      } catch {}
    }, 100);
    const snapshot = async (label: string) => {
      if (!SNAPSHOT_DIR) return;
      const before = new Set(readdirSync(SNAPSHOT_DIR));
      process.kill(pid, 'SIGUSR2');
      for (let i = 0; i < 600; i++) {
        await new Promise((r) => setTimeout(r, 500));
        const fresh = readdirSync(SNAPSHOT_DIR).filter((f) => !before.has(f) && f.endsWith('.heapsnapshot'));
        if (fresh.length > 0) {
          console.log(`heap snapshot (${label}): ${join(SNAPSHOT_DIR, fresh[0]!)}`);
          await new Promise((r) => setTimeout(r, 2000));
          return;
        }
      }
    };
    let counted = { reconciles: 0, seconds: 0, cpu: processCpuSeconds(pid) };
    const measure = async (phase: string) => {
      const status = procStatus(pid);
      const m = await metrics(metricsUrl, kubeconfig);
      const now = {
        reconciles: m.nodeherd_reconcile_duration_seconds_count ?? 0,
        seconds: m.nodeherd_reconcile_duration_seconds_sum ?? 0,
        cpu: processCpuSeconds(pid),
      };
      const srv = await server.memory(false);
      const sample: Sample = {
        phase,
        rssMb: status.rssMb,
        peakMb: Math.max(phasePeak, status.rssMb),
        heapUsedMb: m.nodejs_heap_size_used_bytes ?? Number.NaN,
        heapTotalMb: m.nodejs_heap_size_total_bytes ?? Number.NaN,
        externalMb: m.nodejs_external_memory_bytes ?? Number.NaN,
        serverRssMb: srv.rssMb,
        serverPeakMb: srv.peakMb,
        poolReconciles: now.reconciles - counted.reconciles,
        poolReconcileSeconds: now.seconds - counted.seconds,
        cpuSeconds: now.cpu - counted.cpu,
        load: loadAverage(),
      };
      counted = now;
      samples.push(sample);
      phasePeak = 0;
      console.log(
        `${phase}: controller RSS ${sample.rssMb.toFixed(1)} MB (peak in phase ${sample.peakMb.toFixed(1)} MB), ` +
          `V8 heap used ${sample.heapUsedMb.toFixed(1)} of ${sample.heapTotalMb.toFixed(1)} MB, external ${sample.externalMb.toFixed(1)} MB; ` +
          `API server RSS ${sample.serverRssMb.toFixed(0)} MB (peak ${sample.serverPeakMb.toFixed(0)} MB); ` +
          `${sample.poolReconciles} pool reconciles${sample.poolReconciles ? `, ${((1000 * sample.poolReconcileSeconds) / sample.poolReconciles).toFixed(0)} ms each (${sample.poolReconcileSeconds.toFixed(1)} s)` : ''}, ` +
          `controller CPU ${sample.cpuSeconds.toFixed(1)} s; load average ${sample.load.toFixed(1)}`,
      );
    };
    const waitFor = async (what: string, cond: () => Promise<boolean>, timeoutMs = 600_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!(await cond())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    await waitFor('the controller to be ready', async () => {
      try {
        return (await fetch(`http://127.0.0.1:${metricsPort}/readyz`)).ok;
      } catch {
        return false;
      }
    });
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    await measure('idle (caches synced, no pool)');
    await snapshot('idle');

    const nodes = new Informer<Node>(admin, { path: '/api/v1/nodes', transform: trimNode });
    const agents = new StandInAgents(admin, nodes);
    nodes.start();
    await nodes.waitForSync();

    await admin.create(`${GROUP}/nodeconfigs`, {
      apiVersion: 'nodeherd.io/v1alpha1',
      kind: 'NodeConfig',
      metadata: { name: 'mem', labels: { pool: 'mem' } },
      spec: spec('v0'),
    });
    type Pool = { status?: { targetRevision?: string; conditions?: { type: string; status: string }[] } };
    const completeRevision = async () => {
      const p = await admin.get<Pool>(`${GROUP}/nodeconfigpools/mem`);
      const done = p.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True');
      return done ? p.status?.targetRevision : undefined;
    };
    let t0 = performance.now();
    await admin.create(`${GROUP}/nodeconfigpools`, {
      apiVersion: 'nodeherd.io/v1alpha1',
      kind: 'NodeConfigPool',
      metadata: { name: 'mem' },
      spec: {
        nodeSelector: { matchLabels: { pool: 'mem' } },
        configSelector: { matchLabels: { pool: 'mem' } },
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: MAX_UNAVAILABLE } },
      },
    });
    let first: string | undefined;
    await waitFor('the bootstrap rollout', async () => {
      first = await completeRevision();
      return first !== undefined;
    });
    console.log(
      `bootstrap: revision ${first} on ${NODES} nodes in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    await measure('bootstrap (pool created → first revision on every node)');

    t0 = performance.now();
    await admin.patch(`${GROUP}/nodeconfigs/mem`, { spec: spec('v1') });
    let second: string | undefined;
    await waitFor('the rollout', async () => {
      second = await completeRevision();
      return second !== undefined && second !== first;
    });
    console.log(
      `rollout: revision ${second} on ${NODES} nodes in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    await measure('rollout (NodeConfig change → new revision on every node)');
    await snapshot('after the rollout');
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    await measure('settled after the rollout');
    clearInterval(sampler);
    await nodes.stop();
    console.log(`stand-in agents applied ${agents.applied} revisions`);

    const peak = Math.max(...samples.map((s) => s.peakMb), procStatus(pid).peakMb);
    const note = `${NODES} nodes, ${PODS_PER_NODE} pods/node, ${FROM_SOURCE ? 'sources' : 'shipped bundle'}`;
    reportFigure({
      bench: 'controller-memory',
      name: 'controller RSS, idle',
      value: samples[0]!.rssMb,
      unit: 'MB',
      note,
    });
    reportFigure({
      bench: 'controller-memory',
      name: 'controller RSS, peak during rollouts',
      value: peak,
      unit: 'MB',
      target: { op: '<=', value: 300 },
      note,
    });
    reportFigure({
      bench: 'controller-memory',
      name: 'API server RSS, peak',
      value: Math.max(...samples.map((s) => s.serverPeakMb)),
      unit: 'MB',
      note,
    });
  } finally {
    if (controller && controller.exitCode === null) {
      controller.kill('SIGTERM');
      await new Promise((resolve) => controller!.once('exit', resolve));
    }
    admin.close();
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();

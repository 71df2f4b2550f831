// Fleets of simulated nodes against the embedded API server, which runs in a child process so each
// side's memory and CPU can be read separately: startup time, steady-state RSS and CPU of the
// simulator and of the server, and API requests per second at steady state (kubelet timing: 40 s
// lease renewed every 10 s, status report every 5 min). With agents, also a fleet-wide apply: every
// node is told a revision that changes a kubelet drop-in, and the time to Done is measured. Last, one
// heartbeat wheel against one setInterval per node.
//
// Run: node bench/sim-fleet.bench.ts
//   SIM_BENCH_NODES=1000,5000   fleet sizes (each against a fresh server)
//   SIM_BENCH_MODE=node|shared  node: every node its own identity and connection (default);
//                               shared: all nodes share the admin client's connection pool
//   SIM_BENCH_AGENTS=1|0        run the real agent on every node (default 1)
//   SIM_BENCH_WINDOW_S=60       steady-state measuring window
//   SIM_BENCH_TIMERS=0          skip the timer comparison

import './support/simulator-threads.ts';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import pino from 'pino';
import {
  CURRENT_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  STATE_ANNOTATION,
} from '../src/api/node-protocol.ts';
import { renderConfigs } from '../src/api/render.ts';
import { buildRevision } from '../src/api/revision.ts';
import type { NodeConfigRevision } from '../src/api/types.ts';
import { ApiServer } from '../src/apiserver/api-server.ts';
import { adminKubeconfigPath } from '../src/apiserver/auth/credentials.ts';
import { LightKubeClient } from '../src/kube/light/light-kube-client.ts';
import type { KubeObject } from '../src/kube/light/types.ts';
import { nodeherdProfile } from '../src/profile/nodeherd-profile.ts';
import { Fleet } from '../src/sim/fleet.ts';
import { HeartbeatWheel } from '../src/sim/heartbeat-wheel.ts';
import { kubeconfigNodeIdentities, sharedClient } from '../src/sim/node-clients.ts';
import { simulatedNodeAgents } from '../src/sim/simulated-node-agents.ts';
import { benchNumber, benchSetting } from './support/quick.ts';
import { reportFigure } from './support/report.ts';

const SERVE_FLAG = '--serve';

interface ServerReady {
  url: string;
  kubeconfig: string;
  credentialsDir: string;
  issueMs: number;
}

/** Child: the API server, with node credentials issued up front (the simulator reads them). */
async function serve(): Promise<void> {
  const [dataDir, countText] = process.argv.slice(process.argv.indexOf(SERVE_FLAG) + 1);
  const server = await ApiServer.start({
    dataDir: dataDir!,
    port: 0,
    profile: nodeherdProfile(),
    logger: pino({ level: 'silent' }),
  });
  const credentialsDir = join(dataDir!, 'sim-nodes');
  const started = performance.now();
  for (let i = 1; i <= Number(countText); i++) {
    const name = nodeName(i);
    await server.issueCredential('node', name, join(credentialsDir, `${name}.kubeconfig`));
    // The Node is registered by its kubelet, which has an identity of its own (issue 11).
    await server.issueCredential('kubelet', name, join(credentialsDir, `${name}.kubelet.kubeconfig`));
  }
  const ready: ServerReady = {
    url: server.url,
    kubeconfig: adminKubeconfigPath(dataDir!),
    credentialsDir,
    issueMs: performance.now() - started,
  };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => {
    server.stop().then(() => process.exit(0));
  });
}

/** This process's limit of open files (the soft limit, which children inherit). */
function openFilesLimit(): number {
  const text = execFileSync('/bin/sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim();
  return text === 'unlimited' ? Number.POSITIVE_INFINITY : Number(text);
}

function nodeName(index: number): string {
  return `sim-${String(index).padStart(4, '0')}`;
}

async function main(): Promise<void> {
  const sizes = benchSetting('SIM_BENCH_NODES', '1000,5000', '300').split(',').map(Number);
  const mode = process.env.SIM_BENCH_MODE === 'shared' ? 'shared' : 'node';
  const windowS = benchNumber('SIM_BENCH_WINDOW_S', 60, 15);
  const agents = process.env.SIM_BENCH_AGENTS !== '0';
  console.log(
    `# simulated fleet benchmark (mode ${mode}, agents ${agents ? 'on' : 'off'}, steady window ${windowS} s, node ${process.version})`,
  );
  const fdLimit = openFilesLimit();
  for (const size of sizes) {
    // Each node holds its agent's watch and pooled connection and, in mode node, its kubelet's
    // connection too, all in this process (and as many in the server's).
    const needed = size * (mode === 'node' ? 4 : 2) + 256;
    if (needed > fdLimit) {
      console.log(
        `\n## ${size} nodes: skipped, it needs about ${needed} open files per process and the limit is ${fdLimit} (ulimit -n; raise the hard limit to run it)`,
      );
      continue;
    }
    await fleetRun(size, mode, agents, windowS);
  }
  if (process.env.SIM_BENCH_TIMERS !== '0') await timerComparison(5_000);
}

async function fleetRun(
  size: number,
  mode: 'node' | 'shared',
  agents: boolean,
  windowS: number,
): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'nodeherd-sim-bench-'));
  const stateRoot = mkdtempSync(join(tmpdir(), 'nodeherd-sim-bench-agents-'));
  const child = spawn(
    process.execPath,
    [new URL(import.meta.url).pathname, SERVE_FLAG, dataDir, String(mode === 'node' ? size : 0)],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const ready = await new Promise<ServerReady>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line)));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  const gc = collector();
  gc();
  const baseRss = process.memoryUsage().rss;
  const baseHeap = process.memoryUsage().heapUsed;
  const serverBaseRss = rssOf(child.pid!);

  const admin = LightKubeClient.fromKubeconfig(ready.kubeconfig);
  const errors = new Map<string, number>();
  const rollout = new RolloutTracker();
  let phase = 'startup';
  const fleet = new Fleet({
    clientFor: mode === 'node' ? kubeconfigNodeIdentities(ready.credentialsDir) : sharedClient(admin),
    ...(mode === 'node'
      ? { kubeletClientFor: kubeconfigNodeIdentities(ready.credentialsDir, {}, 'kubelet') }
      : {}),
    adminClient: admin,
    startConcurrency: 64,
    ...(agents ? { agent: simulatedNodeAgents({ stateRoot }) } : {}),
    onServerChange: (name, node) => rollout.observe(name, node),
    onError: (_name, error, during) => {
      const key = `${phase}, ${during}: ${error.message.slice(0, 80)}`;
      errors.set(key, (errors.get(key) ?? 0) + 1);
    },
  });

  const startAt = performance.now();
  const cpuStart = process.cpuUsage();
  await fleet.add(size);
  const startupMs = performance.now() - startAt;
  const startupCpu = cpuMs(process.cpuUsage(cpuStart));
  await fleet.synced();

  // Let the first renewals (all bunched at registration) spread over the wheel, then measure.
  await sleep(fleet.wheel.periodMs + 2_000);
  phase = 'steady';
  const requestsBefore = totalRequests(fleet, admin, mode);
  const cpuBefore = process.cpuUsage();
  const serverCpuBefore = cpuTicksOf(child.pid!);
  const windowStart = performance.now();
  await sleep(windowS * 1000);
  const elapsedS = (performance.now() - windowStart) / 1000;
  const requests = totalRequests(fleet, admin, mode) - requestsBefore;
  const simCpu = cpuMs(process.cpuUsage(cpuBefore)) / 10 / elapsedS;
  const serverCpu = (cpuTicksOf(child.pid!) - serverCpuBefore) / elapsedS; // ticks of 10 ms → %
  gc();
  const rss = process.memoryUsage().rss;
  const heap = process.memoryUsage().heapUsed;
  const serverRss = rssOf(child.pid!);
  const counts = fleet.counts();
  const connections = mode === 'node' ? sumConnections(fleet) : admin.stats().connections;

  phase = 'apply';
  const applied = agents ? await applyEverywhere(fleet, admin, rollout) : undefined;

  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  console.log(
    `\n## ${size} nodes (${mode === 'node' ? 'own identity and connection per node' : 'one shared client'}, ${agents ? 'with' : 'without'} agents)`,
  );
  if (mode === 'node')
    console.log(`credentials issued by the server: ${(ready.issueMs / 1000).toFixed(1)} s`);
  console.log(
    `startup: ${(startupMs / 1000).toFixed(1)} s (${Math.round(size / (startupMs / 1000))} nodes/s, sim CPU ${(startupCpu / 1000).toFixed(1)} s)`,
  );
  console.log(
    `steady state over ${elapsedS.toFixed(0)} s: ${(requests / elapsedS).toFixed(1)} API requests/s ` +
      `(${(requests / elapsedS / size).toFixed(3)} per node per s); sim CPU ${simCpu.toFixed(1)} %, server CPU ${serverCpu.toFixed(1)} %`,
  );
  console.log(
    `sim process: RSS ${mb(rss)} (+${mb(rss - baseRss)}, ${((rss - baseRss) / size / 1024).toFixed(1)} KB/node), ` +
      `heap +${mb(heap - baseHeap)} (${((heap - baseHeap) / size / 1024).toFixed(1)} KB/node); TLS connections opened: ${connections}`,
  );
  console.log(
    `server process: RSS ${mb(serverRss)} (+${mb(serverRss - serverBaseRss)} with the fleet, ${((serverRss - serverBaseRss) / size / 1024).toFixed(1)} KB/node)`,
  );
  console.log(
    `server view: ${counts.serverReady} Ready, ${counts.serverNotReady} NotReady, ${counts.serverUnknown} Unknown of ${counts.nodes}`,
  );
  if (applied) {
    console.log(
      `apply to every node (kubelet drop-in, restart, healthz): all Done in ${(applied.wallMs / 1000).toFixed(1)} s; ` +
        `per node from annotation to Done p50 ${applied.p50.toFixed(0)} ms, p99 ${applied.p99.toFixed(0)} ms; ${applied.failed} not Done`,
    );
  }
  if (errors.size > 0) console.log(`errors: ${JSON.stringify(Object.fromEntries(errors))}`);
  const figure = (name: string, value: number, unit: string) =>
    reportFigure({ bench: 'sim-fleet', name: `${size} nodes: ${name}`, value, unit, note: `mode ${mode}` });
  figure('startup', startupMs / 1000, 's');
  figure('API requests per second at steady state', requests / elapsedS, 'requests/s');
  figure('simulator RSS per node', (rss - baseRss) / size / 1024, 'KB');
  figure('server RSS with the fleet', serverRss / 1024 / 1024, 'MB');
  if (applied) {
    figure('apply everywhere, all Done', applied.wallMs / 1000, 's');
    figure('apply everywhere, annotation → Done p99', applied.p99, 'ms');
    figure('apply everywhere, nodes not Done', applied.failed, 'nodes');
  }

  await fleet.close();
  admin.close();
  child.stdin!.end();
  await new Promise((resolve) => child.once('exit', resolve));
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(stateRoot, { recursive: true, force: true });
}

/** When each node was told a revision and when the server first showed it Done with it. */
class RolloutTracker {
  revision: string | undefined;
  readonly toldAt = new Map<string, number>();
  readonly doneAt = new Map<string, number>();
  private allDone: (() => void) | undefined;
  private expected = 0;

  observe(name: string, node: KubeObject | undefined): void {
    if (this.revision === undefined || node === undefined || this.doneAt.has(name)) return;
    const annotations = node.metadata?.annotations ?? {};
    if (
      annotations[CURRENT_REVISION_ANNOTATION] !== this.revision ||
      annotations[STATE_ANNOTATION] !== 'Done'
    )
      return;
    this.doneAt.set(name, performance.now());
    if (this.doneAt.size >= this.expected) this.allDone?.();
  }

  track(revision: string, expected: number): Promise<void> {
    this.revision = revision;
    this.expected = expected;
    return new Promise((resolve) => {
      this.allDone = resolve;
    });
  }
}

async function applyEverywhere(
  fleet: Fleet,
  admin: LightKubeClient,
  rollout: RolloutTracker,
): Promise<{ wallMs: number; p50: number; p99: number; failed: number }> {
  const revision = await createRevision(admin);
  const names = fleet.names();
  const done = rollout.track(revision.metadata.name, names.length);
  const started = performance.now();
  const queue = [...names];
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
        rollout.toldAt.set(name, performance.now());
        await admin.patch(`/api/v1/nodes/${name}`, {
          metadata: { annotations: { [DESIRED_REVISION_ANNOTATION]: revision.metadata.name } },
        });
      }
    }),
  );
  // The limit's timer must not outlive the race: a pending timer keeps the process alive for 5 min.
  let limit: NodeJS.Timeout | undefined;
  await Promise.race([done, new Promise((resolve) => (limit = setTimeout(resolve, 300_000)))]);
  clearTimeout(limit);
  const wallMs = performance.now() - started;
  const latencies = [...rollout.doneAt]
    .map(([name, at]) => at - rollout.toldAt.get(name)!)
    .sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
  return { wallMs, p50: at(0.5), p99: at(0.99), failed: names.length - latencies.length };
}

async function createRevision(admin: LightKubeClient): Promise<NodeConfigRevision> {
  const spec = {
    files: [{ path: '/etc/kubernetes/kubelet-extra.conf', content: { inline: { data: 'maxPods: 200\n' } } }],
    units: [
      {
        name: 'kubelet.service',
        dropIns: [{ name: '20-nodeherd.conf', content: '[Service]\nEnvironment=MAX_PODS=200\n' }],
        filePaths: ['/etc/kubernetes/kubelet-extra.conf'],
        healthProbe: { http: { url: 'http://127.0.0.1:10248/healthz' }, timeoutSeconds: 5 },
      },
    ],
  };
  const result = renderConfigs([
    { apiVersion: 'nodeherd.io/v1alpha1', kind: 'NodeConfig', metadata: { name: 'kubelet' }, spec },
  ]);
  if (!result.config || !result.hash) throw new Error(`render failed: ${JSON.stringify(result.errors)}`);
  const revision = buildRevision(
    {
      apiVersion: 'nodeherd.io/v1alpha1',
      kind: 'NodeConfigPool',
      metadata: { name: 'bench' },
      spec: { nodeSelector: {}, configSelector: {} },
    },
    {
      config: result.config,
      hash: result.hash,
      hashAlgorithm: result.hashAlgorithm,
      sources: result.sources,
    },
    1,
  );
  await admin.create('/apis/nodeherd.io/v1alpha1/nodeconfigrevisions', revision);
  return revision;
}

function totalRequests(fleet: Fleet, admin: LightKubeClient, mode: 'node' | 'shared'): number {
  if (mode === 'shared') return admin.stats().requests;
  let sum = admin.stats().requests;
  for (const client of nodeClients(fleet)) sum += client.stats().requests;
  return sum;
}

function sumConnections(fleet: Fleet): number {
  let sum = 0;
  for (const client of nodeClients(fleet)) sum += client.stats().connections;
  return sum;
}

/** Every node's clients: its agent's and, when it has an identity of its own, its kubelet's. */
function nodeClients(fleet: Fleet): LightKubeClient[] {
  return fleet.names().flatMap((name) => {
    const node = fleet.node(name)!;
    return node.kubeletClient === node.client ? [node.client] : [node.client, node.kubeletClient];
  });
}

/** One wheel against one setInterval per node: heap, and CPU while idle-ticking. */
async function timerComparison(count: number): Promise<void> {
  const gc = collector();
  const periodMs = 1_000;
  const runS = 5;
  let fired = 0;
  const task = () => {
    fired++;
  };

  gc();
  let heap = process.memoryUsage().heapUsed;
  const intervals = Array.from({ length: count }, (_, i) => {
    const timer = setInterval(task, periodMs + (i % 100)); // phases spread like the wheel's
    timer.unref();
    return timer;
  });
  gc();
  const intervalHeap = process.memoryUsage().heapUsed - heap;
  let cpu = process.cpuUsage();
  await sleep(runS * 1000);
  const intervalCpu = cpuMs(process.cpuUsage(cpu));
  const intervalFired = fired;
  for (const timer of intervals) clearInterval(timer);

  fired = 0;
  gc();
  heap = process.memoryUsage().heapUsed;
  const wheel = new HeartbeatWheel({ periodMs });
  const members = Array.from({ length: count }, () => wheel.add(task));
  gc();
  const wheelHeap = process.memoryUsage().heapUsed - heap;
  cpu = process.cpuUsage();
  await sleep(runS * 1000);
  const wheelCpu = cpuMs(process.cpuUsage(cpu));
  for (const member of members) wheel.remove(member);

  console.log(`\n## timers: ${count} periodic tasks, ${periodMs} ms period, ${runS} s`);
  console.log(
    `setInterval per task: heap ${(intervalHeap / count).toFixed(0)} B/task, CPU ${intervalCpu.toFixed(0)} ms, ${intervalFired} calls`,
  );
  console.log(
    `one HeartbeatWheel:   heap ${(wheelHeap / count).toFixed(0)} B/task, CPU ${wheelCpu.toFixed(0)} ms, ${fired} calls`,
  );
}

function collector(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  return () => {
    gc();
    gc();
  };
}

function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb * 1024;
}

/** utime + stime of a process, in clock ticks (1/100 s on Linux). */
function cpuTicksOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// Last, so every class and function above is initialised before it runs.
if (process.argv.includes(SERVE_FLAG)) {
  await serve();
} else {
  await main();
}

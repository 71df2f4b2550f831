// The API server process of the benchmark: exactly what `nodeherd apiserver` runs (ApiServer.start on
// a data dir, port 0), plus an IPC channel that reports the process's memory split (V8 heap, external,
// RSS) after a full GC, so the benchmark can tell JavaScript objects from native (TLS, SQLite) memory.
// Run with --expose-gc.

import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pino from 'pino';
import { ApiServer, type ApiServerOptions } from '../../src/apiserver/api-server.ts';
import { parseRequestInfo } from '../../src/apiserver/http/request-info.ts';
import { nodeherdProfile } from '../../src/profile/nodeherd-profile.ts';

export interface MemoryReport {
  rssMb: number;
  peakMb: number;
  heapUsedMb: number;
  heapTotalMb: number;
  externalMb: number;
  arrayBuffersMb: number;
  openWatches: number;
  /** Client connections open now, and the most open at once since the server started: each TLS
   * connection costs the server ~60–75 KB of RSS (docs/apiserver.md, Memory per watch). */
  connections: number;
  peakConnections: number;
  /** Event-loop delay since the previous report: how long the server was unable to react. */
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
}

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: apiserver-child.ts <data dir>');
// Benchmarks on a scaled clock shorten the node lifecycle controller's grace period (default 40 s).
const graceMs = process.env.BENCH_NODE_MONITOR_GRACE_MS;
// Server options as JSON (e.g. the fairness limits bench/apiserver-fairness.bench.ts compares).
const extraOptions = JSON.parse(process.env.BENCH_APISERVER_OPTIONS ?? '{}') as Partial<ApiServerOptions>;
const server = await ApiServer.start({
  dataDir,
  port: 0,
  profile: nodeherdProfile(),
  ...(graceMs ? { nodeMonitorGracePeriodMs: Number(graceMs) } : {}),
  ...extraOptions,
  logger: pino({ level: process.env.NODEHERD_LOG_LEVEL ?? 'warn', name: 'apiserver' }),
});
process.stdout.write(`nodeherd API server listening on ${server.url}\n`);

/**
 * Requests received, by "verb resource[/subresource]" (kube-apiserver's verbs: watch, list, get,
 * patch…), Leases of kube-node-lease (the kubelets' heartbeats) as "leases (heartbeats)" apart from
 * the others (Serial slots, leader election); those answered 409 (a lost compare-and-swap or create
 * race) once more as "… 409".
 */
const requests = new Map<string, number>();
// Connections, counted by their first request (a client connects to send one).
const sockets = new Set<object>();
let peakConnections = 0;
server.onRequest((req, res) => {
  const socket = req.socket;
  if (!sockets.has(socket)) {
    sockets.add(socket);
    peakConnections = Math.max(peakConnections, sockets.size);
    socket.once('close', () => sockets.delete(socket));
  }
  const url = new URL(req.url ?? '/', 'https://server');
  const info = parseRequestInfo(req.method ?? 'GET', url.pathname, url.searchParams);
  const key = info.isResourceRequest
    ? `${info.verb} ${info.resource}${info.subresource ? `/${info.subresource}` : ''}${
        info.resource === 'leases' && info.namespace === 'kube-node-lease' ? ' (heartbeats)' : ''
      }`
    : `${info.verb} ${info.path}`;
  requests.set(key, (requests.get(key) ?? 0) + 1);
  res.once('finish', () => {
    if (res.statusCode === 409) requests.set(`${key} 409`, (requests.get(`${key} 409`) ?? 0) + 1);
  });
});

const gc = (globalThis as { gc?: () => void }).gc;
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
let profiler: Session | undefined;

/** A CPU profile of one phase of a benchmark (BENCH_CPU_PROF profiles the whole life with --cpu-prof). */
async function profile(action: 'start' | 'stop', dir: string | undefined): Promise<string | undefined> {
  if (action === 'start') {
    profiler = new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
    return undefined;
  }
  if (!profiler) throw new Error('no profile was started');
  const { profile: result } = await profiler.post('Profiler.stop');
  profiler.disconnect();
  profiler = undefined;
  const path = join(dir ?? '.', `apiserver-${Date.now()}.cpuprofile`);
  writeFileSync(path, JSON.stringify(result));
  return path;
}

type Command =
  | { cmd: 'memory'; gc: boolean }
  | { cmd: 'stop' }
  | { cmd: 'requests' }
  | { cmd: 'profile'; action: 'start' | 'stop'; dir?: string };

process.on('message', (message: Command) => {
  if (message.cmd === 'profile') {
    profile(message.action, message.dir).then((path) => process.send!({ profile: path }));
    return;
  }
  if (message.cmd === 'stop') {
    server.stop().then(() => process.exit(0));
    return;
  }
  if (message.cmd === 'requests') {
    process.send!({ requests: Object.fromEntries(requests) });
    return;
  }
  const loopDelayP99Ms = loopDelay.percentile(99) / 1e6;
  const loopDelayMaxMs = loopDelay.max / 1e6;
  if (message.gc && gc) {
    gc();
    // The collection just blocked the loop; do not count that against the next phase.
    setTimeout(() => loopDelay.reset(), 30);
  } else {
    loopDelay.reset();
  }
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  const m = process.memoryUsage();
  const mb = (bytes: number) => bytes / 1048576;
  const report: MemoryReport = {
    rssMb: kb('VmRSS') / 1024,
    peakMb: kb('VmHWM') / 1024,
    heapUsedMb: mb(m.heapUsed),
    heapTotalMb: mb(m.heapTotal),
    externalMb: mb(m.external),
    arrayBuffersMb: mb(m.arrayBuffers),
    openWatches: server.openWatches,
    connections: sockets.size,
    peakConnections,
    loopDelayP99Ms,
    loopDelayMaxMs,
  };
  process.send!(report);
});
process.once('SIGTERM', () => {
  server.stop().then(() => process.exit(0));
});
// The benchmark died without stopping this server (killed, or an uncaught error): its IPC channel
// closes with it. Stop rather than run on as an orphan that takes a core from the next benchmark.
process.once('disconnect', () => {
  server.stop().finally(() => process.exit(0));
});

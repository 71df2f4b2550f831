// Benchmark of the embedded API server as users run it: `nodeherd apiserver` in its own process,
// driven over real HTTPS with keep-alive connections. Prints its figures; not a test.
//
//   node bench/apiserver.bench.ts
//
// 1. Writes per second: one ConfigMap patched over and over; many ConfigMaps created; 5,000 Nodes created.
// 2. 10,000 concurrent watches, as 5,000 node agents hold them (each: its own Node by
//    fieldSelector metadata.name, and its pool's NodeConfigRevision by name, with bookmarks), opened
//    from separate processes. Then Node writes (paced like a steady rollout, and as fast as
//    possible) and NodeConfigRevision writes fanned out to 500 watchers each; latency is measured
//    from just before each write is sent to the moment the watcher has parsed the event.
// 3. Server RSS (VmRSS from /proc): idle, with 10,000 watches, and its peak.
//
// Environment: BENCH_NODES (default 5000), BENCH_WATCH_PROCESSES (4), BENCH_ONLY=writes (skip the
// watches), BENCH_NODE_FLAGS (extra node flags for the server, e.g. --trace-gc), BENCH_SERVER_OUTPUT=1
// (show the server's output on stderr), BENCH_CPU_PROF=1 (CPU profile of the server in
// bench/.out/profiles/).

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderConfigs } from '../src/api/render.ts';
import { buildRevision } from '../src/api/revision.ts';
import type { NodeConfigRevision } from '../src/api/types.ts';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process.ts';
import {
  type Connection,
  closedLoop,
  connections,
  paced,
  percentile,
  type RunResult,
  wallMs,
} from './support/https-client.ts';
import { benchNumber } from './support/quick.ts';
import { type FigureTarget, reportFigure } from './support/report.ts';
import { type FleetReply, SENT_AT } from './support/watch-fleet.ts';
import { type Fleet, startFleet } from './support/watch-fleet-process.ts';

const NODES = benchNumber('BENCH_NODES', 5000, 1000);
const WATCH_PROCESSES = Number(process.env.BENCH_WATCH_PROCESSES ?? 4);
const POOLS = 10;
const CONNECTIONS = 4;
const figures: [string, string][] = [];

function report(name: string, value: string): void {
  figures.push([name, value]);
  process.stdout.write(`  ${name}: ${value}\n`);
}

const ms = (v: number) => `${v.toFixed(1)} ms`;

/** The API server's targets (issue 1). */
const WRITES_TARGET: FigureTarget = { op: '>=', value: 2000 };
const DELIVERY_P99_TARGET: FigureTarget = { op: '<=', value: 50 };
const RSS_WITH_WATCHES_TARGET: FigureTarget = { op: '<=', value: 300 };

function reportRun(name: string, run: RunResult, target?: FigureTarget): void {
  reportFigure({
    bench: 'apiserver',
    name,
    value: run.perSecond,
    unit: 'writes/s',
    ...(target ? { target } : {}),
    note: `request p99 ${ms(percentile(run.latencies, 99))}`,
  });
  report(
    name,
    `${Math.round(run.perSecond)} writes/s (${run.count} in ${run.seconds.toFixed(2)} s; request p50 ${ms(percentile(run.latencies, 50))}, p99 ${ms(percentile(run.latencies, 99))})`,
  );
}

function reportDelivery(name: string, latencies: number[], expected: number, target?: FigureTarget): void {
  reportFigure({
    bench: 'apiserver',
    name: `${name.trim()}, p99`,
    value: percentile(latencies, 99),
    unit: 'ms',
    ...(target ? { target } : {}),
    note: `${latencies.length}/${expected} events delivered, ${NODES * 2} watches`,
  });
  report(
    name,
    `${latencies.length}/${expected} events; p50 ${ms(percentile(latencies, 50))}, p99 ${ms(percentile(latencies, 99))}, max ${ms(Math.max(...latencies))}`,
  );
}

/** The server's event-loop delay since the last reading: stalls (GC, long synchronous work). */
async function stalls(server: ApiServerProcess, label: string): Promise<void> {
  const m = await server.memory(false);
  report(`  server event-loop delay ${label}`, `p99 ${ms(m.loopDelayP99Ms)}, max ${ms(m.loopDelayMaxMs)}`);
}

async function memory(server: ApiServerProcess, label: string, target?: FigureTarget): Promise<number> {
  const m = await server.memory();
  reportFigure({
    bench: 'apiserver',
    name: `server RSS ${label}`,
    value: m.rssMb,
    unit: 'MB',
    ...(target ? { target } : {}),
    note: `peak so far ${m.peakMb.toFixed(1)} MB`,
  });
  report(
    `server RSS ${label}`,
    `${m.rssMb.toFixed(1)} MB (peak so far ${m.peakMb.toFixed(1)} MB; after GC: V8 heap ${m.heapUsedMb.toFixed(1)} MB used of ${m.heapTotalMb.toFixed(1)}, external ${m.externalMb.toFixed(1)} MB)`,
  );
  return m.rssMb;
}

const sleep = (msec: number) => new Promise((r) => setTimeout(r, msec));

/** ~1 KB of data, like a small real ConfigMap. */
const filler = 'x'.repeat(1000);

/**
 * A Node of realistic size (about 3 KB of JSON), as a kubelet and nodeherd agent would leave it. No
 * kubelet renews its heartbeat here, so the Ready heartbeat is stamped an hour ahead: otherwise the
 * node lifecycle controller marks all of them NotReady 40 s in, in the middle of a measurement.
 */
const heartbeat = new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
function nodeObject(name: string, pool: number) {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'topology.kubernetes.io/zone': `zone-${pool % 3}`,
        'nodeherd.io/pool': `pool-${pool}`,
      },
      annotations: {
        'nodeherd.io/current-revision': `pool-${pool}-0`,
        'nodeherd.io/state': 'Done',
      },
    },
    spec: { podCIDR: '10.0.0.0/24' },
    status: {
      conditions: ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready', 'NodeConfigReady'].map(
        (type) => ({
          type,
          status: type === 'Ready' || type === 'NodeConfigReady' ? 'True' : 'False',
          lastHeartbeatTime: heartbeat,
          lastTransitionTime: '2026-01-01T00:00:00Z',
          reason: `${type}Reason`,
          message: `the node reports ${type}`,
        }),
      ),
      addresses: [
        { type: 'InternalIP', address: '10.0.0.1' },
        { type: 'Hostname', address: name },
      ],
      capacity: { cpu: '4', memory: '8Gi', pods: '110', 'ephemeral-storage': '100Gi' },
      allocatable: { cpu: '4', memory: '8Gi', pods: '110', 'ephemeral-storage': '100Gi' },
      nodeInfo: {
        machineID: 'a'.repeat(32),
        systemUUID: 'b'.repeat(32),
        bootID: 'c'.repeat(36),
        kernelVersion: '6.1.0-18-amd64',
        osImage: 'Debian GNU/Linux 12 (bookworm)',
        containerRuntimeVersion: 'containerd://1.7.0',
        kubeletVersion: 'v1.32.0',
        kubeProxyVersion: 'v1.32.0',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
    },
  };
}

/** One valid NodeConfigRevision per pool, rendered by the real renderer. */
function revisionObject(pool: number): NodeConfigRevision {
  const result = renderConfigs([
    {
      apiVersion: 'nodeherd.io/v1alpha1',
      kind: 'NodeConfig',
      metadata: { name: `base-${pool}` },
      spec: {
        files: [
          { path: '/etc/motd', content: { inline: { data: `pool ${pool}\n` } } },
          { path: '/etc/sysctl.d/90-bench.conf', content: { inline: { data: 'vm.swappiness = 10\n' } } },
        ],
        units: [
          {
            name: 'motd.service',
            content: '[Service]\nExecStart=/bin/cat /etc/motd\n',
            filePaths: ['/etc/motd'],
          },
        ],
      },
    },
  ]);
  if (!result.config || !result.hash) throw new Error(`render failed: ${JSON.stringify(result.errors)}`);
  return buildRevision(
    {
      apiVersion: 'nodeherd.io/v1alpha1',
      kind: 'NodeConfigPool',
      metadata: { name: `pool-${pool}` },
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
}

async function collect(fleets: Fleet[]) {
  const replies = (await Promise.all(fleets.map((f) => f.ask({ cmd: 'collect' })))) as Extract<
    FleetReply,
    { type: 'collected' }
  >[];
  return {
    latencies: replies.flatMap((r) => r.latencies),
    events: replies.reduce((n, r) => n + r.events, 0),
    bookmarks: replies.reduce((n, r) => n + r.bookmarks, 0),
    closed: replies.reduce((n, r) => n + r.closed, 0),
    errors: replies.reduce((n, r) => n + r.errors, 0),
  };
}

/** Waits until the watchers have received `expected` timed events (or a timeout), then collects. */
async function awaitDeliveries(fleets: Fleet[], expected: number, timeoutMs = 20_000) {
  const latencies: number[] = [];
  let closed = 0;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await collect(fleets);
    latencies.push(...got.latencies);
    closed += got.closed;
    if (latencies.length >= expected || Date.now() > deadline) return { latencies, closed };
    await sleep(200);
  }
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'nodeherd-apiserver-bench-'));
  const profileDir = join(import.meta.dirname, '.out', 'profiles');
  const nodeFlags: string[] = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  if (process.env.BENCH_CPU_PROF === '1') {
    mkdirSync(profileDir, { recursive: true });
    nodeFlags.push('--cpu-prof', `--cpu-prof-dir=${profileDir}`);
  }
  const started = performance.now();
  process.stdout.write(
    `API server benchmark (node ${process.version}, ${NODES} nodes, ${NODES * 2} watches)\n`,
  );
  const server = await startApiServerProcess({ dataDir, nodeFlags });
  const fleets: Fleet[] = [];
  let conns: Connection[] = [];
  try {
    conns = connections(CONNECTIONS, server.url, server.token, server.caPem);
    await sleep(500);
    await memory(server, 'at start (empty)');

    // ------------------------------------------------------------------ writes per second
    process.stdout.write('writes (HTTPS, keep-alive):\n');
    const hot = '/api/v1/namespaces/default/configmaps/hot';
    await conns[0]!.send('POST', '/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'hot' },
      data: { n: '0', filler },
    });
    const patchHot = (i: number) => ({
      method: 'PATCH',
      path: hot,
      body: { data: { n: String(i) } },
      contentType: 'application/merge-patch+json',
    });
    reportRun(
      'one object, merge patches, 1 connection',
      await closedLoop(conns.slice(0, 1), patchHot, { seconds: 3 }),
    );
    reportRun(
      `one object, merge patches, ${CONNECTIONS} connections`,
      await closedLoop(conns, patchHot, { seconds: 3 }),
      WRITES_TARGET,
    );
    reportRun(
      `many objects, ConfigMap creates (1 KB), ${CONNECTIONS} connections`,
      await closedLoop(
        conns,
        (i) => ({
          method: 'POST',
          path: '/api/v1/namespaces/default/configmaps',
          body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { filler } },
        }),
        { seconds: 4 },
      ),
      WRITES_TARGET,
    );
    reportRun(
      `many objects, ${NODES} Node creates (3 KB), ${CONNECTIONS} connections`,
      await closedLoop(
        conns,
        (i) => ({ method: 'POST', path: '/api/v1/nodes', body: nodeObject(`node-${i}`, i % POOLS) }),
        {
          total: NODES,
        },
      ),
      WRITES_TARGET,
    );
    const revisions = Array.from({ length: POOLS }, (_, p) => revisionObject(p));
    for (const revision of revisions) {
      const r = await conns[0]!.send('POST', '/apis/nodeherd.io/v1alpha1/nodeconfigrevisions', revision);
      if (r.status !== 201)
        throw new Error(`revision create: ${r.status} ${JSON.stringify(r.json).slice(0, 400)}`);
    }
    await sleep(1000);
    await memory(server, `idle with ${NODES} Nodes and the ConfigMaps`);

    if (process.env.BENCH_ONLY === 'writes') return;

    // ------------------------------------------------------------------ 10,000 watches
    process.stdout.write(`watches (${WATCH_PROCESSES} watcher processes):\n`);
    const current = (await conns[0]!.send('GET', '/api/v1/nodes?limit=1')).json.metadata.resourceVersion;
    const paths: string[][] = Array.from({ length: WATCH_PROCESSES }, () => []);
    for (let i = 0; i < NODES; i++) {
      const pool = i % POOLS;
      const bucket = paths[i % WATCH_PROCESSES]!;
      bucket.push(
        `/api/v1/nodes?watch=true&allowWatchBookmarks=true&resourceVersion=${current}&fieldSelector=metadata.name%3Dnode-${i}`,
      );
      bucket.push(
        `/apis/nodeherd.io/v1alpha1/nodeconfigrevisions?watch=true&allowWatchBookmarks=true&resourceVersion=${current}&fieldSelector=metadata.name%3D${revisions[pool]!.metadata.name}`,
      );
    }
    for (let f = 0; f < WATCH_PROCESSES; f++) fleets.push(startFleet());
    const openStarted = performance.now();
    const opened = (await Promise.all(
      fleets.map((fleet, f) =>
        fleet.ask({
          cmd: 'open',
          url: server.url,
          token: server.token,
          caPem: server.caPem,
          paths: paths[f]!,
          concurrency: 64,
        }),
      ),
    )) as Extract<FleetReply, { type: 'opened' }>[];
    const ok = opened.reduce((n, o) => n + o.ok, 0);
    const failed = opened.reduce((n, o) => n + o.failed, 0);
    report(
      'watches opened',
      `${ok} of ${NODES * 2} in ${((performance.now() - openStarted) / 1000).toFixed(1)} s${failed ? `; ${failed} failed: ${opened.find((o) => o.firstError)?.firstError}` : ''}`,
    );
    await sleep(2000);
    await collect(fleets); // drop anything that arrived while opening
    await memory(server, `with ${ok} watches open`, RSS_WITH_WATCHES_TARGET);

    // Steady rollout: Node annotation writes at a fixed rate, one watcher each.
    const patchNode = (i: number) => ({
      method: 'PATCH',
      path: `/api/v1/nodes/node-${i % NODES}`,
      body: {
        metadata: {
          annotations: {
            'nodeherd.io/desired-revision': `pool-${i % POOLS}-${i}`,
            [SENT_AT]: String(wallMs()),
          },
        },
      },
      contentType: 'application/merge-patch+json',
    });
    // Idle: 5 s with nothing but bookmarks and the controllers' periodic work (start the window after
    // the forced GC of the memory reading above has been recorded).
    await sleep(500);
    await server.memory(false);
    await sleep(5000);
    await stalls(server, 'over 5 s idle with the watches');
    const steadyRate = 500;
    const steadyCount = 2500;
    const steady = await paced(conns, patchNode, steadyRate, steadyCount);
    const steadyDelivered = await awaitDeliveries(fleets, steadyCount);
    reportRun(`Node patches paced at ${steadyRate}/s with the watches open`, steady);
    reportDelivery(
      `  delivery latency at ${steadyRate}/s (write sent → watcher parsed)`,
      steadyDelivered.latencies,
      steadyCount,
      DELIVERY_P99_TARGET,
    );
    await stalls(server, 'during the paced writes');

    // Burst: every Node patched as fast as the connections go.
    const burst = await closedLoop(conns, (i) => patchNode(i + steadyCount), { total: NODES });
    const burstDelivered = await awaitDeliveries(fleets, NODES);
    reportRun(`Node patches, closed loop, ${CONNECTIONS} connections, with the watches open`, burst);
    reportDelivery('  delivery latency in the burst', burstDelivered.latencies, NODES);
    await stalls(server, 'during the burst');

    // Fan-out: each revision write reaches the 500 agents of its pool.
    const fanOutWrites = POOLS * 4;
    const fanOut = await paced(
      conns.slice(0, 1),
      (i) => ({
        method: 'PATCH',
        path: `/apis/nodeherd.io/v1alpha1/nodeconfigrevisions/${revisions[i % POOLS]!.metadata.name}`,
        body: {
          metadata: { annotations: { [SENT_AT]: String(wallMs()), 'bench.nodeherd.io/n': String(i) } },
        },
        contentType: 'application/merge-patch+json',
      }),
      20,
      fanOutWrites,
    );
    const perWrite = NODES / POOLS;
    const fanOutDelivered = await awaitDeliveries(fleets, fanOutWrites * perWrite);
    reportRun(`NodeConfigRevision patches at 20/s, each to ${perWrite} watchers`, fanOut);
    reportDelivery('  delivery latency of the fan-out', fanOutDelivered.latencies, fanOutWrites * perWrite);
    await stalls(server, 'during the fan-out');
    const closedDuring = steadyDelivered.closed + burstDelivered.closed + fanOutDelivered.closed;
    report('watches closed by the server during the run', String(closedDuring));
    await memory(server, 'after the event bursts');
  } finally {
    for (const fleet of fleets) await fleet.ask({ cmd: 'exit' });
    for (const c of conns) c.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  process.stdout.write(`total ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  if (process.env.BENCH_CPU_PROF === '1') process.stdout.write(`server CPU profile in ${profileDir}\n`);
}

await main();

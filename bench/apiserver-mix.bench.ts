// The API server's CPU per request, on the requests a rollout sends (issue 17): what a 1,000-node
// RollingUpdate in bench/strategies.bench.ts makes the server do, without the fleet and the controller
// around it, so the server's own cost can be measured and profiled alone. `nodeherd apiserver` runs in
// its own process with the watches a fleet holds open (each node's agent: its Node by
// fieldSelector metadata.name, and its pool's NodeConfigRevision, with bookmarks), and is sent, over
// keep-alive HTTPS:
//
// - Lease renewals: PUT of the whole kube-node-lease Lease with a new renewTime (the simulated kubelet);
// - merge patches of a Node's agent annotations (the agent's state), each timed to its watcher;
// - strategic merge patches of nodes/status with the four kubelet conditions (heartbeats);
// - Event creates about a Node;
// - lists of NodeConfigRevisions and merge patches of the pool's status.
//
// Per kind: the server's CPU time per request (user + system, from /proc/<pid>/stat) at a fixed rate;
// then the mix in the rollout's proportions at a fixed rate (CPU per request, share of a core, watch
// delivery latency of the Node patches); then the mix in a closed loop (requests per second).
//
//   node bench/apiserver-mix.bench.ts
//
// Environment: BENCH_MIX_NODES (default 1000), BENCH_MIX_RATE (requests/s of the paced runs, 300),
// BENCH_MIX_SECONDS (length of each paced run, 10), BENCH_MIX_CONNECTIONS (8), BENCH_MIX_IDENTITIES=nodes
// (send as each node's kubelet and agent instead of the admin: authorization and admission too),
// BENCH_MIX_ONLY=mix (skip the kinds alone), BENCH_CPU_PROF=1 (CPU profile of the server, of the mix runs only, in bench/.out/profiles/).

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderConfigs } from '../src/api/render.ts';
import { buildRevision } from '../src/api/revision.ts';
import { TokenStore } from '../src/apiserver/auth/tokens.ts';
import { nodeherdIdentities } from '../src/profile/nodeherd-identities.ts';
import { kubeMicroTime, nodeConditions, nodeObject, READY } from '../src/sim/node-object.ts';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process.ts';
import { Connection, percentile, wallMs } from './support/https-client.ts';
import { benchNumber } from './support/quick.ts';
import { reportFigure } from './support/report.ts';
import { MESSAGE_ANNOTATION, SENT_AT, SENT_AT_MESSAGE_PREFIX } from './support/watch-fleet.ts';
import { type Fleet, startFleet } from './support/watch-fleet-process.ts';

const NODES = benchNumber('BENCH_MIX_NODES', 1000, 200);
const RATE = benchNumber('BENCH_MIX_RATE', 300, 200);
const SECONDS = benchNumber('BENCH_MIX_SECONDS', 10, 3);
const CONNECTIONS = benchNumber('BENCH_MIX_CONNECTIONS', 8, 8);
const NODE_IDENTITIES = process.env.BENCH_MIX_IDENTITIES === 'nodes';
const PROFILE = process.env.BENCH_CPU_PROF === '1';
const WATCH_PROCESSES = 2;
const GROUP = '/apis/nodeherd.io/v1alpha1';
const POOL = 'bench';

interface Request {
  method: string;
  path: string;
  body?: unknown;
  contentType?: string;
  /** Called with the answer (a Lease renewal keeps the Lease it got back, as kubelet does). */
  done?: (json: any) => void;
}

type Kind =
  | 'update leases'
  | 'patch nodes'
  | 'patch nodes/status'
  | 'create events'
  | 'list revisions'
  | 'patch pool status';

/** The rollout's proportions (strategies bench, RollingUpdate at 1,000 nodes, good change). */
const MIX: [Kind, number][] = [
  ['update leases', 34],
  ['patch nodes', 25],
  ['patch nodes/status', 21],
  ['create events', 12],
  ['list revisions', 5],
  ['patch pool status', 3],
];

const leases: any[] = [];
let counter = 0;
const started = Date.now();

function make(kind: Kind, i: number): Request {
  const node = i % NODES;
  const name = `node-${node}`;
  switch (kind) {
    case 'update leases': {
      const lease = leases[node];
      return {
        method: 'PUT',
        path: `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${name}`,
        body: { ...lease, spec: { ...lease.spec, renewTime: kubeMicroTime(Date.now()) } },
        done: (json) => {
          leases[node] = json;
        },
      };
    }
    case 'patch nodes':
      return {
        method: 'PATCH',
        path: `/api/v1/nodes/${name}`,
        body: {
          metadata: {
            annotations: {
              'nodeherd.io/state': i % 2 === 0 ? 'Applying' : 'Done',
              'nodeherd.io/state-revision': `rev-${i}`,
              // The agent's identity may write only its protocol's annotations: the stamp rides in one.
              ...(NODE_IDENTITIES
                ? { [MESSAGE_ANNOTATION]: `${SENT_AT_MESSAGE_PREFIX}${wallMs()}` }
                : { [SENT_AT]: String(wallMs()) }),
            },
          },
        },
        contentType: 'application/merge-patch+json',
      };
    case 'patch nodes/status':
      return {
        method: 'PATCH',
        path: `/api/v1/nodes/${name}/status`,
        body: { status: { conditions: nodeConditions(READY, Date.now(), started) } },
        contentType: 'application/strategic-merge-patch+json',
      };
    case 'create events': {
      const at = Date.now();
      const stamp = new Date(at).toISOString().replace(/\.\d+Z$/, 'Z');
      return {
        method: 'POST',
        path: '/api/v1/namespaces/default/events',
        body: {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name: `${name}.${at.toString(16)}${(counter++).toString(16)}`, namespace: 'default' },
          involvedObject: { apiVersion: 'v1', kind: 'Node', name, uid: name },
          type: 'Normal',
          reason: 'Applying',
          message: `applying revision rev-${i}`,
          source: { component: 'nodeherd-agent' },
          reportingComponent: 'nodeherd-agent',
          reportingInstance: name,
          firstTimestamp: stamp,
          lastTimestamp: stamp,
          count: 1,
        },
      };
    }
    case 'list revisions':
      return { method: 'GET', path: `${GROUP}/nodeconfigrevisions` };
    case 'patch pool status':
      return {
        method: 'PATCH',
        path: `${GROUP}/nodeconfigpools/${POOL}/status`,
        body: { status: { observedGeneration: 1, updatedNodes: i % NODES, readyNodes: NODES } },
        contentType: 'application/merge-patch+json',
      };
  }
}

/** Kind of the i-th request of the mix: the proportions, interleaved. */
function mixKind(i: number): Kind {
  const total = MIX.reduce((n, [, w]) => n + w, 0);
  let slot = (i * 37) % total;
  for (const [kind, weight] of MIX) {
    if (slot < weight) return kind;
    slot -= weight;
  }
  return MIX[0]![0];
}

interface Cpu {
  user: number;
  system: number;
  /** User + system of the main thread (the event loop) alone. */
  main: number;
}

/** CPU seconds the process has used (user, system) and its main thread (user + system). */
function cpuOf(pid: number): Cpu {
  const ticks = (path: string) => {
    // utime and stime are fields 14 and 15 of stat (11 and 12 after the command); ticks of 1/100 s.
    const fields = readFileSync(path, 'utf8').split(') ')[1]!.split(' ');
    return [Number(fields[11]) / 100, Number(fields[12]) / 100] as const;
  };
  const [user, system] = ticks(`/proc/${pid}/stat`);
  const [mainUser, mainSystem] = ticks(`/proc/${pid}/task/${pid}/stat`);
  return { user, system, main: mainUser + mainSystem };
}

function cpuSince(pid: number, before: Cpu): Cpu {
  const now = cpuOf(pid);
  return { user: now.user - before.user, system: now.system - before.system, main: now.main - before.main };
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');

interface Clients {
  admin: Connection[];
  kubelet: (node: number) => Connection;
  agent: (node: number) => Connection;
}

interface Run {
  count: number;
  seconds: number;
  cpu: Cpu;
  latencies: number[];
}

async function send(c: Connection, r: Request): Promise<void> {
  const reply = await c.send(r.method, r.path, r.body, r.contentType);
  if (reply.status < 200 || reply.status >= 300) {
    throw new Error(
      `${r.method} ${r.path}: HTTP ${reply.status} ${JSON.stringify(reply.json).slice(0, 300)}`,
    );
  }
  r.done?.(reply.json);
}

/** Whose token a kind of request goes with (BENCH_MIX_IDENTITIES=nodes), as the fleet sends them. */
const SENDER: Record<Kind, 'kubelet' | 'agent' | 'admin'> = {
  'update leases': 'kubelet',
  'patch nodes': 'agent',
  'patch nodes/status': 'kubelet',
  'create events': 'agent',
  'list revisions': 'agent',
  'patch pool status': 'admin',
};

/** How many requests of each kind were made: the i-th of a kind goes to node i % NODES. */
const made = new Map<Kind, number>();

function nextOf(kind: Kind): number {
  const i = made.get(kind) ?? 0;
  made.set(kind, i + 1);
  return i;
}

/** A node's requests go over one connection (as the admin), so a Lease is never renewed twice at once. */
function connectionFor(clients: Clients, kind: Kind, i: number): Connection {
  const as = SENDER[kind];
  const node = i % NODES;
  if (as === 'admin' || !NODE_IDENTITIES) return clients.admin[node % clients.admin.length]!;
  return as === 'kubelet' ? clients.kubelet(node) : clients.agent(node);
}

/** Requests at a fixed rate; each connection sends one at a time (a request waits if its connection is busy). */
async function paced(
  server: ApiServerProcess,
  clients: Clients,
  kindOf: (i: number) => Kind,
  perSecond: number,
  seconds: number,
  offset: number,
): Promise<Run> {
  const total = Math.round(perSecond * seconds);
  const queues = new Map<Connection, Promise<void>>();
  const all: Promise<void>[] = [];
  const latencies: number[] = [];
  const cpu0 = cpuOf(server.pid);
  const t0 = performance.now();
  for (let i = 0; i < total; i++) {
    const wait = t0 + (i * 1000) / perSecond - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const kind = kindOf(offset + i);
    const n = nextOf(kind);
    const c = connectionFor(clients, kind, n);
    const job = (queues.get(c) ?? Promise.resolve()).then(async () => {
      const s = performance.now();
      await send(c, make(kind, n));
      latencies.push(performance.now() - s);
    });
    queues.set(c, job);
    // A failed request fails the run (Promise.all below), not the process before it can clean up.
    job.catch(() => {});
    all.push(job);
  }
  await Promise.all(all);
  const elapsed = (performance.now() - t0) / 1000;
  return { count: total, seconds: elapsed, cpu: cpuSince(server.pid, cpu0), latencies };
}

async function closedLoop(
  server: ApiServerProcess,
  clients: Clients,
  seconds: number,
  offset: number,
): Promise<Run> {
  let next = offset;
  const latencies: number[] = [];
  const cpu0 = cpuOf(server.pid);
  const t0 = performance.now();
  const until = t0 + seconds * 1000;
  await Promise.all(
    clients.admin.map(async (c, k) => {
      while (performance.now() < until) {
        const kind = mixKind(next++);
        // Each connection renews only its own nodes' Leases, so no two renewals of one Lease overlap.
        let n = nextOf(kind);
        if (kind === 'update leases') while ((n % NODES) % clients.admin.length !== k) n = nextOf(kind);
        const s = performance.now();
        await send(NODE_IDENTITIES ? connectionFor(clients, kind, n) : c, make(kind, n));
        latencies.push(performance.now() - s);
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  return { count: latencies.length, seconds: elapsed, cpu: cpuSince(server.pid, cpu0), latencies };
}

async function collectLatencies(fleets: Fleet[]): Promise<number[]> {
  const replies = await Promise.all(fleets.map((f) => f.ask({ cmd: 'collect' })));
  return replies.flatMap((r) => (r.type === 'collected' ? r.latencies : []));
}

const ms = (v: number) => `${v.toFixed(2)} ms`;

function reportRun(name: string, run: Run, extra = ''): void {
  const cpuSeconds = run.cpu.user + run.cpu.system;
  const perRequestMs = (cpuSeconds * 1000) / run.count;
  const share = (cpuSeconds / run.seconds) * 100;
  const split = `user ${ms((run.cpu.user * 1000) / run.count)}, system ${ms((run.cpu.system * 1000) / run.count)}, main thread ${ms((run.cpu.main * 1000) / run.count)}`;
  reportFigure({
    bench: 'apiserver-mix',
    name: `${name}: server CPU per request`,
    value: perRequestMs,
    unit: 'ms',
    note: `${run.count} requests in ${run.seconds.toFixed(1)} s, ${share.toFixed(0)} % of a core; load ${load()}`,
  });
  process.stdout.write(
    `  ${name}: ${ms(perRequestMs)} CPU per request (${split}; ${run.count} in ${run.seconds.toFixed(1)} s = ${(run.count / run.seconds).toFixed(0)}/s, server ${share.toFixed(0)} % of a core; request p50 ${ms(percentile(run.latencies, 50))}, p99 ${ms(percentile(run.latencies, 99))})${extra}; load ${load()}\n`,
  );
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'nodeherd-apiserver-mix-'));
  const profileDir = join(import.meta.dirname, '.out', 'profiles');
  process.stdout.write(
    `API server CPU per request (node ${process.version}, ${NODES} nodes, ${NODES * 2} watches, ${RATE} requests/s, ${CONNECTIONS} connections${NODE_IDENTITIES ? ', as the nodes' : ', as the admin'}); load ${load()}\n`,
  );
  const server = await startApiServerProcess({ dataDir });
  const fleets: Fleet[] = [];
  const all: Connection[] = [];
  try {
    const admin = Array.from(
      { length: CONNECTIONS },
      () => new Connection(server.url, server.token, server.caPem),
    );
    all.push(...admin);
    let kubelet = (_node: number) => admin[0]!;
    let agent = (_node: number) => admin[0]!;
    if (NODE_IDENTITIES) {
      const tokens = TokenStore.open(dataDir, nodeherdIdentities);
      const per = async (kind: 'kubelet' | 'node') => {
        const conns: Connection[] = [];
        for (let n = 0; n < NODES; n++) {
          const issued = await tokens.rotate(kind, `node-${n}`);
          conns.push(new Connection(server.url, issued.token, server.caPem));
        }
        all.push(...conns);
        return conns;
      };
      const kubelets = await per('kubelet');
      const agents = await per('node');
      tokens.close();
      kubelet = (node) => kubelets[node]!;
      agent = (node) => agents[node]!;
    }
    const clients: Clients = { admin, kubelet, agent };

    // The fleet's objects: Nodes, their Leases, a pool and its revision.
    const setup = admin[0]!;
    const nodeUids: string[] = [];
    await Promise.all(
      admin.map(async (c, k) => {
        for (let n = k; n < NODES; n += admin.length) {
          const now = Date.now();
          const description = { name: `node-${n}`, labels: { pool: POOL } };
          const created = await c.send('POST', '/api/v1/nodes', nodeObject(description, READY, now, now));
          if (created.status !== 201) throw new Error(`node create: ${created.status}`);
          nodeUids[n] = created.json.metadata.uid;
          const lease = await c.send(
            'POST',
            '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases',
            {
              apiVersion: 'coordination.k8s.io/v1',
              kind: 'Lease',
              metadata: {
                name: `node-${n}`,
                namespace: 'kube-node-lease',
                ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: `node-${n}`, uid: nodeUids[n] }],
              },
              spec: { holderIdentity: `node-${n}`, leaseDurationSeconds: 40, renewTime: kubeMicroTime(now) },
            },
          );
          if (lease.status !== 201) throw new Error(`lease create: ${lease.status}`);
          leases[n] = lease.json;
        }
      }),
    );
    const pool = await setup.send('POST', `${GROUP}/nodeconfigpools`, {
      apiVersion: 'nodeherd.io/v1alpha1',
      kind: 'NodeConfigPool',
      metadata: { name: POOL },
      spec: {
        nodeSelector: { matchLabels: { pool: POOL } },
        configSelector: { matchLabels: { pool: POOL } },
      },
    });
    if (pool.status !== 201) throw new Error(`pool create: ${pool.status} ${JSON.stringify(pool.json)}`);

    const rendered = renderConfigs([
      {
        apiVersion: 'nodeherd.io/v1alpha1',
        kind: 'NodeConfig',
        metadata: { name: 'kubelet' },
        spec: { files: [{ path: '/etc/motd', content: { inline: { data: 'bench\n' } } }] },
      },
    ]);
    if (!rendered.config || !rendered.hash) throw new Error(`render: ${JSON.stringify(rendered.errors)}`);
    const revision = buildRevision(
      pool.json,
      {
        config: rendered.config,
        hash: rendered.hash,
        hashAlgorithm: rendered.hashAlgorithm,
        sources: rendered.sources,
      },
      1,
    );
    const REVISION = revision.metadata.name;
    const created = await setup.send('POST', `${GROUP}/nodeconfigrevisions`, revision);
    if (created.status !== 201)
      throw new Error(`revision create: ${created.status} ${JSON.stringify(created.json)}`);

    // The agents' watches: each its Node and its pool's revision, from the current revision.
    const rv = (await setup.send('GET', '/api/v1/nodes?limit=1')).json.metadata.resourceVersion;
    const paths: string[][] = Array.from({ length: WATCH_PROCESSES }, () => []);
    for (let n = 0; n < NODES; n++) {
      const bucket = paths[n % WATCH_PROCESSES]!;
      bucket.push(
        `/api/v1/nodes?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}&fieldSelector=metadata.name%3Dnode-${n}`,
      );
      bucket.push(
        `${GROUP}/nodeconfigrevisions?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}&fieldSelector=metadata.name%3D${REVISION}`,
      );
    }
    for (let f = 0; f < WATCH_PROCESSES; f++) fleets.push(startFleet());
    const opened = await Promise.all(
      fleets.map((fleet, f) =>
        fleet.ask({
          cmd: 'open',
          url: server.url,
          token: server.token,
          caPem: server.caPem,
          paths: paths[f]!,
          concurrency: 32,
        }),
      ),
    );
    const ok = opened.reduce((n, o) => n + (o.type === 'opened' ? o.ok : 0), 0);
    process.stdout.write(`  ${ok} watches open\n`);
    if (ok !== NODES * 2) throw new Error(`only ${ok} of ${NODES * 2} watches opened`);

    // Warm up (JIT, caches), then each kind alone.
    let offset = 0;
    const warm = await paced(server, clients, mixKind, RATE, 5, offset);
    offset += warm.count;
    await collectLatencies(fleets);
    process.stdout.write('each kind alone, paced:\n');
    for (const [kind] of process.env.BENCH_MIX_ONLY === 'mix' ? [] : MIX) {
      const rate = kind === 'list revisions' || kind === 'patch pool status' ? Math.min(RATE, 100) : RATE;
      const run = await paced(server, clients, () => kind, rate, SECONDS, offset);
      offset += run.count;
      reportRun(kind, run);
    }
    await collectLatencies(fleets);

    if (PROFILE) {
      mkdirSync(profileDir, { recursive: true });
      await server.profile('start');
    }
    process.stdout.write('the mix, paced:\n');
    const mix = await paced(server, clients, mixKind, RATE, SECONDS * 3, offset);
    offset += mix.count;
    await new Promise((r) => setTimeout(r, 1000));
    const delivered = await collectLatencies(fleets);
    reportRun(
      `mix at ${RATE}/s`,
      mix,
      `; Node patch → watcher p50 ${ms(percentile(delivered, 50))}, p99 ${ms(percentile(delivered, 99))} (${delivered.length} events)`,
    );
    reportFigure({
      bench: 'apiserver-mix',
      name: `mix at ${RATE}/s: Node patch to its watcher, p99`,
      value: percentile(delivered, 99),
      unit: 'ms',
      note: `p50 ${ms(percentile(delivered, 50))}; ${delivered.length} events; load ${load()}`,
    });
    process.stdout.write('the mix, closed loop:\n');
    const closed = await closedLoop(server, clients, SECONDS * 2, offset);
    await collectLatencies(fleets);
    reportRun(`mix, closed loop, ${CONNECTIONS} connections`, closed);
    reportFigure({
      bench: 'apiserver-mix',
      name: `mix, closed loop, ${CONNECTIONS} connections`,
      value: closed.count / closed.seconds,
      unit: 'requests/s',
      note: `server ${(((closed.cpu.user + closed.cpu.system) / closed.seconds) * 100).toFixed(0)} % of a core; load ${load()}`,
    });
    if (PROFILE) {
      const file = await server.profile('stop', profileDir);
      process.stdout.write(`server CPU profile of the mix runs: ${file}\n`);
    }
  } finally {
    for (const fleet of fleets) await fleet.ask({ cmd: 'exit' });
    for (const c of all) c.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();

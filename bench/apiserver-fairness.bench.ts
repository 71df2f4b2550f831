// Benchmark of priority and fairness (issue 32): the controller's request latency while one node's
// token floods the server, against the same without the flood. `nodeherd apiserver` in its own process
// (bench/support/apiserver-child.ts), real HTTPS clients with the controller's and a node's tokens: the
// controller reads Nodes at a steady rate on its keep-alive connection (a get, then a page of a list),
// the node (a process of its own at the lowest CPU priority, bench/support/node-flood.ts) sends GETs of its own Node on many
// connections as fast as the server answers, ignoring 429. Quiet and flooded phases alternate
// (BENCH_ROUNDS of each, default 3), so the shared machine's changing load falls on both. Target: the
// controller's p99 during the flood ≤ 2× its p99 without. The same is then measured with the node's seats made unlimited (what
// the server did before issue 32) for comparison.
//
//   node bench/apiserver-fairness.bench.ts
//
// Environment: BENCH_NODES (Nodes stored, default 500), BENCH_SECONDS (quiet, and flooded, in all, default 12),
// BENCH_CONTROLLER_RATE (controller requests per second, default 100), BENCH_FLOOD_CONNECTIONS (the
// node's connections, default 32), BENCH_COMPARE=0 (skip the run without fairness), BENCH_FAIRNESS (JSON:
// fairness options to try instead of the defaults).

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TokenStore } from '../src/apiserver/auth/tokens.ts';
import { nodeherdIdentities } from '../src/profile/nodeherd-identities.ts';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process.ts';
import { Connection, closedLoop, connections, paced, percentile } from './support/https-client.ts';
import type { FloodData } from './support/node-flood.ts';
import { benchNumber } from './support/quick.ts';
import { reportFigure } from './support/report.ts';

const NODES = benchNumber('BENCH_NODES', 500, 100);
const SECONDS = benchNumber('BENCH_SECONDS', 12, 4);
const RATE = benchNumber('BENCH_CONTROLLER_RATE', 100, 50);
const FLOOD_CONNECTIONS = benchNumber('BENCH_FLOOD_CONNECTIONS', 32, 16);
const COMPARE = process.env.BENCH_COMPARE !== '0';
const ROUNDS = benchNumber('BENCH_ROUNDS', 3, 2);
const FLOODER = 'flood-1';

const ms = (v: number) => `${v.toFixed(1)} ms`;

interface Phases {
  quiet: number;
  flooded: number;
  flood: Record<string, number>;
}

async function measure(options: Record<string, unknown>): Promise<Phases> {
  const dataDir = mkdtempSync(join(tmpdir(), 'nodeherd-fairness-bench-'));
  let server: ApiServerProcess | undefined;
  try {
    server = await startApiServerProcess({
      dataDir,
      env: { BENCH_APISERVER_OPTIONS: JSON.stringify(options) },
    });
    const tokens = TokenStore.open(dataDir, nodeherdIdentities);
    const controllerToken = (await tokens.rotate('controller')).token;
    const nodeToken = (await tokens.rotate('node', FLOODER)).token;
    tokens.close();

    const admin = connections(4, server.url, server.token, server.caPem);
    const node = (i: number) => (i === NODES ? FLOODER : `node-${i}`);
    await closedLoop(
      admin,
      (i) => ({
        method: 'POST',
        path: '/api/v1/nodes',
        body: {
          apiVersion: 'v1',
          kind: 'Node',
          metadata: { name: node(i), labels: { pool: `pool-${i % 10}` } },
        },
      }),
      { total: NODES + 1 },
    );
    for (const conn of admin) conn.close();

    const controller = new Connection(server.url, controllerToken, server.caPem);
    const request = (i: number) =>
      i % 2 === 0
        ? { method: 'GET', path: `/api/v1/nodes/${node(i % NODES)}` }
        : { method: 'GET', path: `/api/v1/nodes?limit=20&labelSelector=pool%3Dpool-${i % 10}` };
    // Warm up the connection and the server's code paths.
    await paced([controller], request, RATE, RATE);
    // Quiet and flooded phases alternate, so a change in the machine's load (it is shared) falls on both.
    const quiet: number[] = [];
    const flooded: number[] = [];
    const statuses: Record<string, number> = {};
    const perPhase = Math.round((RATE * SECONDS) / ROUNDS);
    for (let round = 0; round < ROUNDS; round++) {
      quiet.push(...(await paced([controller], request, RATE, perPhase)).latencies);
      const flood = startFlood({
        url: server.url,
        token: nodeToken,
        caPem: server.caPem,
        node: FLOODER,
        connections: FLOOD_CONNECTIONS,
      });
      // Let the flood reach full speed first.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      flooded.push(...(await paced([controller], request, RATE, perPhase)).latencies);
      for (const [status, count] of Object.entries(await flood.stop()))
        statuses[status] = (statuses[status] ?? 0) + count;
      // The flood's parked requests and delayed refusals drain before the next quiet phase.
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
    controller.close();
    return { quiet: percentile(quiet, 99), flooded: percentile(flooded, 99), flood: statuses };
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The flooding node in a process of its own, at nice 19: a real one is another machine. */
function startFlood(data: FloodData): { stop(): Promise<Record<string, number>> } {
  const child = spawn(
    'nice',
    ['-n', '19', process.execPath, new URL('./support/node-flood.ts', import.meta.url).pathname],
    { env: { ...process.env, NODEHERD_FLOOD: JSON.stringify(data) }, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    async stop() {
      child.stdin.end();
      await exited;
      return JSON.parse(output.trim() || '{}') as Record<string, number>;
    },
  };
}

function describe(label: string, phases: Phases): void {
  const answered = Object.values(phases.flood).reduce((a, b) => a + b, 0);
  const byStatus = Object.entries(phases.flood)
    .map(([status, count]) => `${count} × ${status}`)
    .join(', ');
  process.stdout.write(
    `${label}:\n  controller p99 without the flood: ${ms(phases.quiet)}\n  controller p99 while the node floods: ${ms(phases.flooded)} (ratio ${(phases.flooded / phases.quiet).toFixed(2)})\n  the flood's answers: ${answered} (${byStatus})\n`,
  );
}

process.stdout.write(
  `API server fairness benchmark (node ${process.version}, ${NODES} Nodes, controller at ${RATE}/s for ${SECONDS} s, one node flooding on ${FLOOD_CONNECTIONS} connections)\n`,
);
const started = performance.now();
// BENCH_FAIRNESS (JSON): other fairness limits than the defaults, to try them.
const fair = await measure(
  process.env.BENCH_FAIRNESS ? { fairness: JSON.parse(process.env.BENCH_FAIRNESS) } : {},
);
describe('with priority and fairness (default limits)', fair);
const note = `${NODES} Nodes, controller gets and lists at ${RATE}/s, one node token flooding GETs on ${FLOOD_CONNECTIONS} connections`;
reportFigure({
  bench: 'apiserver-fairness',
  name: 'controller request p99 without a flood',
  value: fair.quiet,
  unit: 'ms',
  note,
});
reportFigure({
  bench: 'apiserver-fairness',
  name: 'controller request p99 while one node floods',
  value: fair.flooded,
  unit: 'ms',
  note,
});
reportFigure({
  bench: 'apiserver-fairness',
  name: "controller's p99 while one node floods ÷ its p99 without",
  value: fair.flooded / fair.quiet,
  unit: '×',
  target: { op: '<=', value: 2 },
  note,
});
if (COMPARE) {
  const unlimited = 1_000_000;
  const unfair = await measure({
    fairness: {
      requestsPerIdentity: { node: unlimited },
      requestsPerLevel: { node: unlimited, system: unlimited },
    },
  });
  describe("without fairness (the node's seats unlimited, as before issue 32)", unfair);
  reportFigure({
    bench: 'apiserver-fairness',
    name: "without fairness: controller's p99 while one node floods ÷ its p99 without",
    value: unfair.flooded / unfair.quiet,
    unit: '×',
    note: `${note}; p99 ${ms(unfair.quiet)} → ${ms(unfair.flooded)}`,
  });
}
process.stdout.write(`total ${((performance.now() - started) / 1000).toFixed(0)} s\n`);

// Acknowledged writes per second over HTTPS on ONE connection, and what concurrency on that connection
// buys. HTTP/1.1 answers in request order and Node's client never pipelines: a keep-alive agent with
// maxSockets 1 keeps one request on the wire however many are queued, so each write pays a full round
// trip plus its commit. Only a pipelining client (several requests on the wire) lets the server's group
// commit put many writes of one connection into one fsync. Several connections are shown for comparison.
// Run: node bench/apiserver-pipelined-writes.bench.ts   (PIPELINE_BENCH_SECONDS per run, default 3;
// PIPELINE_BENCH_DEPTH requests on the wire when pipelining, default 16)
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../src/apiserver/storage/sqlite-store.ts';
import { PipelinedConnection } from '../test/apiserver/durability/pipelined-client.ts';
import { startApiServerProcess } from './support/apiserver-process.ts';
import { type Connection, connections, percentile } from './support/https-client.ts';
import { benchNumber } from './support/quick.ts';
import { type FigureTarget, reportFigure } from './support/report.ts';

const SECONDS = benchNumber('PIPELINE_BENCH_SECONDS', 3, 1);
const DEPTH = benchNumber('PIPELINE_BENCH_DEPTH', 16, 16);
const TARGET: FigureTarget = { op: '>=', value: 2000 };
const filler = 'x'.repeat(1000);
const BASE = '/api/v1/namespaces/default/configmaps';

type Send = (i: number, lane: number) => Promise<{ status: number; json: any }>;

interface Run {
  perSecond: number;
  p50: number;
  p99: number;
}

/** `lanes` loops, each sending its next write when its previous one was answered, for SECONDS. */
async function run(lanes: number, send: Send): Promise<Run> {
  let next = 0;
  const latencies: number[] = [];
  const until = performance.now() + SECONDS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      while (performance.now() < until) {
        const t0 = performance.now();
        const reply = await send(next++, lane);
        latencies.push(performance.now() - t0);
        if (reply.status !== 201)
          throw new Error(`HTTP ${reply.status} ${JSON.stringify(reply.json).slice(0, 300)}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return {
    perSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

const dir = mkdtempSync(join(tmpdir(), 'nodeherd-pipeline-bench-'));

/** The store alone (no HTTP): `perTurn` writes per event-loop turn, each acknowledged when durable. */
async function storeRun(groupCommit: boolean, perTurn: number): Promise<number> {
  const store = SqliteStore.open(join(dir, `store-${groupCommit}-${perTurn}.db`), { groupCommit });
  const writes = benchNumber('PIPELINE_BENCH_STORE_WRITES', 4000, 1000);
  const started = performance.now();
  for (let n = 0; n < writes; n += perTurn) {
    for (let i = n; i < n + perTurn; i++) {
      const name = `c${i}`;
      store.create(`/core/configmaps/default/${name}`, { metadata: { name }, data: { filler } });
    }
    await store.whenDurable();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const perSecond = writes / ((performance.now() - started) / 1000);
  store.close();
  return perSecond;
}

for (const [groupCommit, perTurn] of [
  [false, 1],
  [false, 16],
  [true, 1],
  [true, 16],
] as const) {
  const perSecond = await storeRun(groupCommit, perTurn);
  const name = `store alone, ${groupCommit ? 'group commit' : 'one commit per write'}, ${perTurn} writes per turn`;
  const load = loadavg()[0]!.toFixed(2);
  console.log(`${name}: ${Math.round(perSecond)} writes/s (load ${load})`);
  reportFigure({
    bench: 'apiserver-pipelined-writes',
    name,
    value: perSecond,
    unit: 'writes/s',
    note: `load ${load}`,
  });
}
const server = await startApiServerProcess({ dataDir: dir });
let conns: Connection[] = [];
let pipe: PipelinedConnection | undefined;
try {
  let prefix = 0;
  const create = (
    send: (
      method: string,
      path: string,
      body: unknown,
      lane: number,
    ) => Promise<{ status: number; json: any }>,
  ): Send => {
    const run = prefix++;
    return (i, lane) =>
      send(
        'POST',
        BASE,
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `r${run}-${i}` },
          data: { filler },
        },
        lane,
      );
  };
  const report = (name: string, result: Run, target?: FigureTarget) => {
    const load = loadavg()[0]!.toFixed(2);
    console.log(
      `${name}: ${Math.round(result.perSecond)} writes/s (p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms; load ${load})`,
    );
    reportFigure({
      bench: 'apiserver-pipelined-writes',
      name,
      value: result.perSecond,
      unit: 'writes/s',
      ...(target ? { target } : {}),
      note: `ConfigMap creates (1 KB), p99 ${result.p99.toFixed(1)} ms, load ${load}`,
    });
  };

  conns = connections(4, server.url, server.token, server.caPem);
  const one = conns[0]!;
  const viaAgent = create((m, p, b) => one.send(m, p, b));
  await run(1, viaAgent); // warm-up
  report(
    '1 connection, 1 request at a time',
    await run(
      1,
      create((m, p, b) => one.send(m, p, b)),
    ),
  );
  report(
    `1 connection (agent maxSockets 1), ${DEPTH} requests queued`,
    await run(
      DEPTH,
      create((m, p, b) => one.send(m, p, b)),
    ),
  );
  pipe = await PipelinedConnection.connect(server.url, server.token, server.caPem);
  const piped = pipe;
  report(
    `1 connection, ${DEPTH} pipelined`,
    await run(
      DEPTH,
      create((m, p, b) => piped.request(m, p, b)),
    ),
    TARGET,
  );
  const spread = create((m, p, b, lane) => conns[lane]!.send(m, p, b));
  report('4 connections, 1 request at a time each', await run(4, spread));
} finally {
  pipe?.close();
  for (const conn of conns) conn.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

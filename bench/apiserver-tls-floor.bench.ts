// Where Node's floor per watching connection lies, and whether the API server is at it (issue 32,
// outcome 5). The same client opens N keep-alive connections, each with one request whose chunked
// answer stays open (a watch), to: Node's plain HTTP server, Node's HTTPS server (TLS 1.3, and TLS 1.2
// only), both doing nothing but holding the answer (bench/support/tls-floor-server.ts), and the API
// server (apiserver-child.ts, the admin's watches of Namespaces with bookmarks). Each figure is the
// server's RSS after a full GC with the connections open, less before, per connection.
//
//   node bench/apiserver-tls-floor.bench.ts
//
// Environment: BENCH_CONNECTIONS (default 3000).

import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServerProcess } from './support/apiserver-process.ts';
import { benchNumber } from './support/quick.ts';
import { reportFigure } from './support/report.ts';

const N = benchNumber('BENCH_CONNECTIONS', 3000, 1000);

interface Memory {
  rssMb: number;
  heapUsedMb: number;
}

/** Opens n connections, one held answer each; resolves once all have their head. */
async function openHeld(
  url: string,
  path: string,
  n: number,
  caPem: string,
  token?: string,
): Promise<() => void> {
  const https = url.startsWith('https');
  const agent = https
    ? new HttpsAgent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY, ca: caPem })
    : new HttpAgent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  const send = https ? httpsRequest : httpRequest;
  let next = 0;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next < n) {
        next++;
        await new Promise<void>((resolve, reject) => {
          const req = send(
            new URL(path, url),
            { agent, headers: token ? { Authorization: `Bearer ${token}` } : {} },
            (res) => {
              if (res.statusCode !== 200) reject(new Error(`HTTP ${res.statusCode} from ${url}${path}`));
              res.on('data', () => {});
              resolve();
            },
          );
          req.on('error', reject);
          req.end();
        });
      }
    }),
  );
  return () => agent.destroy();
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 2000));

async function floor(mode: string): Promise<{ perConnKb: number; heapKb: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'nodeherd-tls-floor-'));
  const child: ChildProcess = fork(
    join(import.meta.dirname, 'support', 'tls-floor-server.ts'),
    [dataDir, mode],
    {
      execArgv: ['--expose-gc'],
    },
  );
  try {
    const { url, caPem } = await new Promise<{ url: string; caPem: string }>((resolve) =>
      child.once('message', resolve as never),
    );
    const memory = () =>
      new Promise<Memory>((resolve) => {
        child.once('message', resolve as never);
        child.send('memory');
      });
    await settle();
    const before = await memory();
    const close = await openHeld(url, '/watch', N, caPem);
    await settle();
    const after = await memory();
    close();
    return {
      perConnKb: ((after.rssMb - before.rssMb) * 1024) / N,
      heapKb: ((after.heapUsedMb - before.heapUsedMb) * 1024) / N,
    };
  } finally {
    child.kill();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function apiserver(): Promise<{ perConnKb: number; heapKb: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'nodeherd-tls-floor-apiserver-'));
  const server = await startApiServerProcess({ dataDir });
  try {
    await settle();
    const before = await server.memory(true);
    const close = await openHeld(
      server.url,
      '/api/v1/namespaces?watch=true&allowWatchBookmarks=true',
      N,
      server.caPem,
      server.token,
    );
    await settle();
    const after = await server.memory(true);
    if (after.openWatches < N) throw new Error(`only ${after.openWatches} of ${N} watches open`);
    close();
    return {
      perConnKb: ((after.rssMb - before.rssMb) * 1024) / N,
      heapKb: ((after.heapUsedMb - before.heapUsedMb) * 1024) / N,
    };
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

process.stdout.write(
  `memory per watching connection (node ${process.version}, ${N} connections, RSS after GC)\n`,
);
const note = `${N} connections from one client process, RSS after a full GC`;
for (const [name, run] of [
  ['Node HTTP server holding a chunked answer', () => floor('http')],
  ['Node HTTPS server holding a chunked answer (TLS 1.3)', () => floor('https')],
  ['Node HTTPS server holding a chunked answer (TLS 1.2)', () => floor('https-tls1.2')],
  ['API server, one watch per connection (TLS 1.3)', apiserver],
] as const) {
  const { perConnKb, heapKb } = await run();
  process.stdout.write(
    `  ${name}: ${perConnKb.toFixed(1)} KB per connection (V8 heap ${heapKb.toFixed(1)} KB)\n`,
  );
  reportFigure({
    bench: 'apiserver-tls-floor',
    name,
    value: perConnKb,
    unit: 'KB per connection',
    note: `${note}; V8 heap ${heapKb.toFixed(1)} KB of it`,
  });
}

// A minimal HTTPS client for benchmarks: one keep-alive connection per instance, JSON in and out,
// and helpers to run closed-loop or paced request streams over several connections.

import { Agent, request } from 'node:https';

export interface Reply {
  status: number;
  json: any;
}

export class Connection {
  private readonly agent: Agent;
  private readonly url: string;
  private readonly token: string;

  constructor(url: string, token: string, caPem: string) {
    this.url = url;
    this.token = token;
    this.agent = new Agent({ keepAlive: true, maxSockets: 1, ca: caPem });
  }

  send(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Reply> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const req = request(
        new URL(path, this.url),
        {
          method,
          agent: this.agent,
          headers: {
            Authorization: `Bearer ${this.token}`,
            Accept: 'application/json',
            ...(payload ? { 'Content-Type': contentType, 'Content-Length': String(payload.length) } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let json: any;
            try {
              json = JSON.parse(text);
            } catch {
              json = text;
            }
            resolve({ status: res.statusCode ?? 0, json });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

export function connections(n: number, url: string, token: string, caPem: string): Connection[] {
  return Array.from({ length: n }, () => new Connection(url, token, caPem));
}

/** Wall-clock milliseconds with sub-millisecond precision, comparable across processes. */
export function wallMs(): number {
  return performance.timeOrigin + performance.now();
}

export interface RunResult {
  count: number;
  seconds: number;
  perSecond: number;
  /** Per-request latency (send to full response), ms. */
  latencies: number[];
}

/**
 * Closed loop: each connection sends its next request as soon as the previous one answered, until
 * `total` requests were sent or `seconds` passed. `make(i)` builds request i; any non-2xx fails.
 */
export async function closedLoop(
  conns: Connection[],
  make: (i: number) => { method: string; path: string; body?: unknown; contentType?: string },
  limits: { total?: number; seconds?: number },
): Promise<RunResult> {
  const total = limits.total ?? Number.POSITIVE_INFINITY;
  const until =
    limits.seconds !== undefined ? performance.now() + limits.seconds * 1000 : Number.POSITIVE_INFINITY;
  let next = 0;
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    conns.map(async (conn) => {
      while (next < total && performance.now() < until) {
        const i = next++;
        const r = make(i);
        const t0 = performance.now();
        const reply = await conn.send(r.method, r.path, r.body, r.contentType);
        latencies.push(performance.now() - t0);
        if (reply.status < 200 || reply.status >= 300) {
          throw new Error(
            `${r.method} ${r.path}: HTTP ${reply.status} ${JSON.stringify(reply.json).slice(0, 300)}`,
          );
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { count: latencies.length, seconds, perSecond: latencies.length / seconds, latencies };
}

/** Open loop at a fixed rate, spread over the connections (a request waits if its connection is busy). */
export async function paced(
  conns: Connection[],
  make: (i: number) => { method: string; path: string; body?: unknown; contentType?: string },
  perSecond: number,
  total: number,
): Promise<RunResult> {
  const latencies: number[] = [];
  const started = performance.now();
  const interval = 1000 / perSecond;
  const queues = conns.map(() => Promise.resolve());
  const all: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + i * interval;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const c = i % conns.length;
    const conn = conns[c]!;
    const job = queues[c]!.then(async () => {
      const r = make(i);
      const t0 = performance.now();
      const reply = await conn.send(r.method, r.path, r.body, r.contentType);
      latencies.push(performance.now() - t0);
      if (reply.status < 200 || reply.status >= 300) {
        throw new Error(
          `${r.method} ${r.path}: HTTP ${reply.status} ${JSON.stringify(reply.json).slice(0, 300)}`,
        );
      }
    });
    queues[c] = job;
    all.push(job);
  }
  await Promise.all(all);
  const seconds = (performance.now() - started) / 1000;
  return { count: latencies.length, seconds, perSecond: latencies.length / seconds, latencies };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

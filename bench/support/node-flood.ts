// A node agent gone wrong, for bench/apiserver-fairness.bench.ts: a worker thread that sends GETs of
// its own Node with one node token over many keep-alive connections as fast as the server answers,
// ignoring 429 and Retry-After, until told to stop; it reports how many answers it got, by status.

import { parentPort, workerData } from 'node:worker_threads';
import { Connection } from './https-client.ts';

export interface FloodData {
  url: string;
  token: string;
  caPem: string;
  node: string;
  connections: number;
}

const data = workerData as FloodData;
const conns = Array.from(
  { length: data.connections },
  () => new Connection(data.url, data.token, data.caPem),
);
const statuses = new Map<number, number>();
let stopping = false;

parentPort!.once('message', () => {
  stopping = true;
});

await Promise.all(
  conns.map(async (conn) => {
    while (!stopping) {
      const reply = await conn.send('GET', `/api/v1/nodes/${data.node}`).catch(() => ({ status: 0 }));
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
    }
    conn.close();
  }),
);
parentPort!.postMessage(Object.fromEntries(statuses));

// A node agent gone wrong, for bench/apiserver-fairness.bench.ts: a process that sends GETs of its own
// Node with one node token over many keep-alive connections as fast as the server answers, ignoring
// 429 and Retry-After, until its standard input closes; it then prints how many answers it got, by
// status, as one JSON line. A process of its own, started at the lowest CPU priority, since a real
// flooding node is another machine: on the bench's shared cores, its own CPU would otherwise be
// counted against the server.
//
//   node bench/support/node-flood.ts   (FloodData as JSON in NODEHERD_FLOOD)

import { Connection } from './https-client.ts';

export interface FloodData {
  url: string;
  token: string;
  caPem: string;
  node: string;
  connections: number;
}

async function flood(data: FloodData): Promise<void> {
  const conns = Array.from(
    { length: data.connections },
    () => new Connection(data.url, data.token, data.caPem),
  );
  const statuses = new Map<number, number>();
  let stopping = false;
  process.stdin.on('end', () => {
    stopping = true;
  });
  process.stdin.resume();
  await Promise.all(
    conns.map(async (conn) => {
      while (!stopping) {
        const reply = await conn.send('GET', `/api/v1/nodes/${data.node}`).catch(() => ({ status: 0 }));
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
      }
      conn.close();
    }),
  );
  process.stdout.write(`${JSON.stringify(Object.fromEntries(statuses))}\n`);
}

if (process.env.NODEHERD_FLOOD) await flood(JSON.parse(process.env.NODEHERD_FLOOD) as FloodData);

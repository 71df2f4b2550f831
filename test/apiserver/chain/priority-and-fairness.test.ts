// Priority and fairness (issue 32): one identity cannot take the server. A node agent's token holds a
// bounded number of watches (the attack: 24 watches never read, from one node's token) and
// requests; more requests wait in a bounded queue and then get 429 with Retry-After, while the
// controller is served; when seats run out the controller's waiting requests go before nodes'. Limits
// are scaled down by ApiServerOptions.fairness. A request holds its seat while it is served: a write
// whose body the client sends slowly holds it for as long as the test wants.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { request } from 'node:https';
import { after, before, describe, test } from 'node:test';
import { connect } from 'node:tls';
import { eventually } from '../../support/eventually.ts';
import {
  type LocalApiServer,
  type LocalApiServerOptions,
  startLocalApiServer,
} from '../../support/local-apiserver.ts';

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

class Client {
  private readonly local: LocalApiServer;
  readonly token: string | undefined;

  constructor(local: LocalApiServer, token: string | undefined) {
    this.local = local;
    this.token = token;
  }

  /** Sends a request; with `hold`, declares a body and sends only its first byte until release(). */
  open(
    method: string,
    path: string,
    options: { body?: string; contentType?: string; hold?: boolean } = {},
  ): { answer: Promise<Answer>; release: () => void; req: ClientRequest } {
    const url = new URL(path, this.local.server.url);
    const body = options.body ?? '';
    const req = request(url, {
      method,
      ca: this.local.server.caPem,
      agent: false,
      headers: {
        ...(this.token ? { Authorization: `Bearer ${this.token}` } : {}),
        Accept: 'application/json',
        ...(body
          ? {
              'Content-Type': options.contentType ?? 'application/json',
              'Content-Length': Buffer.byteLength(body),
            }
          : {}),
      },
    });
    const answer = new Promise<Answer>((resolve, reject) => {
      req.on('error', reject);
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
        // A watch answers 200 and goes on: its head is the answer.
        if (path.includes('watch=') && res.statusCode === 200)
          resolve({ status: res.statusCode, headers: res.headers, body: '' });
      });
    });
    if (options.hold && body) {
      req.write(body.slice(0, 1));
      req.flushHeaders();
      return { answer, release: () => req.end(body.slice(1)), req };
    }
    req.end(body);
    return { answer, release: () => {}, req };
  }

  send(method: string, path: string, body?: string): Promise<Answer> {
    return this.open(method, path, body === undefined ? {} : { body }).answer;
  }
}

async function startWith(options: LocalApiServerOptions) {
  const local = await startLocalApiServer(options);
  const token = async (kind: 'node' | 'controller', node?: string) =>
    (await local.server.tokens.rotate(kind, node)).token;
  const admin = new Client(local, (await local.server.tokens.rotate('admin')).token);
  for (const name of ['n1', 'n2', 'n3']) {
    const created = await admin.send(
      'POST',
      '/api/v1/nodes',
      JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name } }),
    );
    assert.equal(created.status, 201, created.body);
  }
  return {
    local,
    admin,
    controller: new Client(local, await token('controller')),
    node: async (name: string) => new Client(local, await token('node', name)),
  };
}

const usage = (server: { local: LocalApiServer }) => server.local.server.fairness.usage();

const statusPatch = JSON.stringify({ status: { conditions: [{ type: 'NodeConfigReady', status: 'True' }] } });
const patchStatus = (client: Client, node: string, hold: boolean) =>
  client.open('PATCH', `/api/v1/nodes/${node}/status`, {
    body: statusPatch,
    contentType: 'application/merge-patch+json',
    hold,
  });

describe('watches per identity', () => {
  let server: Awaited<ReturnType<typeof startWith>>;
  before(async () => {
    server = await startWith({ fairness: { watchesPerIdentity: { node: 3 } } });
  });
  after(() => server.local.stop());

  test('a node token holds at most its watches; one more is 429 with Retry-After, and a closed one frees its seat', async () => {
    const n1 = await server.node('n1');
    const watchPath = '/api/v1/nodes?watch=true&fieldSelector=metadata.name%3Dn1';
    const open = [n1.open('GET', watchPath), n1.open('GET', watchPath), n1.open('GET', watchPath)];
    for (const watch of open) assert.equal((await watch.answer).status, 200);

    const refused = await n1.send('GET', watchPath);
    assert.equal(refused.status, 429, refused.body);
    assert.ok(Number(refused.headers['retry-after']) > 0, 'a 429 says when to come back');
    assert.equal(JSON.parse(refused.body).reason, 'TooManyRequests');
    assert.match(JSON.parse(refused.body).message, /watches/);

    // Another node's watches are its own.
    const n2 = await server.node('n2');
    const other = n2.open('GET', '/api/v1/nodes?watch=true&fieldSelector=metadata.name%3Dn2');
    assert.equal((await other.answer).status, 200);
    other.req.destroy();

    open[0]!.req.destroy();
    await eventually('the closed watch given back', () => usage(server).node.watches === 2);
    const again = n1.open('GET', watchPath);
    assert.equal((await again.answer).status, 200, 'a closed watch gives its seat back');
    for (const watch of [...open, again]) watch.req.destroy();
  });
});

describe('unread watches', () => {
  let server: Awaited<ReturnType<typeof startWith>>;
  before(async () => {
    server = await startWith({ fairness: { watchBytesPerIdentity: { node: 1024 * 1024 } } });
  });
  after(() => server.local.stop());

  test('the watches one node never reads share one budget of unsent output, then are cut off', async () => {
    // The attack: watches that are never read while large writes go on. Each watch alone stays
    // under the slow-watcher cap (16 MiB); together they pass the node's budget (scaled down to 1 MiB).
    const n1 = await server.node('n1');
    const url = new URL(server.local.server.url);
    const sockets = [];
    for (let i = 0; i < 3; i++) {
      const socket = connect({
        host: url.hostname,
        port: Number(url.port),
        ca: server.local.server.caPem,
        servername: 'localhost',
      });
      socket.on('error', () => {});
      await once(socket, 'secureConnect');
      socket.write(
        `GET /api/v1/nodes?watch=true&fieldSelector=metadata.name%3Dn1 HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${n1.token}\r\n\r\n`,
      );
      // Never read.
      socket.pause();
      sockets.push(socket);
    }
    await eventually('three watches open', () => server.local.server.openWatches === 3);
    for (let i = 0; i < 12 && server.local.server.openWatches > 0; i++) {
      const patch = JSON.stringify({
        status: { images: [{ names: [`big-${i}-${'x'.repeat(1024 * 1024)}`] }] },
      });
      const answer = await server.admin.open('PATCH', '/api/v1/nodes/n1/status', {
        body: patch,
        contentType: 'application/merge-patch+json',
      }).answer;
      assert.equal(answer.status, 200, answer.body.slice(0, 300));
    }
    await eventually('the unread watches cut off', () => server.local.server.openWatches === 0, 20_000);
    for (const socket of sockets) socket.destroy();
  });
});

describe('requests per identity', () => {
  let server: Awaited<ReturnType<typeof startWith>>;
  before(async () => {
    server = await startWith({
      fairness: { requestsPerIdentity: { node: 1 }, queuedPerIdentity: { node: 2 }, queueWaitMs: 30_000 },
    });
  });
  after(() => server.local.stop());

  test('a node past its seats waits in a bounded queue, then gets 429; the controller is served meanwhile', async () => {
    const n1 = await server.node('n1');
    // The node's one seat: a status write whose body has not all arrived.
    const holding = patchStatus(n1, 'n1', true);
    await eventually('node inFlight 1', () => usage(server).node.inFlight === 1);

    const queued = [n1.send('GET', '/api/v1/nodes/n1'), n1.send('GET', '/api/v1/nodes/n1')];
    await eventually('node waiting 2', () => usage(server).node.waiting === 2);
    const refused = await n1.send('GET', '/api/v1/nodes/n1');
    assert.equal(refused.status, 429, refused.body);
    assert.equal(refused.headers['retry-after'], '1');

    // Neither another node nor the controller waits behind n1.
    const n2 = await server.node('n2');
    assert.equal((await n2.send('GET', '/api/v1/nodes/n2')).status, 200);
    assert.equal((await server.controller.send('GET', '/api/v1/nodes')).status, 200);

    holding.release();
    assert.equal((await holding.answer).status, 200);
    for (const answer of await Promise.all(queued))
      assert.equal(answer.status, 200, 'the queued requests are served');
    await eventually('every seat given back', () => {
      const { inFlight, waiting } = usage(server).node;
      return inFlight === 0 && waiting === 0;
    });
  });
});

describe('waiting for a seat', () => {
  let server: Awaited<ReturnType<typeof startWith>>;
  before(async () => {
    server = await startWith({
      fairness: { requestsPerIdentity: { node: 1 }, queuedPerIdentity: { node: 4 }, queueWaitMs: 300 },
    });
  });
  after(() => server.local.stop());

  test('a request that waited past the queue deadline is 429 with Retry-After', async () => {
    const n1 = await server.node('n1');
    const holding = patchStatus(n1, 'n1', true);
    await eventually('node inFlight 1', () => usage(server).node.inFlight === 1);
    const waited = await n1.send('GET', '/api/v1/nodes/n1');
    assert.equal(waited.status, 429, waited.body);
    assert.equal(waited.headers['retry-after'], '1');
    assert.match(JSON.parse(waited.body).message, /waited 300 ms/);
    holding.release();
    assert.equal((await holding.answer).status, 200);
  });
});

describe('priority levels', () => {
  let server: Awaited<ReturnType<typeof startWith>>;
  before(async () => {
    // Two seats in the whole server (the system level's), each node one.
    server = await startWith({
      fairness: { requestsPerLevel: { system: 2, node: 2 }, requestsPerIdentity: { node: 1 } },
    });
  });
  after(() => server.local.stop());

  test("when the server's seats are taken, a freed seat goes to the controller before a node", async () => {
    const [n1, n2, n3] = await Promise.all(['n1', 'n2', 'n3'].map((name) => server.node(name)));
    const holding1 = patchStatus(n1!, 'n1', true);
    const holding2 = patchStatus(n2!, 'n2', true);
    await eventually('node inFlight 2', () => usage(server).node.inFlight === 2);

    const order: string[] = [];
    const node3 = n3!.send('GET', '/api/v1/nodes/n3').then((a) => {
      order.push('node');
      return a;
    });
    await eventually('node waiting 1', () => usage(server).node.waiting === 1);
    const controller = server.controller.send('GET', '/api/v1/nodes').then((a) => {
      order.push('controller');
      return a;
    });
    await eventually('system waiting 1', () => usage(server).system.waiting === 1);

    holding1.release();
    assert.equal((await controller).status, 200);
    assert.deepEqual(order, ['controller'], 'the controller, though it came last, is served first');
    holding2.release();
    assert.equal((await node3).status, 200);
    await Promise.all([holding1.answer, holding2.answer]);
  });
});

describe('the anonymous', () => {
  let server: Awaited<ReturnType<typeof startWith>>;
  before(async () => {
    server = await startWith({
      fairness: { requestsPerIdentity: { anonymous: 1 }, queuedPerIdentity: { anonymous: 0 } },
    });
  });
  after(() => server.local.stop());

  test('requests without a credential share one bounded flow; a request with one is not in it', async () => {
    const url = new URL(server.local.server.url);
    // Five requests pipelined in one write reach the server in one turn: one seat, no queue.
    const socket = connect({
      host: url.hostname,
      port: Number(url.port),
      ca: server.local.server.caPem,
      servername: 'localhost',
    });
    await once(socket, 'secureConnect');
    const get = (auth: string) => `GET /healthz HTTP/1.1\r\nHost: localhost\r\n${auth}\r\n`;
    socket.write(
      get('') + get('') + get('') + get('') + get(`Authorization: Bearer ${server.admin.token}\r\n`),
    );
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    await eventually('five answers', () => text.match(/HTTP\/1\.1 \d+/g)?.length === 5);
    socket.destroy();
    const statuses = text.match(/HTTP\/1\.1 (\d+)/g)!.map((line) => Number(line.slice(9)));
    assert.deepEqual(statuses, [200, 429, 429, 429, 200], 'one anonymous seat; the admin is not in the flow');
    assert.match(text, /Retry-After: 1/);
    // The seat is back on the next turn.
    assert.equal((await new Client(server.local, undefined).send('GET', '/healthz')).status, 200);
  });
});

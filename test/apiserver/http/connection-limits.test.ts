// What a client may hold of the server's connections (issue 32). The attack: a request that
// declares a large body got 401 at once, but its connection stayed open for as long as the client sent
// a byte now and then, from an anonymous client, and nothing bounded how many. Now a refused request's
// connection is closed, headers and bodies have read deadlines (watches, which have no body, live on),
// a request unanswered past the request timeout is 504 Timeout, and one client address holds a bounded
// number of connections. Deadlines are scaled down by ApiServerOptions; every client here is a raw TLS
// socket on loopback, so the test sees exactly what the server does with the connection.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { connect, type TLSSocket } from 'node:tls';
import { eventually } from '../../support/eventually.ts';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';

/** A TLS connection to the server that records what it receives and whether the server closed it. */
class RawClient {
  readonly socket: TLSSocket;
  received = '';
  closed = false;
  #trickle: NodeJS.Timeout | undefined;

  private constructor(socket: TLSSocket) {
    this.socket = socket;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.received += chunk;
    });
    socket.on('close', () => {
      this.closed = true;
      this.stopTrickle();
    });
    socket.on('error', () => {});
  }

  static async open(local: LocalApiServer): Promise<RawClient> {
    const url = new URL(local.server.url);
    const socket = connect({
      host: url.hostname,
      port: Number(url.port),
      ca: local.server.caPem,
      servername: 'localhost',
    });
    const client = new RawClient(socket);
    await once(socket, 'secureConnect');
    return client;
  }

  /** Sends `text` one byte every `everyMs`, for as long as the connection is open. */
  trickle(text: string, everyMs: number): void {
    let at = 0;
    this.#trickle = setInterval(() => {
      if (this.socket.destroyed || at >= text.length) return this.stopTrickle();
      this.socket.write(text[at++]!);
    }, everyMs);
  }

  stopTrickle(): void {
    clearInterval(this.#trickle);
  }

  close(): void {
    this.stopTrickle();
    this.socket.destroy();
  }
}

const until = (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000) =>
  eventually(what, check, timeoutMs);

describe('connections and request deadlines', () => {
  let local: LocalApiServer;
  let adminToken: string;
  before(async () => {
    local = await startLocalApiServer({
      headersTimeoutMs: 400,
      requestReadTimeoutMs: 1_500,
      requestTimeoutMs: 800,
    });
    adminToken = (await local.server.tokens.rotate('admin')).token;
  });
  after(() => local.stop());

  test('a refused request with an unread body gets its answer and Connection: close, and the connection closes', async () => {
    const client = await RawClient.open(local);
    client.socket.write(
      'POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{',
    );
    // The client goes on sending its body, a byte at a time.
    client.trickle('x'.repeat(10_000), 50);
    await until('the 401 and the closed connection', () => client.closed, 8_000);
    assert.match(client.received, /^HTTP\/1\.1 401 /);
    assert.match(client.received, /Connection: close/i);
    client.close();
  });

  test('a client still sending a body too large reads its 413 before the connection closes', async () => {
    const client = await RawClient.open(local);
    const size = 8 * 1024 * 1024;
    client.socket.write(
      `POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${adminToken}\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
    );
    // The whole body, as fast as the connection takes it, while the server has already answered.
    const chunk = Buffer.alloc(64 * 1024, 'x');
    for (let sent = 0; sent < size && !client.closed; sent += chunk.length) {
      if (!client.socket.write(chunk))
        await Promise.race([once(client.socket, 'drain'), once(client.socket, 'close')]);
    }
    await until('the connection closed', () => client.closed, 10_000);
    assert.match(client.received, /^HTTP\/1\.1 413 /);
    assert.match(client.received, /RequestEntityTooLarge/);
  });

  test('headers sent slowly are cut at the headers deadline', async () => {
    const client = await RawClient.open(local);
    client.trickle(
      `GET /api/v1/namespaces HTTP/1.1\r\nHost: localhost\r\nX-Slow: ${'x'.repeat(1_000)}\r\n\r\n`,
      50,
    );
    await until('the connection closed', () => client.closed, 8_000);
    assert.doesNotMatch(client.received, /HTTP\/1\.1 200/);
    client.close();
  });

  test('a body sent slowly is cut at the read deadline, even for a client allowed to write', async () => {
    const client = await RawClient.open(local);
    const body = JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'slow' },
      data: { a: 'x'.repeat(500) },
    });
    client.socket.write(
      `POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${adminToken}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    client.trickle(body, 100);
    await until('the connection closed', () => client.closed, 10_000);
    // The request timeout (504) or the read deadline (408) answered it, whichever came first.
    assert.match(client.received, /^HTTP\/1\.1 (504|408) /);
    const configMap = await fetchStatus(local, adminToken, '/api/v1/namespaces/default/configmaps/slow');
    assert.equal(configMap, 404, 'nothing was written');
    client.close();
  });

  test('a request not answered within the request timeout is 504 Timeout', async () => {
    const client = await RawClient.open(local);
    const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"late"}}';
    client.socket.write(
      `POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${adminToken}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    await until('an answer', () => /\r\n\r\n\{.*\}/s.test(client.received), 8_000);
    assert.match(client.received, /^HTTP\/1\.1 504 /);
    const status = JSON.parse(client.received.slice(client.received.indexOf('\r\n\r\n') + 4)) as Record<
      string,
      unknown
    >;
    assert.equal(status.reason, 'Timeout');
    assert.match(String(status.message), /did not complete within the allotted timeout/);
    await until('the connection closed', () => client.closed, 8_000);
    client.close();
  });

  test('a watch outlives the read deadlines and the request timeout, and still delivers', async () => {
    const client = await RawClient.open(local);
    client.socket.write(
      `GET /api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0 HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${adminToken}\r\n\r\n`,
    );
    await until('the watch open', () => client.received.startsWith('HTTP/1.1 200'));
    // Past every deadline above (400 ms, 800 ms, 1.5 s), by a margin.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    assert.equal(client.closed, false, 'the watch is still open');
    assert.equal(
      await fetchStatus(
        local,
        adminToken,
        '/api/v1/namespaces/default/configmaps',
        'POST',
        '{"metadata":{"name":"seen"}}',
      ),
      201,
    );
    await until('the event delivered', () => client.received.includes('"name":"seen"'));
    client.close();
  });
});

describe('connections per client address', () => {
  let local: LocalApiServer;
  before(async () => {
    local = await startLocalApiServer({ maxConnectionsPerAddress: 3 });
  });
  after(() => local.stop());

  test('one client address holds at most its connections; a closed one makes room', async () => {
    const clients: RawClient[] = [];
    for (let i = 0; i < 3; i++) clients.push(await RawClient.open(local));
    const refused = await RawClient.open(local).then(
      (client) => client,
      (err: Error) => err,
    );
    if (refused instanceof RawClient) {
      // The server closes it as soon as it sees it, before any answer.
      await until('the connection over the cap closed', () => refused.closed);
      assert.equal(refused.received, '');
    } else {
      assert.match(refused.message, /ECONNRESET|socket disconnected|socket hang up/);
    }
    clients.shift()!.close();
    await until('a connection made after one closed', async () => {
      const client = await RawClient.open(local);
      clients.push(client);
      client.socket.write(`GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n`);
      await until('an answer', () => client.received.includes('ok') || client.closed, 2_000);
      return client.received.startsWith('HTTP/1.1 200');
    });
    for (const client of clients) client.close();
  });
});

async function fetchStatus(
  local: LocalApiServer,
  token: string,
  path: string,
  method = 'GET',
  body?: string,
): Promise<number> {
  const client = await RawClient.open(local);
  const payload = body ?? '';
  client.socket.write(
    `${method} ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${payload.length}\r\nConnection: close\r\n\r\n${payload}`,
  );
  await until('an answer', () => client.closed);
  return Number(client.received.slice(9, 12));
}

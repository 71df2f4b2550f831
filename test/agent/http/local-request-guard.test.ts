// The node's local API answers its owner, not a web page: over real HTTP, requests under a foreign
// Host (DNS rebinding), state-changing requests with an Origin (a page's cross-origin POST) or with a
// content type a form can send are 403 with a JSON Status; curl's requests pass.

import assert from 'node:assert/strict';
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AgentHttpServer } from '../../../src/agent/http/agent-http-server.ts';
import { hostOf, isLocalHost } from '../../../src/agent/http/local-request-guard.ts';
import { ensureOwnerToken } from '../../../src/agent/http/owner-token.ts';

interface Answer {
  status: number;
  body: string;
}

function send(port: number, method: string, path: string, headers: Record<string, string>, body?: string) {
  return new Promise<Answer>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, setHost: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('local API request guard', () => {
  const server = new AgentHttpServer(
    { health: () => ({ healthy: true, body: {} }), renderMetrics: () => '' },
    { port: 0 },
  );
  let port = 0;
  let updates = 0;

  before(async () => {
    port = (await server.listen()).port;
    server.route('POST', '/v1/update', (_req, res) => {
      updates++;
      res.statusCode = 202;
      res.end('{}');
    });
  });
  after(() => server.close());

  it("lets curl's requests through: no body, or a JSON one", async () => {
    // What `curl -X POST http://127.0.0.1:PORT/v1/update` sends.
    const bare = await send(port, 'POST', '/v1/update', {
      host: `127.0.0.1:${port}`,
      'user-agent': 'curl/8',
    });
    assert.equal(bare.status, 202, bare.body);
    const json = await send(
      port,
      'POST',
      '/v1/update',
      { host: `localhost:${port}`, 'content-type': 'application/json' },
      '{"revision":"r"}',
    );
    assert.equal(json.status, 202, json.body);
    const ipv6 = await send(port, 'GET', '/healthz', { host: `[::1]:${port}` });
    assert.equal(ipv6.status, 200);
    assert.equal(updates, 2);
  });

  // (Without any Host header node:http itself answers 400, as HTTP/1.1 requires one.)
  it('refuses what a browser page could send, with a JSON Status and without acting', async () => {
    const before = updates;
    const attempts: [string, string, Record<string, string>, string | undefined, RegExp][] = [
      ['POST', '/v1/update', { host: `evil.example:${port}` }, undefined, /Host "evil\.example/],
      ['GET', '/v1/update', { host: 'rebind.attacker.test' }, undefined, /loopback/],
      [
        'POST',
        '/v1/update',
        { host: `127.0.0.1:${port}`, origin: 'https://evil.example' },
        undefined,
        /Origin/,
      ],
      ['POST', '/v1/update', { host: `127.0.0.1:${port}`, origin: 'null' }, undefined, /Origin/],
      [
        'POST',
        '/v1/update',
        { host: `127.0.0.1:${port}`, 'content-type': 'text/plain;charset=UTF-8' },
        '{"revision":"r"}',
        /text\/plain/,
      ],
      [
        'POST',
        '/v1/update',
        { host: `127.0.0.1:${port}`, 'content-type': 'application/x-www-form-urlencoded' },
        'revision=r',
        /x-www-form-urlencoded/,
      ],
      [
        'DELETE',
        '/v1/update',
        { host: `127.0.0.1:${port}`, 'content-type': 'multipart/form-data; boundary=x' },
        '--x--',
        /multipart/,
      ],
    ];
    for (const [method, path, headers, body, message] of attempts) {
      const answer = await send(port, method, path, headers, body);
      assert.equal(answer.status, 403, `${method} ${JSON.stringify(headers)}: ${answer.body}`);
      const status = JSON.parse(answer.body);
      assert.equal(status.kind, 'Status');
      assert.equal(status.reason, 'Forbidden');
      assert.match(status.message, message);
    }
    assert.equal(updates, before, 'no refused request reached the handler');
  });

  it('reads Host headers as the loopback rules say', () => {
    assert.equal(hostOf('[::1]:9469'), '::1');
    assert.equal(hostOf('LOCALHOST'), 'localhost');
    assert.equal(hostOf('a b'), undefined);
    assert.equal(hostOf('[::1'), undefined);
    for (const host of ['localhost', '127.0.0.1', '127.1.2.3', '::1', 'app.localhost']) {
      assert.equal(isLocalHost(host, '127.0.0.1'), true, host);
    }
    for (const host of ['10.0.0.5', 'node-1', '127.0.0.1.nip.io', '0.0.0.0']) {
      assert.equal(isLocalHost(host, '127.0.0.1'), false, host);
    }
    // A server told to listen on 10.0.0.5 answers requests to that address (an IP: no rebinding).
    assert.equal(isLocalHost('10.0.0.5', '10.0.0.5'), true);
    assert.equal(isLocalHost('10.0.0.5', '::ffff:10.0.0.5'), true);
  });
});

describe('local API with an owner token (--local-api-token-file)', () => {
  let port = 0;
  let token = '';
  let server: AgentHttpServer;
  let path = '';

  before(async () => {
    path = join(await mkdtemp(join(tmpdir(), 'nodeherd-owner-')), 'etc', 'local-api.token');
    token = await ensureOwnerToken(path);
    server = new AgentHttpServer(
      { health: () => ({ healthy: true, body: {} }), renderMetrics: () => '' },
      { port: 0, ownerToken: token },
    );
    port = (await server.listen()).port;
    server.route('POST', '/v1/update', (_req, res) => {
      res.statusCode = 202;
      res.end('{}');
    });
  });
  after(() => server.close());

  it('keeps the token in a file only its owner can read, and reuses it', async () => {
    assert.match(token, /^[0-9a-f]{64}$/);
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    assert.equal((await readFile(path, 'utf8')).trim(), token);
    await writeFile(path, 'chosen-by-owner\n', { mode: 0o644 });
    assert.equal(await ensureOwnerToken(path), 'chosen-by-owner');
    assert.equal((await stat(path)).mode & 0o777, 0o600, 'a too open file is made private');
  });

  it('answers POSTs only with the token; reads need none', async () => {
    const host = { host: `127.0.0.1:${port}` };
    const missing = await send(port, 'POST', '/v1/update', host);
    assert.equal(missing.status, 401);
    assert.equal(JSON.parse(missing.body).reason, 'Unauthorized');
    const wrong = await send(port, 'POST', '/v1/update', {
      ...host,
      authorization: `Bearer ${token.slice(1)}x`,
    });
    assert.equal(wrong.status, 401);
    const right = await send(port, 'POST', '/v1/update', { ...host, authorization: `Bearer ${token}` });
    assert.equal(right.status, 202, right.body);
    assert.equal((await send(port, 'GET', '/healthz', host)).status, 200);
  });
});

// `nodeherd apiserver`'s limit flags (issue 32) reach the server: a capped client address, and the
// admin's watches exempt from fairness; a malformed value is refused naming the flag and the level.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { connect, type TLSSocket } from 'node:tls';
import {
  adminCredential,
  killServerProcess,
  type ServerProcess,
  startServerProcess,
} from '../apiserver/durability/server-process.ts';
import { eventually } from '../support/eventually.ts';

const CLI = join(import.meta.dirname, '..', '..', 'bin', 'nodeherd.ts');
let server: ServerProcess | undefined;
const dirs: string[] = [];

after(async () => {
  await killServerProcess(server);
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function tlsConnection(url: string, ca: Buffer): Promise<{ socket: TLSSocket; closed: () => boolean }> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port), ca, servername: 'localhost' });
  let closed = false;
  socket.on('close', () => {
    closed = true;
  });
  socket.on('error', () => {});
  // Connected, or closed by the server before the handshake finished (events.once would throw on 'error').
  await new Promise<void>((resolve) => {
    socket.once('secureConnect', () => resolve());
    socket.once('close', () => resolve());
  });
  return { socket, closed: () => closed };
}

test('--max-connections-per-address caps one address, loopback included', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'nodeherd-apiserver-limits-'));
  dirs.push(dataDir);
  server = await startServerProcess(dataDir, 0, [
    '--max-connections-per-address',
    '2',
    '--request-timeout',
    '30s',
  ]);
  const { ca } = adminCredential(dataDir);
  const held = [await tlsConnection(server.url, ca), await tlsConnection(server.url, ca)];
  assert.ok(held.every((c) => !c.closed()));
  const third = await tlsConnection(server.url, ca);
  await eventually('the third connection closed by the server', () => third.closed(), 10_000);
  for (const c of [...held, third]) c.socket.destroy();
});

test('a malformed limit is refused, naming the flag and what it expects', () => {
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [CLI, 'apiserver', '--data-dir', '/nonexistent/never-used', ...args], {
      encoding: 'utf8',
      timeout: 30_000,
    });
  const level = run('--max-watches-per-identity', 'nodes=3');
  assert.notEqual(level.status, 0);
  assert.match(level.stderr, /--max-watches-per-identity/);
  assert.match(level.stderr, /system, node, workload, anonymous; got "nodes=3"/);
  const count = run('--max-requests-per-identity', 'node=0');
  assert.match(count.stderr, /the count for node must be a positive integer, got "0"/);
  const duration = run('--request-timeout', '60');
  assert.match(duration.stderr, /--request-timeout <duration>.*must be a duration such as 60s/);
});

// Connection handling that only a scripted peer can provoke: a kept-alive connection the server
// drops just as a request goes out on it.

import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { test } from 'node:test';
import { LightKubeClient } from '../../src/kube/light/light-kube-client.ts';
import { startScriptedPeer } from './scripted-https-peer.ts';

/**
 * A peer whose every connection serves one request, then dies when the next one arrives on it; each
 * request is noted in `seen` as "<method> #<its number on its connection>".
 */
function oneRequestPerConnection(seen: string[] = []) {
  const requestsPerSocket = new Map<Socket, number>();
  return startScriptedPeer((req, res) => {
    const count = (requestsPerSocket.get(req.socket) ?? 0) + 1;
    requestsPerSocket.set(req.socket, count);
    seen.push(`${req.method} #${count}`);
    if (count > 1) {
      req.socket.destroy();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ kind: 'Node', metadata: { name: 'n1' } }));
  });
}

test('an idempotent request that meets a dropped kept-alive connection is sent once more; a create is not', async () => {
  const seen: string[] = [];
  const peer = await oneRequestPerConnection(seen);
  const client = new LightKubeClient({ server: peer.url, caPem: peer.caPem, token: 'peer-token' });
  try {
    assert.equal((await client.get('/api/v1/nodes/n1')).metadata?.name, 'n1');
    // Reuses the first connection, which dies; sent again on a new one (not kept in the pool).
    assert.equal((await client.get('/api/v1/nodes/n1')).metadata?.name, 'n1');
    const patch = () => client.patch('/api/v1/nodes/n1', { metadata: { labels: { a: 'b' } } });
    assert.equal((await patch()).kind, 'Node');
    assert.equal((await patch()).kind, 'Node');
    // A POST could be applied twice, so its failure is the caller's to handle.
    await client.get('/api/v1/nodes/n1');
    await assert.rejects(client.create('/api/v1/nodes', { metadata: { name: 'n2' } }), {
      code: 'ECONNRESET',
    });
    assert.deepEqual(seen, [
      'GET #1',
      'GET #2',
      'GET #1',
      'PATCH #1',
      'PATCH #2',
      'PATCH #1',
      'GET #1',
      'POST #2',
    ]);
    const stats = client.stats();
    assert.equal(stats.retries, 2);
    assert.equal(stats.requests, 6);
    assert.equal(stats.transportFailures, 3);
    assert.equal(stats.connections, 5);
  } finally {
    client.close();
    await peer.close();
  }
});

test('the retry after a dropped kept-alive connection goes out on a new connection, not another pooled one', async () => {
  // Both pooled connections are dead by the third request, as connections idle since the same moment are.
  const peer = await oneRequestPerConnection();
  const client = new LightKubeClient({ server: peer.url, caPem: peer.caPem, token: 'peer-token' });
  try {
    // Two at once: two connections, both kept in the pool afterwards.
    await Promise.all([client.get('/api/v1/nodes/n1'), client.get('/api/v1/nodes/n1')]);
    assert.equal(client.stats().connections, 2);
    assert.equal((await client.get('/api/v1/nodes/n1')).metadata?.name, 'n1');
    const stats = client.stats();
    assert.equal(stats.retries, 1);
    assert.equal(stats.transportFailures, 1);
    assert.equal(stats.connections, 3);
  } finally {
    client.close();
    await peer.close();
  }
});

test('an idle pooled connection is closed before the server announced it would close it', async () => {
  const sockets = new Set<Socket>();
  // keep-alive 2 s: the answers carry Keep-Alive: timeout=2, so the client closes an idle one after 1 s.
  const peer = await startScriptedPeer(
    (req, res) => {
      sockets.add(req.socket);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Node', metadata: { name: 'n1' } }));
    },
    { keepAliveTimeoutMs: 2_000 },
  );
  const client = new LightKubeClient({ server: peer.url, caPem: peer.caPem, token: 'peer-token' });
  try {
    await client.get('/api/v1/nodes/n1');
    const [socket] = sockets;
    assert.ok(socket);
    const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now())));
    const idleFrom = performance.now();
    const closedAt = await closed;
    // The client's close, not the server's (which would come at 2 s).
    assert.ok(closedAt - idleFrom < 1_800, `closed after ${(closedAt - idleFrom).toFixed(0)} ms of idleness`);
    await client.get('/api/v1/nodes/n1');
    const stats = client.stats();
    assert.equal(stats.connections, 2);
    assert.equal(stats.transportFailures, 0);
    assert.equal(stats.retries, 0);
  } finally {
    client.close();
    await peer.close();
  }
});

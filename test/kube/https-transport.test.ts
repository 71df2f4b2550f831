// Connection handling that only a scripted peer can provoke: a kept-alive connection the server
// drops just as a request goes out on it.

import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { test } from 'node:test';
import { LightKubeClient } from '../../src/kube/light/light-kube-client.ts';
import { startScriptedPeer } from './scripted-https-peer.ts';

test('an idempotent request that meets a dropped kept-alive connection is sent once more; a create is not', async () => {
  const requestsPerSocket = new Map<Socket, number>();
  const seen: string[] = [];
  const peer = await startScriptedPeer((req, res) => {
    const count = (requestsPerSocket.get(req.socket) ?? 0) + 1;
    requestsPerSocket.set(req.socket, count);
    seen.push(`${req.method} #${count}`);
    // Every connection serves one request, then dies when the next one arrives on it.
    if (count > 1) {
      req.socket.destroy();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ kind: 'Node', metadata: { name: 'n1' } }));
  });
  const client = new LightKubeClient({ server: peer.url, caPem: peer.caPem, token: 'peer-token' });
  try {
    assert.equal((await client.get('/api/v1/nodes/n1')).metadata?.name, 'n1');
    // Reuses the first connection, which dies; sent again on a new one.
    assert.equal((await client.get('/api/v1/nodes/n1')).metadata?.name, 'n1');
    assert.equal((await client.patch('/api/v1/nodes/n1', { metadata: { labels: { a: 'b' } } })).kind, 'Node');
    // A POST could be applied twice, so its failure is the caller's to handle.
    await assert.rejects(client.create('/api/v1/nodes', { metadata: { name: 'n2' } }), {
      code: 'ECONNRESET',
    });
    assert.deepEqual(seen, ['GET #1', 'GET #2', 'GET #1', 'PATCH #2', 'PATCH #1', 'POST #2']);
    const stats = client.stats();
    assert.equal(stats.retries, 2);
    assert.equal(stats.requests, 4);
    assert.equal(stats.transportFailures, 3);
    assert.equal(stats.connections, 3);
  } finally {
    client.close();
    await peer.close();
  }
});

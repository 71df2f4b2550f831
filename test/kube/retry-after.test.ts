// A server that turns a request away with 429 and Retry-After (priority and fairness, a rate limit)
// did not act on it: every nodeherd client waits as told and sends it again, as client-go does.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRetryAfter, retryAfterWait } from '../../src/kube/https-transport.ts';
import { LightKubeClient } from '../../src/kube/light/light-kube-client.ts';
import { startScriptedPeer } from './scripted-https-peer.ts';

/** A peer that answers the first `refusals` requests with `status` and Retry-After, then a Node. */
function refusingPeer(refusals: number, status: number, retryAfter?: string) {
  const arrivals: { method: string; at: number }[] = [];
  const peer = startScriptedPeer((req, res) => {
    arrivals.push({ method: req.method ?? '', at: Date.now() });
    req.resume();
    req.on('end', () => {
      if (arrivals.length <= refusals) {
        res.writeHead(status, {
          'Content-Type': 'application/json',
          ...(retryAfter === undefined ? {} : { 'Retry-After': retryAfter }),
        });
        res.end(
          JSON.stringify({
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            reason: 'TooManyRequests',
            message: 'too many requests, please try again later',
            code: status,
          }),
        );
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Node', metadata: { name: 'n1' } }));
    });
  });
  return { peer, arrivals };
}

test('a 429 with Retry-After is waited out and sent again, a create included', async () => {
  const { peer: started, arrivals } = refusingPeer(2, 429, '1');
  const peer = await started;
  const client = new LightKubeClient({ server: peer.url, caPem: peer.caPem, token: 'peer-token' });
  try {
    const created = await client.create('/api/v1/nodes', { metadata: { name: 'n1' } });
    assert.equal(created.metadata?.name, 'n1');
    assert.deepEqual(
      arrivals.map((a) => a.method),
      ['POST', 'POST', 'POST'],
    );
    // Each retry waited at least the second the server asked for (timers never fire early).
    assert.ok(arrivals[1]!.at - arrivals[0]!.at >= 990, 'first retry waited for Retry-After');
    assert.ok(arrivals[2]!.at - arrivals[1]!.at >= 990, 'second retry waited for Retry-After');
    assert.equal(client.stats().retries, 2);
  } finally {
    client.close();
    await peer.close();
  }
});

test('a 429 without Retry-After is the caller’s error, not retried', async () => {
  const { peer: started, arrivals } = refusingPeer(1, 429);
  const peer = await started;
  const client = new LightKubeClient({ server: peer.url, caPem: peer.caPem, token: 'peer-token' });
  try {
    await assert.rejects(client.get('/api/v1/nodes/n1'), { status: 429 });
    assert.equal(arrivals.length, 1);
  } finally {
    client.close();
    await peer.close();
  }
});

test('a 503 with Retry-After is sent again only when the request is idempotent', async () => {
  for (const [send, expectedArrivals] of [
    [(c: LightKubeClient) => c.get('/api/v1/nodes/n1'), 2],
    [(c: LightKubeClient) => c.create('/api/v1/nodes', { metadata: { name: 'n1' } }), 1],
  ] as const) {
    const { peer: started, arrivals } = refusingPeer(1, 503, '0');
    const peer = await started;
    const client = new LightKubeClient({ server: peer.url, caPem: peer.caPem, token: 'peer-token' });
    try {
      if (expectedArrivals === 2) assert.equal((await send(client)).metadata?.name, 'n1');
      // A create may have acted before the server failed: the caller decides.
      else await assert.rejects(send(client), { status: 503 });
      assert.equal(arrivals.length, expectedArrivals);
    } finally {
      client.close();
      await peer.close();
    }
  }
});

test('Retry-After: delta-seconds only, the wait capped at a minute', () => {
  assert.equal(parseRetryAfter('3'), 3);
  assert.equal(parseRetryAfter(' 0 '), 0);
  assert.equal(parseRetryAfter('Wed, 21 Oct 2026 07:28:00 GMT'), undefined);
  assert.equal(parseRetryAfter('-1'), undefined);
  assert.equal(parseRetryAfter(undefined), undefined);
  assert.equal(retryAfterWait({ status: 429, text: '', retryAfterSeconds: 3600 }, false), 60_000);
  assert.equal(retryAfterWait({ status: 429, text: '', retryAfterSeconds: 2 }, false), 2000);
  assert.equal(retryAfterWait({ status: 500, text: '', retryAfterSeconds: 2 }, false), undefined);
  assert.equal(retryAfterWait({ status: 500, text: '', retryAfterSeconds: 2 }, true), 2000);
  assert.equal(retryAfterWait({ status: 409, text: '', retryAfterSeconds: 2 }, true), undefined);
});

// Watches against the real embedded API server, plus a scripted HTTPS peer for the failures a real
// server does not produce on demand (silence on an open connection, cut lines, split characters).

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { KubeError } from '../../src/kube/kube-error.ts';
import type { WatchEnd } from '../../src/kube/kube-watch.ts';
import { resourcePath } from '../../src/kube/light/api-paths.ts';
import { LightKubeClient } from '../../src/kube/light/light-kube-client.ts';
import type { KubeObject, WatchEvent } from '../../src/kube/light/types.ts';
import { type LocalApiServer, startLocalApiServer } from '../support/local-apiserver.ts';
import { type ScriptedPeer, sleep, startScriptedPeer } from './scripted-https-peer.ts';

const BOOKMARK_MS = 200;
let local: LocalApiServer;
let admin: LightKubeClient;

before(async () => {
  local = await startLocalApiServer({ bookmarkIntervalMs: BOOKMARK_MS, retainRevisions: 5 });
  admin = LightKubeClient.fromKubeconfig(local.kubeconfigPath);
});
after(async () => {
  admin?.close();
  await local?.stop();
});

const nodes = resourcePath({ apiVersion: 'v1', resource: 'nodes' });
const nodePath = (name: string) => resourcePath({ apiVersion: 'v1', resource: 'nodes', name });
const configMaps = resourcePath({ apiVersion: 'v1', resource: 'configmaps', namespace: 'default' });

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}

test('a watch sees ADDED, MODIFIED and DELETED of the selected object, in order', async () => {
  const start = await admin.list(nodes);
  const events: WatchEvent[] = [];
  const watch = admin.watch(
    nodes,
    { fieldSelector: 'metadata.name=w-1', resourceVersion: start.metadata.resourceVersion },
    { onEvent: (event) => events.push(event) },
  );
  await admin.create(nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'w-other' } });
  const created = await admin.create(nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'w-1' } });
  const patched = await admin.patch(nodePath('w-1'), { metadata: { labels: { step: 'two' } } });
  await admin.delete(nodePath('w-1'));
  await waitFor(() => events.length >= 3);
  watch.abort();
  const end = await watch.done;
  assert.equal(end.reason, 'aborted');
  assert.deepEqual(
    events.map((e) => `${e.type} ${e.object.metadata?.name}`),
    ['ADDED w-1', 'MODIFIED w-1', 'DELETED w-1'],
  );
  assert.equal(events[0]?.object.metadata?.resourceVersion, created.metadata?.resourceVersion);
  assert.equal(events[1]?.object.metadata?.labels?.step, 'two');
  assert.equal(events[1]?.object.metadata?.resourceVersion, patched.metadata?.resourceVersion);
  assert.equal(watch.resourceVersion, events[2]?.object.metadata?.resourceVersion);
});

test('without a resourceVersion the watch starts with ADDED for what exists', async () => {
  await admin.create(nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'w-existing' } });
  const events: WatchEvent[] = [];
  const watch = admin.watch(
    nodes,
    { fieldSelector: 'metadata.name=w-existing' },
    { onEvent: (e) => events.push(e) },
  );
  await waitFor(() => events.length >= 1);
  watch.abort();
  await watch.done;
  assert.deepEqual(
    events.map((e) => `${e.type} ${e.object.metadata?.name}`),
    ['ADDED w-existing'],
  );
});

test('BOOKMARKs advance the resourceVersion without reaching the handler', async () => {
  const start = await admin.list(nodes, { fieldSelector: 'metadata.name=w-quiet' });
  const events: WatchEvent[] = [];
  const watch = admin.watch(
    nodes,
    {
      fieldSelector: 'metadata.name=w-quiet',
      resourceVersion: start.metadata.resourceVersion,
      allowWatchBookmarks: true,
    },
    { onEvent: (e) => events.push(e) },
  );
  // Writes elsewhere move the store's revision; bookmarks carry it to this idle watch.
  const elsewhere = await admin.create(configMaps, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'w-bump' },
  });
  const target = Number(elsewhere.metadata?.resourceVersion);
  await waitFor(() => Number(watch.resourceVersion) >= target, 3000);
  watch.abort();
  const end = await watch.done;
  assert.deepEqual(events, []);
  assert.ok(end.events >= 1, 'bookmarks were received');
  assert.ok(Number(end.resourceVersion) >= target);
});

test('the server ends a watch at timeoutSeconds and the end says closed, with the resume point', async () => {
  const start = await admin.list(nodes);
  const began = Date.now();
  const watch = admin.watch(
    nodes,
    { resourceVersion: start.metadata.resourceVersion, allowWatchBookmarks: true, timeoutSeconds: 1 },
    { onEvent: () => {} },
    { inactivityTimeoutMs: 5000 },
  );
  const end = await watch.done;
  const elapsed = Date.now() - began;
  assert.equal(end.reason, 'closed');
  assert.ok(elapsed >= 900 && elapsed < 4000, `closed after ${elapsed} ms`);
  assert.ok(Number(end.resourceVersion) >= Number(start.metadata.resourceVersion));
});

test('a resourceVersion older than the retained history ends the watch as expired (410)', async () => {
  const old = await admin.list(nodes);
  for (let i = 0; i < 12; i++) {
    await admin.create(configMaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `w-churn-${i}` },
    });
  }
  local.server.store.compact();
  const events: WatchEvent[] = [];
  const watch = admin.watch(
    nodes,
    { resourceVersion: old.metadata.resourceVersion, allowWatchBookmarks: true },
    { onEvent: (e) => events.push(e) },
  );
  const end = await watch.done;
  assert.equal(end.reason, 'expired');
  assert.ok(end.error instanceof KubeError);
  assert.equal(end.error.status, 410);
  assert.equal(end.error.reason, 'Expired');
  assert.deepEqual(events, []);
});

test('a handler that throws ends the watch as failed with its error', async () => {
  const start = await admin.list(nodes);
  const watch = admin.watch(
    nodes,
    { resourceVersion: start.metadata.resourceVersion },
    {
      onEvent: () => {
        throw new Error('handler broke');
      },
    },
  );
  await admin.create(nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'w-throw' } });
  const end = await watch.done;
  assert.equal(end.reason, 'failed');
  assert.equal(end.error?.message, 'handler broke');
});

test("a node identity may watch its own Node but not another's (403)", async () => {
  await admin.create(nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'w-agent' } });
  const kubeconfig = join(local.dataDir, 'agents', 'w-agent.kubeconfig');
  await local.server.issueCredential('node', 'w-agent', kubeconfig);
  const agent = LightKubeClient.fromKubeconfig(kubeconfig);
  try {
    const refused = agent.watch(nodes, { fieldSelector: 'metadata.name=w-1' }, { onEvent: () => {} });
    const end = await refused.done;
    assert.equal(end.reason, 'failed');
    assert.ok(end.error instanceof KubeError);
    assert.equal(end.error.status, 403);
    assert.equal(end.error.reason, 'Forbidden');

    const events: WatchEvent[] = [];
    const own = agent.watch(
      nodes,
      { fieldSelector: 'metadata.name=w-agent' },
      { onEvent: (e) => events.push(e) },
    );
    await waitFor(() => events.length >= 1);
    own.abort();
    assert.equal((await own.done).reason, 'aborted');
    assert.equal(events[0]?.object.metadata?.name, 'w-agent');
  } finally {
    agent.close();
  }
});

// --- failures only a scripted peer produces on demand ---

const TOKEN = 'scripted-peer-secret-token-0123456789';

async function withPeer(
  respond: Parameters<typeof startScriptedPeer>[0],
  body: (client: LightKubeClient, peer: ScriptedPeer) => Promise<void>,
): Promise<void> {
  const peer = await startScriptedPeer(respond);
  const client = new LightKubeClient({ server: peer.url, caPem: peer.caPem, token: TOKEN });
  try {
    await body(client, peer);
  } finally {
    client.close();
    await peer.close();
  }
}

function event(type: string, object: KubeObject): string {
  return `${JSON.stringify({ type, object })}\n`;
}

test('silence on an open connection (half-open TCP) ends the watch as inactive; bytes keep it alive', async () => {
  await withPeer(
    (req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.flushHeaders();
      if (req.url?.includes('labelSelector=chatty')) {
        // A bookmark every 100 ms, then silence.
        let sent = 0;
        const timer = setInterval(() => {
          res.write(
            event('BOOKMARK', {
              kind: 'Node',
              apiVersion: 'v1',
              metadata: { resourceVersion: String(++sent) },
            }),
          );
          if (sent === 8) clearInterval(timer);
        }, 100);
        res.on('close', () => clearInterval(timer));
      }
    },
    async (client) => {
      const silentStart = Date.now();
      const silent = client.watch(nodes, {}, { onEvent: () => {} }, { inactivityTimeoutMs: 300 });
      const silentEnd = await silent.done;
      assert.equal(silentEnd.reason, 'inactive');
      assert.ok(Date.now() - silentStart >= 290);

      const chattyStart = Date.now();
      const chatty = client.watch(
        nodes,
        { labelSelector: 'chatty' },
        { onEvent: () => {} },
        { inactivityTimeoutMs: 300 },
      );
      const chattyEnd = await chatty.done;
      // 8 bookmarks at 100 ms intervals outlive the 300 ms timeout; the silence after them does not.
      assert.equal(chattyEnd.reason, 'inactive');
      assert.equal(chattyEnd.events, 8);
      assert.equal(chattyEnd.resourceVersion, '8');
      assert.ok(Date.now() - chattyStart >= 1000, 'bookmarks kept it alive past the timeout');
    },
  );
});

test('events survive any split across TCP writes, including inside multi-byte characters and huge lines', async () => {
  const name = 'nœud-ノード-🚀';
  const big = 'é'.repeat(1_500_000); // 3 MB of two-byte characters
  const stream = Buffer.from(
    event('ADDED', { kind: 'Node', metadata: { name, resourceVersion: '11' } }) +
      event('BOOKMARK', { kind: 'Node', metadata: { resourceVersion: '12' } }) +
      event('MODIFIED', { kind: 'Node', metadata: { name, resourceVersion: '13', annotations: { big } } }),
  );
  // Cut points inside the multi-byte name and at odd offsets in the big line.
  const firstLine = stream.indexOf(0x0a);
  const nameOffset = stream.indexOf(Buffer.from('ノ')) + 1;
  const cuts = [
    3,
    nameOffset,
    nameOffset + 4,
    firstLine,
    firstLine + 1,
    firstLine + 90,
    stream.length - 1_000_001,
    stream.length - 7,
  ];
  await withPeer(
    async (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      let previous = 0;
      for (const cut of [...cuts, stream.length]) {
        res.write(stream.subarray(previous, cut));
        previous = cut;
        await sleep(5);
      }
      res.end();
    },
    async (client) => {
      const events: WatchEvent[] = [];
      const watch = client.watch(nodes, {}, { onEvent: (e) => events.push(e) });
      const end = await watch.done;
      assert.equal(end.reason, 'closed');
      assert.equal(end.events, 3);
      assert.equal(end.resourceVersion, '13');
      assert.deepEqual(
        events.map((e) => `${e.type} ${e.object.metadata?.name}`),
        [`ADDED ${name}`, `MODIFIED ${name}`],
      );
      assert.equal(events[1]?.object.metadata?.annotations?.big, big);
    },
  );
});

test('a stream cut in the middle of an event, or a line that is not JSON, ends the watch as failed', async () => {
  await withPeer(
    (req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      if (req.url?.includes('labelSelector=cut')) {
        res.end(
          `${event('ADDED', { metadata: { name: 'a', resourceVersion: '5' } })}{"type":"MODIFIED","obj`,
        );
      } else {
        res.write('this is not json\n');
      }
    },
    async (client) => {
      const seen: string[] = [];
      const cut = client.watch(nodes, { labelSelector: 'cut' }, { onEvent: (e) => seen.push(e.type) });
      const cutEnd: WatchEnd = await cut.done;
      assert.equal(cutEnd.reason, 'failed');
      assert.match(cutEnd.error?.message ?? '', /middle of an event/);
      assert.equal(cutEnd.resourceVersion, '5');
      assert.deepEqual(seen, ['ADDED']);

      const garbage = await client.watch(nodes, {}, { onEvent: () => {} }).done;
      assert.equal(garbage.reason, 'failed');
      assert.match(garbage.error?.message ?? '', /not JSON/);
    },
  );
});

test('a plain 410 answer is expired; an error body echoing the token never shows it', async () => {
  await withPeer(
    (req, res) => {
      if (req.url?.includes('resourceVersion=1')) {
        res.writeHead(410, { 'Content-Type': 'application/json' });
        res.end(
          JSON.stringify({
            kind: 'Status',
            status: 'Failure',
            code: 410,
            reason: 'Expired',
            message: 'too old',
          }),
        );
        return;
      }
      // A misbehaving proxy that reflects the request headers.
      res.writeHead(502, { 'Content-Type': 'text/plain' });
      res.end(`bad gateway for ${req.headers.authorization}`);
    },
    async (client, peer) => {
      const expired = await client.watch(nodes, { resourceVersion: '1' }, { onEvent: () => {} }).done;
      assert.equal(expired.reason, 'expired');
      assert.equal((expired.error as KubeError).status, 410);

      const reflected = await client.watch(nodes, {}, { onEvent: () => {} }).done;
      assert.equal(reflected.reason, 'failed');
      const error = reflected.error as KubeError;
      assert.equal(error.status, 502);
      assert.equal(peer.requests[1]?.headers.authorization, `Bearer ${TOKEN}`, 'the token was sent');
      const visible = `${error.message} ${String(error.body)} ${error.stack}`;
      assert.ok(!visible.includes(TOKEN), visible);
      assert.match(visible, /\[redacted\]/);

      const get = await client.get(nodePath('x')).catch((err: unknown) => err);
      assert.ok(get instanceof KubeError);
      assert.ok(!`${get.message} ${String(get.body)}`.includes(TOKEN));
    },
  );
});

test('the watch request carries watch=true, the selectors, the resume point and the bearer token', async () => {
  await withPeer(
    (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end();
    },
    async (client, peer) => {
      const end = await client.watch(
        nodes,
        {
          fieldSelector: 'metadata.name=n1',
          labelSelector: 'a=b',
          resourceVersion: '42',
          allowWatchBookmarks: true,
          timeoutSeconds: 1800,
        },
        { onEvent: () => {} },
      ).done;
      assert.equal(end.reason, 'closed');
      assert.equal(end.resourceVersion, '42');
      const url = new URL(peer.requests[0]?.url ?? '', 'https://x');
      assert.equal(url.pathname, '/api/v1/nodes');
      assert.deepEqual(Object.fromEntries(url.searchParams), {
        watch: 'true',
        fieldSelector: 'metadata.name=n1',
        labelSelector: 'a=b',
        resourceVersion: '42',
        allowWatchBookmarks: 'true',
        timeoutSeconds: '1800',
      });
      assert.equal(peer.requests[0]?.headers.authorization, `Bearer ${TOKEN}`);
      assert.deepEqual(client.stats().byVerb.watch, 1);
    },
  );
});

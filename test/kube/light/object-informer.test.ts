// The single-object informer against the real embedded API server: sync, changes, bookmarks keeping
// it alive, resuming without a re-list after the server restarts, re-listing after 410, silence
// detection, and backing off (not spinning) when refused.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { KubeError } from '../../../src/kube/kube-error.ts';
import { resourcePath } from '../../../src/kube/light/api-paths.ts';
import { LightKubeClient } from '../../../src/kube/light/light-kube-client.ts';
import { ObjectInformer, watchObject } from '../../../src/kube/light/object-informer.ts';
import type { KubeObject } from '../../../src/kube/light/types.ts';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';
import { sleep } from '../scripted-https-peer.ts';

const nodes = resourcePath({ apiVersion: 'v1', resource: 'nodes' });
const nodePath = (name: string) => resourcePath({ apiVersion: 'v1', resource: 'nodes', name });
const configMaps = resourcePath({ apiVersion: 'v1', resource: 'configmaps', namespace: 'default' });
const FAST_BACKOFF = { initialMs: 100, maxMs: 1000 };

// Bookmarks every 100 ms: idle watches hear from the server often.
let chatty: LocalApiServer;
let admin: LightKubeClient;
// Bookmarks only every minute and 5 revisions of history: silence and expiry on demand.
let quiet: LocalApiServer;
let quietAdmin: LightKubeClient;

before(async () => {
  [chatty, quiet] = await Promise.all([
    startLocalApiServer({ bookmarkIntervalMs: 100 }),
    startLocalApiServer({ bookmarkIntervalMs: 60_000, retainRevisions: 5 }),
  ]);
  admin = LightKubeClient.fromKubeconfig(chatty.kubeconfigPath);
  quietAdmin = LightKubeClient.fromKubeconfig(quiet.kubeconfigPath);
});
after(async () => {
  admin?.close();
  quietAdmin?.close();
  await Promise.all([chatty?.stop(), quiet?.stop()]);
});

async function waitFor(condition: () => boolean, what: string, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

function recorder(): { seen: (KubeObject | undefined)[]; onChange: (o: KubeObject | undefined) => void } {
  const seen: (KubeObject | undefined)[] = [];
  return { seen, onChange: (object) => seen.push(object) };
}

const describe = (o: KubeObject | undefined) =>
  o ? `${o.metadata?.name}@${o.metadata?.labels?.step ?? '-'}` : 'absent';

test('syncs an absent object, then follows create, change and delete, one onChange per new resourceVersion', async () => {
  const client = LightKubeClient.fromKubeconfig(chatty.kubeconfigPath);
  const { seen, onChange } = recorder();
  const informer = watchObject(client, nodes, 'inf-1', onChange, {
    bookmarkIntervalMs: 100,
    backoff: FAST_BACKOFF,
  });
  try {
    assert.equal(await informer.whenSynced(), undefined);
    assert.ok(informer.synced);
    assert.deepEqual(seen.map(describe), ['absent']);

    await admin.create(nodes, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'inf-1', labels: { step: '1' } },
    });
    await admin.create(nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'inf-1-not-me' } });
    await waitFor(() => seen.length === 2, 'ADDED');
    const patched = await admin.patch(nodePath('inf-1'), { metadata: { labels: { step: '2' } } });
    await waitFor(() => seen.length === 3, 'MODIFIED');
    assert.equal(informer.object?.metadata?.resourceVersion, patched.metadata?.resourceVersion);

    // A second of idleness: ~10 bookmarks, no callbacks, no new requests.
    const before = client.stats();
    await sleep(1000);
    assert.equal(seen.length, 3);
    assert.equal(client.stats().requests, before.requests);
    assert.ok((client.stats().watchEvents.BOOKMARK ?? 0) >= 5, 'bookmarks arrived');

    await admin.delete(nodePath('inf-1'));
    await waitFor(() => seen.length === 4, 'DELETED');
    assert.deepEqual(seen.map(describe), ['absent', 'inf-1@1', 'inf-1@2', 'absent']);
    assert.equal(informer.object, undefined);
    assert.deepEqual(
      { lists: informer.stats().lists, watches: informer.stats().watches, changes: informer.stats().changes },
      { lists: 1, watches: 1, changes: 4 },
    );
    assert.deepEqual(client.stats().byVerb, {
      get: 0,
      list: 1,
      watch: 1,
      create: 0,
      update: 0,
      patch: 0,
      delete: 0,
    });
  } finally {
    await informer.stop();
    client.close();
  }
});

test('bookmarks keep a long idle watch alive under a short inactivity timeout', async () => {
  await admin.create(nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'inf-idle' } });
  const client = LightKubeClient.fromKubeconfig(chatty.kubeconfigPath);
  const { seen, onChange } = recorder();
  // 4 missed bookmarks of 100 ms: 400 ms of silence would drop the connection.
  const informer = watchObject(client, nodes, 'inf-idle', onChange, {
    bookmarkIntervalMs: 100,
    missedBookmarks: 4,
  });
  try {
    await informer.whenSynced();
    await sleep(2000);
    const stats = informer.stats();
    assert.equal(stats.inactive, 0);
    assert.equal(stats.watches, 1);
    assert.equal(stats.failures, 0);
    assert.equal(seen.length, 1);
    assert.equal(client.stats().requests, 2, 'one list and one watch in 2 s');
  } finally {
    await informer.stop();
    client.close();
  }
});

test('an idle informer costs one watch per server-side timeout and never re-lists (no polling)', async () => {
  await admin.create(nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'inf-cycle' } });
  const client = LightKubeClient.fromKubeconfig(chatty.kubeconfigPath);
  const { seen, onChange } = recorder();
  const informer = watchObject(client, nodes, 'inf-cycle', onChange, {
    watchTimeoutSeconds: [1, 1],
    bookmarkIntervalMs: 100,
  });
  try {
    await informer.whenSynced();
    await sleep(3500);
    const stats = client.stats();
    assert.equal(stats.byVerb.list, 1);
    // 3.5 s of 1 s watches: the 4th is open (a 5th may be starting if the clock is tight).
    assert.ok(stats.byVerb.watch >= 3 && stats.byVerb.watch <= 5, `watches: ${stats.byVerb.watch}`);
    assert.equal(informer.stats().failures, 0);
    assert.equal(seen.length, 1, 'resumes do not call onChange');
    await admin.patch(nodePath('inf-cycle'), { metadata: { labels: { step: 'after-resumes' } } });
    await waitFor(() => seen.length === 2, 'change after resumes');
    assert.equal(seen[1]?.metadata?.labels?.step, 'after-resumes');
  } finally {
    await informer.stop();
    client.close();
  }
});

test('after the server restarts the informer resumes from its resourceVersion without re-listing', async () => {
  const local = await startLocalApiServer({ bookmarkIntervalMs: 200 });
  const localAdmin = LightKubeClient.fromKubeconfig(local.kubeconfigPath);
  const client = LightKubeClient.fromKubeconfig(local.kubeconfigPath);
  const errors: Error[] = [];
  const { seen, onChange } = recorder();
  const informer = watchObject(client, nodes, 'inf-restart', onChange, {
    bookmarkIntervalMs: 200,
    backoff: FAST_BACKOFF,
    onError: (err) => errors.push(err),
  });
  try {
    await localAdmin.create(nodes, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'inf-restart', labels: { step: '1' } },
    });
    await informer.whenSynced();
    await waitFor(() => seen.length === 2, 'created');
    await local.restart();
    await localAdmin.patch(nodePath('inf-restart'), { metadata: { labels: { step: '2' } } });
    await waitFor(() => seen.length === 3, 'change after restart');
    assert.deepEqual(seen.map(describe), ['absent', 'inf-restart@1', 'inf-restart@2']);
    const stats = informer.stats();
    assert.equal(stats.lists, 1, 'no re-list');
    assert.equal(stats.relists, 0);
    assert.ok(stats.resumes >= 1);
    assert.ok(stats.failures >= 1, 'the broken stream counted as a failure');
    assert.ok(errors.length >= 1);
    assert.equal(client.stats().byVerb.list, 1);
  } finally {
    await informer.stop();
    client.close();
    localAdmin.close();
    await local.stop();
  }
});

test('a 410 Expired on resume makes the informer re-list, without calling onChange for an unchanged object', async () => {
  await quietAdmin.create(nodes, {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'inf-expire', labels: { step: '1' } },
  });
  const client = LightKubeClient.fromKubeconfig(quiet.kubeconfigPath);
  const { seen, onChange } = recorder();
  const errors: Error[] = [];
  // Watches end every second and resume from the list's resourceVersion (no bookmark moves it).
  const informer = watchObject(client, nodes, 'inf-expire', onChange, {
    watchTimeoutSeconds: [1, 1],
    backoff: FAST_BACKOFF,
    onError: (err) => errors.push(err),
  });
  try {
    await informer.whenSynced();
    const listedAt = Number(informer.resourceVersion);
    for (let i = 0; i < 12; i++) {
      await quietAdmin.create(configMaps, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `inf-churn-${i}` },
      });
    }
    quiet.server.store.compact();
    // Done when the re-list has answered and moved the resume point past the churn.
    await waitFor(() => Number(informer.resourceVersion) > listedAt + 10, 're-list after 410', 6000);
    assert.deepEqual([informer.stats().relists, informer.stats().lists], [1, 2]);
    assert.deepEqual(seen.map(describe), ['inf-expire@1'], 'the object did not change, so no callback');
    // A first 410 is routine (history moved on): it re-lists without reporting an error.
    assert.deepEqual(errors, []);

    await quietAdmin.patch(nodePath('inf-expire'), { metadata: { labels: { step: '2' } } });
    await waitFor(() => seen.length === 2, 'change after re-list');
    assert.deepEqual(seen.map(describe), ['inf-expire@1', 'inf-expire@2']);
  } finally {
    await informer.stop();
    client.close();
  }
});

test('silence beyond the inactivity timeout drops the watch and resumes it, without re-listing', async () => {
  await quietAdmin.create(nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'inf-silent' } });
  const client = LightKubeClient.fromKubeconfig(quiet.kubeconfigPath);
  const { seen, onChange } = recorder();
  // This server bookmarks once a minute; an informer expecting one every 100 ms hears silence.
  const errors: string[] = [];
  const informer = watchObject(client, nodes, 'inf-silent', onChange, {
    bookmarkIntervalMs: 100,
    missedBookmarks: 3,
    backoff: FAST_BACKOFF,
    onError: (err) => errors.push(err.message),
  });
  try {
    await informer.whenSynced();
    await waitFor(() => informer.stats().inactive >= 2, 'two inactivity drops', 5000);
    const stats = informer.stats();
    assert.equal(stats.lists, 1);
    assert.ok(stats.resumes >= 1 && stats.watches >= 2, JSON.stringify(stats));
    assert.ok(errors.includes('watch silent for 300 ms, connection dropped'), errors.join('; '));
    await quietAdmin.patch(nodePath('inf-silent'), { metadata: { labels: { step: '2' } } });
    await waitFor(() => seen.length === 2, 'change seen by a resumed watch');
  } finally {
    await informer.stop();
    client.close();
  }
});

test('refused (403), the informer backs off exponentially instead of spinning, and stop() ends it at once', async () => {
  await admin.create(nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'inf-agent' } });
  const kubeconfig = join(chatty.dataDir, 'agents', 'inf-agent.kubeconfig');
  await chatty.server.issueCredential('node', 'inf-agent', kubeconfig);
  const agent = LightKubeClient.fromKubeconfig(kubeconfig);
  const errors: Error[] = [];
  const denied = new ObjectInformer(agent, {
    collectionPath: nodes,
    name: 'inf-1-not-me',
    onChange: () => assert.fail('a refused informer never syncs'),
    onError: (err) => errors.push(err),
    backoff: { initialMs: 200, maxMs: 5000 },
  }).start();
  try {
    await sleep(1500);
    // Delays of 100–200, 200–400, 400–800 ms: at most 4 attempts fit in 1.5 s.
    const lists = denied.stats().lists;
    assert.ok(lists >= 2 && lists <= 4, `lists: ${lists}`);
    assert.ok(errors.every((e) => e instanceof KubeError && e.status === 403));
    assert.equal(denied.synced, false);
    const stopping = Date.now();
    await denied.stop();
    assert.ok(Date.now() - stopping < 100, 'stop interrupts the backoff sleep');

    const { seen, onChange } = recorder();
    const own = watchObject(agent, nodes, 'inf-agent', onChange);
    const object = await own.whenSynced();
    assert.equal(object?.metadata?.name, 'inf-agent');
    await own.stop();
    assert.equal(seen.length, 1);
  } finally {
    await denied.stop();
    agent.close();
  }
});

test('a throwing or rejecting onChange is reported and the informer keeps going', async () => {
  const client = LightKubeClient.fromKubeconfig(chatty.kubeconfigPath);
  const errors: { message: string; during: string }[] = [];
  let calls = 0;
  const informer = watchObject(
    client,
    nodes,
    'inf-throw',
    async (object) => {
      calls++;
      if (object?.metadata?.labels?.step === 'reject') throw new Error('async failure');
      if (object) throw new Error('sync failure');
    },
    { onError: (err, during) => errors.push({ message: err.message, during }), backoff: FAST_BACKOFF },
  );
  try {
    await informer.whenSynced();
    await admin.create(nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'inf-throw' } });
    await waitFor(() => calls === 2, 'ADDED delivered');
    await admin.patch(nodePath('inf-throw'), { metadata: { labels: { step: 'reject' } } });
    await waitFor(() => calls === 3 && errors.length === 2, 'MODIFIED delivered');
    assert.deepEqual(errors, [
      { message: 'sync failure', during: 'onChange' },
      { message: 'async failure', during: 'onChange' },
    ]);
    assert.equal(informer.stats().watches, 1, 'the watch was not torn down');
  } finally {
    await informer.stop();
    client.close();
  }
});

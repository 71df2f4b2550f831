// Conformance: watches. `kubectl get -w` (a child process whose output is parsed) sees ADDED, MODIFIED
// and DELETED; the official client's Watch resumes from a resourceVersion; bookmarks, timeoutSeconds,
// selectors, sendInitialEvents and 410 Expired behave like kube-apiserver's.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Watch } from '@kubernetes/client-node';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';
import {
  assertStatus,
  json,
  kubectlOk,
  kubectlSpawn,
  parseJsonStream,
  raw,
  rawWatch,
  waitFor,
} from './support.ts';

const configMap = (name: string, data: Record<string, string>, labels?: Record<string, string>) =>
  json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data });

describe('watch', () => {
  let local: LocalApiServer;

  before(async () => {
    local = await startLocalApiServer({ bookmarkIntervalMs: 200, retainRevisions: 20 });
  });
  after(() => local.stop());

  test('kubectl get -w sees ADDED, MODIFIED and DELETED (table output)', async () => {
    // A watch of an earlier test may still be closing: start from none, so a new one is unmistakable.
    await waitFor('earlier watches to close', () => local.server.openWatches === 0 || undefined);
    const watcher = kubectlSpawn(local, ['get', 'configmaps', '-w', '--output-watch-events']);
    try {
      // kubectl lists first, then watches from the list's resourceVersion: wait for that watch.
      await waitFor('kubectl to start watching', () => local.server.openWatches > 0);
      await kubectlOk(local, ['apply', '-f', '-'], configMap('tw', { a: '1' }));
      await kubectlOk(local, ['label', 'configmap', 'tw', 'seen=yes']);
      await kubectlOk(local, ['delete', 'configmap', 'tw']);
      const rows = await waitFor('three events', () => {
        const lines = watcher.stdout
          .trim()
          .split('\n')
          .filter((l) => /^(ADDED|MODIFIED|DELETED)\s/.test(l));
        return lines.length >= 3 ? lines : undefined;
      });
      assert.deepEqual(
        rows.map((l) => l.split(/\s+/).slice(0, 2)),
        [
          ['ADDED', 'tw'],
          ['MODIFIED', 'tw'],
          ['DELETED', 'tw'],
        ],
      );
      assert.match(watcher.stdout, /^EVENT\s+NAME\s/m);
    } finally {
      await watcher.stop();
    }
  });

  test('kubectl get -w -o json: events carry the objects with increasing resourceVersions', async () => {
    // A watch of an earlier test may still be closing: start from none, so a new one is unmistakable.
    await waitFor('earlier watches to close', () => local.server.openWatches === 0 || undefined);
    const watcher = kubectlSpawn(local, ['get', 'configmaps', '-w', '--output-watch-events', '-o', 'json']);
    try {
      await waitFor('kubectl to start watching', () => local.server.openWatches > 0);
      await kubectlOk(local, ['apply', '-f', '-'], configMap('jw', { a: '1' }));
      await kubectlOk(local, ['patch', 'configmap', 'jw', '--type=merge', '-p', json({ data: { a: '2' } })]);
      await kubectlOk(local, ['delete', 'configmap', 'jw']);
      const events = await waitFor('three events', () => {
        const docs = parseJsonStream(watcher.stdout);
        return docs.length >= 3 ? docs : undefined;
      });
      assert.deepEqual(
        events.map((e) => e.type),
        ['ADDED', 'MODIFIED', 'DELETED'],
      );
      assert.equal(events[1].object.data.a, '2');
      const [a, b, c] = events.map((e) => Number(e.object.metadata.resourceVersion)) as [
        number,
        number,
        number,
      ];
      assert.ok(a < b && b < c, `increasing: ${a}, ${b}, ${c}`);
      for (const e of events) {
        assert.equal(e.object.kind, 'ConfigMap');
        assert.equal(e.object.apiVersion, 'v1');
      }
    } finally {
      await watcher.stop();
    }
  });

  test('kubectl get -w on one object sees only that object', async () => {
    await kubectlOk(local, ['apply', '-f', '-'], configMap('one', { a: '1' }));
    await kubectlOk(local, ['apply', '-f', '-'], configMap('two', { a: '1' }));
    const watcher = kubectlSpawn(local, [
      'get',
      'configmap',
      'one',
      '-w',
      '--output-watch-events',
      '-o',
      'json',
    ]);
    try {
      await waitFor('the initial state', () => parseJsonStream(watcher.stdout).length >= 1 || undefined);
      await kubectlOk(local, ['annotate', 'configmap', 'two', 'note=x']);
      await kubectlOk(local, ['annotate', 'configmap', 'one', 'note=y']);
      const events = await waitFor('the annotation of one', () => {
        const docs = parseJsonStream(watcher.stdout);
        return docs.some((d) => d.object?.metadata?.annotations?.note === 'y') ? docs : undefined;
      });
      for (const e of events) assert.equal(e.object.metadata.name, 'one');
    } finally {
      await watcher.stop();
    }
  });

  test('client-node Watch resumes from a resourceVersion and gets only later changes', async () => {
    const created = await raw(local, {
      method: 'POST',
      path: '/api/v1/namespaces/default/configmaps',
      body: configMap('resume', { v: '0' }),
    });
    assert.equal(created.status, 201);
    const from = created.json.metadata.resourceVersion;
    for (let i = 1; i <= 3; i++) {
      await raw(local, {
        method: 'PATCH',
        path: '/api/v1/namespaces/default/configmaps/resume',
        contentType: 'application/merge-patch+json',
        body: json({ data: { v: String(i) } }),
      });
    }
    const seen: { type: string; object: any }[] = [];
    const watch = new Watch(local.kubeConfig());
    const controller = await watch.watch(
      '/api/v1/namespaces/default/configmaps',
      { resourceVersion: from, fieldSelector: 'metadata.name=resume' },
      (type, object) => seen.push({ type, object }),
      () => {},
    );
    try {
      await waitFor('three replayed changes', () => seen.length >= 3 || undefined);
      assert.deepEqual(
        seen.map((e) => [e.type, e.object.data.v]),
        [
          ['MODIFIED', '1'],
          ['MODIFIED', '2'],
          ['MODIFIED', '3'],
        ],
      );
      // And live ones after the replay.
      await raw(local, {
        method: 'DELETE',
        path: '/api/v1/namespaces/default/configmaps/resume',
      });
      await waitFor('the deletion', () => seen.length >= 4 || undefined);
      assert.equal(seen[3]!.type, 'DELETED');
      assert.ok(
        Number(seen[3]!.object.metadata.resourceVersion) > Number(seen[2]!.object.metadata.resourceVersion),
      );
    } finally {
      controller.abort();
    }
  });

  test('BOOKMARK events only when asked, carrying just a resourceVersion', async () => {
    const current = (await raw(local, { path: '/api/v1/namespaces/default/configmaps' })).json.metadata
      .resourceVersion;
    const withBookmarks = await rawWatch(
      local,
      `/api/v1/namespaces/default/configmaps?watch=true&allowWatchBookmarks=true&resourceVersion=${current}`,
    );
    const without = await rawWatch(
      local,
      `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${current}`,
    );
    try {
      assert.equal(withBookmarks.status, 200);
      assert.match(String(withBookmarks.headers['content-type']), /^application\/json/);
      await waitFor('two bookmarks', () => withBookmarks.events.length >= 2 || undefined);
      for (const e of withBookmarks.events) {
        assert.equal(e.type, 'BOOKMARK');
        assert.equal(e.object.kind, 'ConfigMap');
        assert.equal(e.object.apiVersion, 'v1');
        assert.deepEqual(Object.keys(e.object.metadata), ['resourceVersion']);
        assert.ok(Number(e.object.metadata.resourceVersion) >= Number(current));
      }
      assert.equal(without.events.length, 0);
    } finally {
      withBookmarks.close();
      without.close();
    }
  });

  test('timeoutSeconds ends the watch', async () => {
    const started = Date.now();
    const w = await rawWatch(local, '/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1');
    await w.ended;
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 900 && elapsed < 5000, `closed after ${elapsed} ms`);
  });

  test('a label-selected watch sees an object leave its selection as DELETED', async () => {
    await kubectlOk(local, ['apply', '-f', '-'], configMap('sel', { a: '1' }, { team: 'a' }));
    const rv = (await raw(local, { path: '/api/v1/namespaces/default/configmaps/sel' })).json.metadata
      .resourceVersion;
    const w = await rawWatch(
      local,
      `/api/v1/namespaces/default/configmaps?watch=true&labelSelector=team%3Da&resourceVersion=${rv}`,
    );
    try {
      await kubectlOk(local, ['label', 'configmap', 'sel', 'team=b', '--overwrite']);
      await kubectlOk(local, ['label', 'configmap', 'sel', 'team=a', '--overwrite']);
      await waitFor('two events', () => w.events.length >= 2 || undefined);
      assert.deepEqual(
        w.events.map((e) => [e.type, e.object.metadata.labels.team]),
        [
          ['DELETED', 'a'],
          ['ADDED', 'a'],
        ],
      );
    } finally {
      w.close();
    }
  });

  test('without a resourceVersion a watch starts with ADDED for every current object', async () => {
    const w = await rawWatch(local, '/api/v1/namespaces/default/configmaps?watch=true&labelSelector=team');
    try {
      await waitFor('the synthetic ADDED', () => w.events.length >= 1 || undefined);
      assert.deepEqual(
        w.events.map((e) => [e.type, e.object.metadata.name]),
        [['ADDED', 'sel']],
      );
    } finally {
      w.close();
    }
  });

  test('sendInitialEvents: initial ADDED then a bookmark marking their end, or 400 when misused', async () => {
    const w = await rawWatch(
      local,
      '/api/v1/namespaces/default/configmaps?watch=true&labelSelector=team&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
    );
    try {
      assert.equal(w.status, 200);
      await waitFor('the initial-events-end bookmark', () =>
        w.events.some((e) => e.type === 'BOOKMARK' && e.object.metadata.annotations) ? true : undefined,
      );
      assert.equal(w.events[0]!.type, 'ADDED');
      assert.equal(w.events[0]!.object.metadata.name, 'sel');
      assert.equal(w.events[1]!.type, 'BOOKMARK');
      assert.deepEqual(w.events[1]!.object.metadata.annotations, { 'k8s.io/initial-events-end': 'true' });
    } finally {
      w.close();
    }
    const noMatch = await raw(local, {
      path: '/api/v1/namespaces/default/configmaps?watch=true&sendInitialEvents=true',
    });
    assertStatus(noMatch, 400, 'BadRequest');
    const onList = await raw(local, { path: '/api/v1/namespaces/default/configmaps?sendInitialEvents=true' });
    assertStatus(onList, 400, 'BadRequest');
    // kubectl delete --wait watches the object until it is gone; it must not hang.
    await kubectlOk(local, ['apply', '-f', '-'], configMap('waited', { a: '1' }));
    await kubectlOk(local, ['delete', 'configmap', 'waited', '--wait=true', '--timeout=10s']);
  });

  test('a resourceVersion older than compaction: 200, then an ERROR event with 410 Expired', async () => {
    const old = (await raw(local, { path: '/api/v1/namespaces/default/configmaps' })).json.metadata
      .resourceVersion;
    for (let i = 0; i < 30; i++) {
      await raw(local, {
        method: 'PATCH',
        path: '/api/v1/namespaces/default/configmaps/sel',
        contentType: 'application/merge-patch+json',
        body: json({ data: { n: String(i) } }),
      });
    }
    local.server.store.compact();
    const w = await rawWatch(
      local,
      `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${old}`,
    );
    await w.ended;
    assert.equal(w.status, 200);
    assert.equal(w.events.length, 1);
    const [event] = w.events;
    assert.equal(event!.type, 'ERROR');
    assert.equal(event!.object.kind, 'Status');
    assert.equal(event!.object.code, 410);
    assert.equal(event!.object.reason, 'Expired');
    assert.match(event!.object.message, /too old resource version/);
  });
});

// Conformance: @kubernetes/client-node informers (makeInformer). One resumes after a server restart
// from its last resourceVersion without listing again; one whose resourceVersion fell behind
// compaction gets 410 Expired and lists again. Lists are counted by wrapping the informer's listFn.

import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import {
  ADD,
  CoreV1Api,
  DELETE,
  ERROR,
  type ListWatch,
  makeInformer,
  UPDATE,
  type V1ConfigMap,
} from '@kubernetes/client-node';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';
import { waitFor } from './support.ts';

interface Observed {
  /** makeInformer's result is a ListWatch (its declared type omits latestResourceVersion). */
  informer: ListWatch<V1ConfigMap>;
  events: string[];
  errors: unknown[];
  lists(): number;
  /** Stops the informer (and its restarts on error) until resume(). */
  pause(): Promise<void>;
  resume(): Promise<void>;
  stop(): Promise<void>;
}

/** An informer on default/configmaps that restarts itself after errors, as controllers do. */
async function observe(local: LocalApiServer): Promise<Observed> {
  const kc = local.kubeConfig();
  const core = kc.makeApiClient(CoreV1Api);
  let lists = 0;
  let stopped = false;
  const informer = makeInformer<V1ConfigMap>(kc, '/api/v1/namespaces/default/configmaps', () => {
    lists++;
    return core.listNamespacedConfigMap({ namespace: 'default' });
  }) as ListWatch<V1ConfigMap>;
  const events: string[] = [];
  const errors: unknown[] = [];
  informer.on(ADD, (o) => events.push(`add ${o.metadata!.name} ${o.data?.v ?? ''}`));
  informer.on(UPDATE, (o) => events.push(`update ${o.metadata!.name} ${o.data?.v ?? ''}`));
  informer.on(DELETE, (o) => events.push(`delete ${o.metadata!.name}`));
  informer.on(ERROR, (err) => {
    errors.push(err);
    if (!stopped) setTimeout(() => !stopped && informer.start(), 100);
  });
  await informer.start();
  return {
    informer,
    events,
    errors,
    lists: () => lists,
    async pause() {
      stopped = true;
      await informer.stop();
    },
    async resume() {
      stopped = false;
      await informer.start();
    },
    async stop() {
      stopped = true;
      await informer.stop();
    },
  };
}

describe('informers', () => {
  let local: LocalApiServer | undefined;
  let observed: Observed | undefined;

  afterEach(async () => {
    await observed?.stop();
    await local?.stop();
    observed = undefined;
    local = undefined;
  });

  const core = () => local!.kubeConfig().makeApiClient(CoreV1Api);
  const put = async (name: string, v: string) => {
    const api = core();
    try {
      const cm = await api.readNamespacedConfigMap({ name, namespace: 'default' });
      await api.replaceNamespacedConfigMap({ name, namespace: 'default', body: { ...cm, data: { v } } });
    } catch {
      await api.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name }, data: { v } },
      });
    }
  };

  test('an informer resumes after a server restart without re-listing', async () => {
    local = await startLocalApiServer();
    await put('a', '1');
    observed = await observe(local);
    const o = observed;
    await waitFor('the initial list', () => o.events.includes('add a 1') || undefined);
    await put('a', '2');
    await waitFor('the live update', () => o.events.includes('update a 2') || undefined);

    await local.restart();
    // Written before the informer has reconnected: it must get these from the watch's replay.
    await put('a', '3');
    await put('b', '1');
    await core().deleteNamespacedConfigMap({ name: 'b', namespace: 'default' });
    await waitFor('the changes made across the restart', () => o.events.includes('delete b') || undefined);
    await put('a', '4');
    await waitFor('a live change after the restart', () => o.events.includes('update a 4') || undefined);

    assert.ok(o.errors.length >= 1, 'the informer noticed the restart');
    assert.equal(o.lists(), 1, 'no second list');
    assert.deepEqual(o.events, ['add a 1', 'update a 2', 'update a 3', 'add b 1', 'delete b', 'update a 4']);
    assert.deepEqual(
      o.informer.list('default').map((cm) => [cm.metadata!.name, cm.data!.v]),
      [['a', '4']],
    );
  });

  test('a watch older than compaction gets 410 and the informer re-lists', async () => {
    local = await startLocalApiServer({ retainRevisions: 5 });
    await put('keep', '1');
    await put('drop', '1');
    observed = await observe(local);
    const o = observed;
    await waitFor('the initial list', () => o.events.length >= 2 || undefined);
    assert.equal(o.lists(), 1);
    const staleVersion = o.informer.latestResourceVersion();

    // The informer is away while history it would need is compacted.
    await o.pause();
    await core().deleteNamespacedConfigMap({ name: 'drop', namespace: 'default' });
    for (let i = 2; i <= 12; i++) await put('keep', String(i));
    await put('new', '1');
    local.server.store.compact();
    assert.ok(local.server.store.compactedRevision() > Number(staleVersion));

    await o.resume();
    await waitFor('the re-list', () => (o.lists() >= 2 && o.events.includes('add new 1')) || undefined);
    assert.equal(o.lists(), 2);
    // The re-list reconciled the cache: the deleted object was reported gone, the others current.
    assert.ok(o.events.includes('delete drop'), o.events.join(', '));
    assert.ok(o.events.includes('update keep 12'), o.events.join(', '));
    assert.deepEqual(
      o.informer
        .list('default')
        .map((cm) => [cm.metadata!.name, cm.data!.v])
        .sort(),
      [
        ['keep', '12'],
        ['new', '1'],
      ],
    );
    assert.ok(Number(o.informer.latestResourceVersion()) > Number(staleVersion));
    // And it keeps watching from the new list.
    await put('keep', '13');
    await waitFor('a live change after the re-list', () => o.events.includes('update keep 13') || undefined);
    assert.equal(o.lists(), 2);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { EventRecorder } from '../../src/kube/event-recorder.ts';
import type { KubeClient } from '../../src/kube/kube-client.ts';
import { adminKubeClient, type LocalApiServer, startLocalApiServer } from '../support/local-apiserver.ts';

interface EventObject {
  reason: string;
  message: string;
  type: string;
  count: number;
  involvedObject: { kind: string; name: string; uid?: string };
  source: { component: string };
}

describe('event recorder', () => {
  let local: LocalApiServer;
  let client: KubeClient;
  before(async () => {
    local = await startLocalApiServer();
    client = adminKubeClient(local);
  });
  after(async () => {
    client?.close();
    await local?.stop();
  });

  test('records Events about an object; repeats bump the count of one Event', async () => {
    const recorder = new EventRecorder(client, { component: 'nodeherd-controller', instance: 'test-1' });
    const node = { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'uid-1' };
    recorder.normal(node, 'UpdateStarted', 'applying p-2');
    recorder.normal(node, 'UpdateStarted', 'applying p-2');
    recorder.warning(node, 'UpdateFailed', 'p-2: probe failed');
    await recorder.flush();
    recorder.normal(node, 'UpdateStarted', 'applying p-2');
    await recorder.flush();
    const list = await client.list<never>('/api/v1/namespaces/default/events', {
      fieldSelector: 'involvedObject.name=n1',
    });
    const events = (list.items as unknown as EventObject[])
      .map((e) => [e.reason, e.type, e.count, e.message])
      .sort();
    // Two sent at the same moment may both be created; the later repeat always aggregates.
    const started = events.filter((e) => e[0] === 'UpdateStarted');
    assert.equal(
      started.reduce((n, e) => n + (e[2] as number), 0),
      3,
    );
    assert.ok(started.length <= 2);
    assert.deepEqual(
      events.find((e) => e[0] === 'UpdateFailed'),
      ['UpdateFailed', 'Warning', 1, 'p-2: probe failed'],
    );
    const one = list.items[0] as unknown as EventObject;
    assert.equal(one.involvedObject.kind, 'Node');
    assert.equal(one.involvedObject.uid, 'uid-1');
    assert.equal(one.source.component, 'nodeherd-controller');
    assert.equal(recorder.stats.failed, 0);
  });

  test('a flood drops the oldest unsent events and says so in one log line per ten seconds', async () => {
    const warnings: [Record<string, unknown> | string, string | undefined][] = [];
    const logger = {
      warn: (fields: Record<string, unknown> | string, message?: string) => warnings.push([fields, message]),
      debug: () => {},
      info: () => {},
      error: () => {},
    };
    let now = 1_000_000;
    const recorder = new EventRecorder(client, {
      component: 'nodeherd-controller',
      concurrency: 1,
      maxPending: 2,
      logger: logger as never,
      now: () => now,
    });
    const node = { apiVersion: 'v1', kind: 'Node', name: 'flooded' };
    for (let i = 0; i < 10; i++) recorder.normal(node, 'Flood', `event ${i}`);
    now += 10_000;
    recorder.normal(node, 'Flood', 'event 10');
    await recorder.flush();
    // One in flight and two pending at most: of the first ten, seven were dropped, then one more.
    assert.equal(recorder.stats.dropped, 8);
    assert.deepEqual(
      warnings.map(([fields, message]) => [(fields as { dropped: number }).dropped, message]),
      [
        [1, 'event backlog full: dropped the oldest unsent events'],
        [7, 'event backlog full: dropped the oldest unsent events'],
      ],
    );
    assert.equal(recorder.stats.created, 3);
  });
});

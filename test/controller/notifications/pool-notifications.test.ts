// PoolNotifications' node events (a blocked drain, a reboot) on real parts: the embedded API server,
// real informers on pools and Secrets, and a real local HTTP receiver as the webhook. Each event goes
// to every named pool that has a webhook, with the pool's name, the node and the time; a pool without
// webhooks gets nothing; a drain blocked for the same reason is told once; an inactive replica tells
// nothing.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { NodeConfigPool } from '../../../src/api/types.ts';
import { PATHS } from '../../../src/controller/api-paths.ts';
import { PoolNotifications } from '../../../src/controller/notifications/pool-notifications.ts';
import type { RolloutEvent } from '../../../src/controller/notifications/rollout-events.ts';
import { WEBHOOK_LABEL } from '../../../src/controller/notifications/webhook-config.ts';
import { EventRecorder } from '../../../src/kube/event-recorder.ts';
import { Informer } from '../../../src/kube/informer.ts';
import type { Secret } from '../../../src/kube/types.ts';
import { ClusterHarness, eventually } from '../../support/cluster-harness.ts';
import { WebhookReceiver } from './receiver.ts';

const NOW = Date.parse('2026-01-02T03:04:05.000Z');

describe('PoolNotifications: node events', () => {
  let h: ClusterHarness;
  let receiver: WebhookReceiver;
  let pools: Informer<NodeConfigPool>;
  let secrets: Informer<Secret>;
  let notifications: PoolNotifications;
  let active = true;

  const delivered = () => receiver.received.map((r) => r.body as RolloutEvent & { source: string });

  before(async () => {
    receiver = await new WebhookReceiver().start();
    h = await ClusterHarness.start();
    await h.admin.create('/api/v1/namespaces/nodeherd/secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'ops', namespace: 'nodeherd', labels: { [WEBHOOK_LABEL]: 'true' } },
      stringData: { url: `${receiver.url}/hooks/ops`, format: 'json' },
    });
    const selector = { nodeSelector: { matchLabels: { pool: 'x' } }, configSelector: { matchLabels: {} } };
    await h.createPool('told-a', { ...selector, notifications: { webhooks: ['ops'] } });
    await h.createPool('told-b', { ...selector, notifications: { webhooks: ['ops'] } });
    await h.createPool('silent', selector);
    pools = new Informer<NodeConfigPool>(h.admin, { path: PATHS.nodeConfigPools });
    secrets = new Informer<Secret>(h.admin, { path: PATHS.secrets });
    pools.start();
    secrets.start();
    await Promise.all([pools.waitForSync(), secrets.waitForSync()]);
    notifications = new PoolNotifications({
      pools,
      secret: (namespace, name) => secrets.get(name, namespace),
      recorder: new EventRecorder(h.admin, { component: 'pool-notifications-test' }),
      active: () => active,
      now: () => NOW,
      // One delivery at a time: the receiver sees them in the order they were sent.
      notifier: { concurrency: 1 },
    });
  });
  after(async () => {
    await notifications?.stop();
    await pools?.stop();
    await secrets?.stop();
    await h?.stop();
    await receiver?.stop();
  });

  test('a reboot is told to each pool with a webhook, as the event says it', async () => {
    notifications.reboot('node-1', ['told-a', 'silent', 'told-b'], 'rev-7');
    const events = await eventually('both reboots told', async () =>
      delivered().filter((e) => e.kind === 'Reboot').length === 2 ? delivered() : undefined,
    );
    const reboots = events.filter((e) => e.kind === 'Reboot');
    assert.deepEqual(
      reboots.map((e) => e.pool),
      ['told-a', 'told-b'],
    );
    assert.deepEqual(reboots[0], {
      source: 'nodeherd',
      kind: 'Reboot',
      pool: 'told-a',
      revision: 'rev-7',
      message: 'node-1 reboots to apply rev-7',
      nodes: ['node-1'],
      time: '2026-01-02T03:04:05.000Z',
    });
    // The body's fields in the order receivers see them.
    assert.deepEqual(Object.keys(reboots[1]!), [
      'source',
      'kind',
      'pool',
      'revision',
      'message',
      'nodes',
      'time',
    ]);
  });

  test('a blocked drain is told once per reason, again after it cleared; not by an inactive replica', async () => {
    const blocked = () => delivered().filter((e) => e.kind === 'DrainBlocked');
    notifications.drainBlocked('node-2', ['silent', 'told-a'], 'evicting default/web-1: budget');
    notifications.drainBlocked('node-2', ['silent', 'told-a'], 'evicting default/web-1: budget');
    await eventually('drain blocked told', async () => (blocked().length === 1 ? true : undefined));
    assert.deepEqual(blocked()[0], {
      source: 'nodeherd',
      kind: 'DrainBlocked',
      pool: 'told-a',
      message: 'draining node-2 is blocked: evicting default/web-1: budget',
      nodes: ['node-2'],
      time: '2026-01-02T03:04:05.000Z',
    });
    assert.deepEqual(Object.keys(blocked()[0]!), ['source', 'kind', 'pool', 'message', 'nodes', 'time']);

    active = false;
    notifications.drainBlocked('node-3', ['told-a'], 'another reason');
    notifications.reboot('node-3', ['told-a'], 'rev-8');
    active = true;
    notifications.drainBlocked('node-2', ['told-a'], undefined);
    notifications.drainBlocked('node-2', ['told-b'], 'evicting default/web-1: budget');
    await eventually('told again after it cleared', async () => (blocked().length === 2 ? true : undefined));
    assert.equal(blocked()[1]?.pool, 'told-b');
    // Nothing of node-3's while inactive (its sends would have been queued before node-2's second).
    assert.ok(delivered().every((e) => !e.nodes?.includes('node-3')));
  });
});

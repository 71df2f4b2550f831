// Notifications end to end: the embedded API server, simulated nodes, the rollout controller, and a
// real local HTTP receiver as the webhook an administrator configured (a labelled Secret in nodeherd's
// namespace) that fails its first two requests. A pool's rollout tells it started, batch done and
// complete, and a batch done when a change rolls one node at a time; a drain held by a PodDisruptionBudget tells which budget and which pods (as the pool's
// status and the node's Event do); the drain's deadline then fails the rollout, which pauses. A
// webhook the pool names that is not a labelled Secret gets nothing and is a Warning on the pool.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RolloutEvent } from '../../../src/controller/notifications/rollout-events.ts';
import { WEBHOOK_LABEL } from '../../../src/controller/notifications/webhook-config.ts';
import {
  ClusterHarness,
  condition,
  drainingConfig,
  eventually,
  rollingUpdate,
} from '../../support/cluster-harness.ts';
import { disruptionBudget, runningPod } from '../../support/workloads.ts';
import { WebhookReceiver } from './receiver.ts';

describe('notifications', () => {
  let h: ClusterHarness;
  let receiver: WebhookReceiver;

  async function secret(name: string, data: Record<string, string>, labelled: boolean): Promise<void> {
    await h.admin.create('/api/v1/namespaces/nodeherd/secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: 'nodeherd', ...(labelled ? { labels: { [WEBHOOK_LABEL]: 'true' } } : {}) },
      stringData: data,
    });
  }

  /** What the webhook accepted (2xx), as generic JSON events. */
  const delivered = () =>
    receiver.received.filter((r) => r.status === 200).map((r) => r.body as RolloutEvent & { source: string });

  before(async () => {
    receiver = await new WebhookReceiver([503, 503]).start();
    h = await ClusterHarness.start();
    await h.startController({ notifier: { backoff: { initialMs: 100, maxMs: 500 } } });
  });
  after(async () => {
    await h?.stop();
    await receiver?.stop();
  });

  test('started, batch done, complete; a drain held by a budget; failed and paused', async () => {
    await secret('ops', { url: `${receiver.url}/hooks/T01/s3cret`, format: 'json' }, true);
    await secret('plain', { url: `${receiver.url}/elsewhere` }, false);
    await h.startNodes('notify', 2, { zones: ['zone-a', 'zone-b'] });
    await h.labelledPool('notify', 'notify-kubelet', drainingConfig('one'), {
      notifications: { webhooks: ['ops', 'plain'] },
      updateStrategy: rollingUpdate({ progressDeadlineSeconds: 8 }),
    });
    const first = await eventually('first rollout complete, and told', async () => {
      const p = await h.getPool('notify');
      return condition(p, 'Complete')?.status === 'True' &&
        delivered().some((e) => e.kind === 'RolloutComplete')
        ? p
        : undefined;
    });
    const revision = first.status?.targetRevision;
    // The receiver refused the first two requests; they were retried and arrived.
    assert.deepEqual(
      receiver.received.slice(0, 2).map((r) => r.status),
      [503, 503],
    );
    const kinds = delivered().map((e) => e.kind);
    for (const kind of ['RolloutStarted', 'RolloutComplete'])
      assert.ok(kinds.includes(kind as never), kinds.join());
    const started = delivered().find((e) => e.kind === 'RolloutStarted')!;
    assert.equal(started.source, 'nodeherd');
    assert.equal(started.pool, 'notify');
    assert.equal(started.revision, revision);
    // Only the labelled Secret's URL got requests; the other is a Warning naming the Secret.
    assert.ok(receiver.received.every((r) => r.path === '/hooks/T01/s3cret'));
    const warnings = (await h.events('NodeConfigPool', 'notify')).filter(
      (e) => e.reason === 'NotificationWebhookInvalid',
    );
    assert.match(warnings[0]?.message ?? '', /Secret nodeherd\/plain\) is not labelled/);
    assert.doesNotMatch(warnings[0]?.message ?? '', /elsewhere/);

    // A change rolled one node at a time: the first node done is a batch done, short of complete.
    await h.applyConfig('notify-kubelet', drainingConfig('two'), { pool: 'notify' });
    const second = await eventually('second rollout complete, and told', async () => {
      const p = await h.getPool('notify');
      return p.status?.targetRevision !== revision &&
        condition(p, 'Complete')?.status === 'True' &&
        delivered().some((e) => e.kind === 'RolloutComplete' && e.revision === p.status?.targetRevision)
        ? p
        : undefined;
    });
    const batch = delivered().find(
      (e) => e.kind === 'BatchDone' && e.revision === second.status?.targetRevision,
    );
    assert.match(batch?.message ?? '', /^1 of 2 nodes on notify-/);

    // Two pods a budget keeps both of: the drain of notify-0 is blocked, and everyone is told which.
    await runningPod(h.admin, 'web-1', 'notify-0', { labels: { app: 'web' } });
    await runningPod(h.admin, 'web-2', 'notify-0', { labels: { app: 'web' } });
    await disruptionBudget(h.admin, 'web', 2);
    await h.applyConfig('notify-kubelet', drainingConfig('three'), { pool: 'notify' });
    const blocked = await eventually('drain blocked, told', async () =>
      delivered().find((e) => e.kind === 'DrainBlocked'),
    );
    assert.deepEqual(blocked.nodes, ['notify-0']);
    assert.match(
      blocked.message,
      /^draining notify-0 is blocked: evicting default\/web-1, default\/web-2: PodDisruptionBudget default\/web: The disruption budget web needs 2 healthy pods/,
    );
    // The notification and the pool's status are separate writes: the status may follow a moment later.
    await eventually('the pool says which budget blocks', async () => {
      const message = condition(await h.getPool('notify'), 'Progressing')?.message ?? '';
      return /notify-0.*evicting default\/web-1, default\/web-2: PodDisruptionBudget default\/web/.test(
        message,
      )
        ? message
        : undefined;
    });
    const nodeEvents = await h.events('Node', 'notify-0');
    assert.match(
      nodeEvents.find((e) => e.reason === 'DrainBlocked')?.message ?? '',
      /PodDisruptionBudget default\/web/,
    );

    // The drain's deadline passes: the rollout fails with the node's reason, and the pool pauses.
    const failed = await eventually(
      'failed, told',
      async () => delivered().find((e) => e.kind === 'RolloutFailed'),
      40_000,
    );
    assert.notEqual(failed.revision, second.status?.targetRevision);
    assert.match(failed.message, /notify-0 \(drain did not finish within 8s: evicting default\/web-1/);
    const paused = await eventually('paused, told', async () => delivered().find((e) => e.kind === 'Paused'));
    assert.match(paused.message, /^paused \(FailurePolicy\)/);
    // Told once, not at every retry of the evictions.
    assert.equal(delivered().filter((e) => e.kind === 'DrainBlocked').length, 1);
  });
});

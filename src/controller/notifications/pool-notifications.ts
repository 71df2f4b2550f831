// Notifications of pools' rollout events: the pool informer's updates read for transitions
// (rollout-events.ts), and blocked drains as the drainer reports them, each sent to the webhooks the
// pool names (spec.notifications.webhooks) through the Notifier's bounded queue. Only updates seen
// while this replica runs its workers count (the leader's, after its caches synced): the initial list
// and another replica's view tell nothing new. A webhook the pool names but that is not there, or not
// a webhook, is a Warning Event on the pool (its message names the Secret, never a URL).

import type { NodeConfigPool } from '../../api/types.ts';
import type { EventRecorder } from '../../kube/event-recorder.ts';
import type { Informer } from '../../kube/informer.ts';
import type { Secret } from '../../kube/types.ts';
import { poolSubject } from '../controller-context.ts';
import { Notifier, type NotifierOptions } from './notifier.ts';
import { type RolloutEvent, rolloutEvents } from './rollout-events.ts';
import { webhookTarget } from './webhook-config.ts';

export interface PoolNotificationsOptions {
  pools: Informer<NodeConfigPool>;
  secret(namespace: string, name: string): Secret | undefined;
  recorder: EventRecorder;
  /** This replica acts (runs its workers with synced caches). */
  active(): boolean;
  now(): number;
  notifier?: NotifierOptions;
}

export class PoolNotifications {
  readonly notifier: Notifier;
  private readonly options: PoolNotificationsOptions;
  /** The last blocked reason told per node, so a drain that stays blocked is told once. */
  private readonly blockedTold = new Map<string, string>();

  constructor(options: PoolNotificationsOptions) {
    this.options = options;
    this.notifier = new Notifier(options.notifier);
    options.pools.on((type, pool, old) => {
      if (type !== 'update' || !old || !this.options.active()) return;
      if (!pool.spec.notifications?.webhooks?.length) return;
      for (const event of rolloutEvents(old, pool, this.options.now())) this.send(pool, event);
    });
  }

  /** A node's drain is blocked (reason: the refused eviction, with its PDB), or no longer (undefined). */
  drainBlocked(node: string, pools: readonly string[], reason: string | undefined): void {
    if (reason === undefined) {
      this.blockedTold.delete(node);
      return;
    }
    if (this.blockedTold.get(node) === reason || !this.options.active()) return;
    this.blockedTold.set(node, reason);
    this.sendNodeEvent(node, pools, (pool) => ({
      kind: 'DrainBlocked',
      ...(pool.status?.targetRevision ? { revision: pool.status.targetRevision } : {}),
      message: `draining ${node} is blocked: ${reason}`,
    }));
  }

  /** A node of these pools reboots (its update's disruption is a reboot). */
  reboot(node: string, pools: readonly string[], revision: string): void {
    if (!this.options.active()) return;
    this.sendNodeEvent(node, pools, () => ({
      kind: 'Reboot',
      revision,
      message: `${node} reboots to apply ${revision}`,
    }));
  }

  stop(): Promise<void> {
    return this.notifier.stop();
  }

  /** A node's event, to each of its pools that names a webhook (with the pool, the node and the time). */
  private sendNodeEvent(
    node: string,
    pools: readonly string[],
    event: (pool: NodeConfigPool) => Omit<RolloutEvent, 'pool' | 'nodes' | 'time'>,
  ): void {
    for (const name of pools) {
      const pool = this.options.pools.get(name);
      if (!pool?.spec.notifications?.webhooks?.length) continue;
      // Fields in the order the JSON body has always had them: kind, pool, revision, message, nodes, time.
      const { kind, ...rest } = event(pool);
      this.send(pool, {
        kind,
        pool: name,
        ...rest,
        nodes: [node],
        time: new Date(this.options.now()).toISOString(),
      });
    }
  }

  private send(pool: NodeConfigPool, event: RolloutEvent): void {
    for (const name of pool.spec.notifications?.webhooks ?? []) {
      const found = webhookTarget(name, this.options.secret);
      if (!found.ok) {
        this.options.recorder.warning(poolSubject(pool), 'NotificationWebhookInvalid', found.message);
        continue;
      }
      this.notifier.notify(found.target, event);
    }
  }
}

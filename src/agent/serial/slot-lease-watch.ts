// Follows the slot Leases of one Serial pool (label selector SERIAL_POOL_LABEL=pool in namespace
// SERIAL_LEASE_NAMESPACE) through a CollectionWatch: one list, then one long-lived watch with
// bookmarks, resumed from the last resourceVersion. A waiting agent learns that a slot was released
// the moment it happens, without polling. Runs only while the agent has a Serial gate.

import { SERIAL_LEASE_NAMESPACE, SERIAL_POOL_LABEL } from '../../api/node-protocol.ts';
import { resourcePath } from '../../kube/light/api-paths.ts';
import { CollectionWatch } from '../../kube/light/collection-watch.ts';
import type { LightKubeClient } from '../../kube/light/light-kube-client.ts';
import type { KubeObject } from '../../kube/light/types.ts';
import type { Logger } from '../logger.ts';

export const LEASES_PATH = resourcePath({
  apiVersion: 'coordination.k8s.io/v1',
  resource: 'leases',
  namespace: SERIAL_LEASE_NAMESPACE,
});

export interface SlotLeaseWatchOptions {
  client: LightKubeClient;
  pool: string;
  logger: Logger;
  /** A Lease was added, changed or deleted (deleted: object with only its name). */
  onLease(lease: KubeObject, deleted: boolean): void;
  /** The first list is in (every Lease already reported through onLease). */
  onSynced(): void;
  /** How often the server sends bookmarks (drops a silent connection after 3 missed). */
  bookmarkIntervalMs?: number;
}

export class SlotLeaseWatch {
  private readonly options: SlotLeaseWatchOptions;
  private readonly watch: CollectionWatch;

  constructor(options: SlotLeaseWatchOptions) {
    this.options = options;
    const interval = options.bookmarkIntervalMs ?? 60_000;
    this.watch = new CollectionWatch(options.client, {
      collectionPath: LEASES_PATH,
      labelSelector: this.labelSelector,
      onObject: (lease, deleted) => options.onLease(lease, deleted),
      onSynced: () => options.onSynced(),
      onError: (error, during) => options.logger.warn({ error }, `serial slot lease ${during}`),
      inactivityTimeoutMs: 3 * interval,
      watchTimeoutSeconds: [1800, 3600],
      backoff: { initialMs: 500, maxMs: 30_000 },
    });
  }

  get labelSelector(): string {
    return `${SERIAL_POOL_LABEL}=${this.options.pool}`;
  }

  start(): this {
    this.watch.start();
    return this;
  }

  stop(): Promise<void> {
    return this.watch.stop();
  }
}

// Follows the slot Leases of one Serial pool (label selector SERIAL_POOL_LABEL=pool in namespace
// SERIAL_LEASE_NAMESPACE) with one list and then one long-lived watch with bookmarks, resumed from
// the last resourceVersion when it ends and re-listed only on 410. A waiting agent learns that a slot
// was released the moment it happens, without polling. Runs only while the agent has a Serial gate.

import { SERIAL_LEASE_NAMESPACE, SERIAL_POOL_LABEL } from '../../api/node-protocol.ts';
import { resourcePath } from '../../kube/light/api-paths.ts';
import { Backoff } from '../../kube/light/backoff.ts';
import type { WatchHandle } from '../../kube/light/kube-watch.ts';
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
  private readonly backoff = new Backoff({ initialMs: 500, maxMs: 30_000 });
  private stopped = false;
  private running: Promise<void> | undefined;
  private watch: WatchHandle | undefined;
  private wake: (() => void) | undefined;
  private resourceVersion: string | undefined;

  constructor(options: SlotLeaseWatchOptions) {
    this.options = options;
  }

  get labelSelector(): string {
    return `${SERIAL_POOL_LABEL}=${this.options.pool}`;
  }

  start(): this {
    this.running ??= this.run();
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.watch?.abort();
    this.wake?.();
    await this.running;
  }

  private async run(): Promise<void> {
    let needList = true;
    const known = new Set<string>();
    while (!this.stopped) {
      if (needList) {
        try {
          const list = await this.options.client.list(LEASES_PATH, { labelSelector: this.labelSelector });
          if (this.stopped) return;
          this.resourceVersion = list.metadata.resourceVersion;
          const names = new Set(list.items.map((l) => l.metadata?.name ?? ''));
          for (const name of known) if (!names.has(name)) this.options.onLease({ metadata: { name } }, true);
          known.clear();
          for (const lease of list.items) {
            known.add(lease.metadata?.name ?? '');
            this.options.onLease(lease, false);
          }
          needList = false;
          this.options.onSynced();
        } catch (error) {
          this.options.logger.warn('serial slot lease list', { error: error as Error });
          await this.sleep(this.backoff.next());
          continue;
        }
      }
      const started = performance.now();
      const interval = this.options.bookmarkIntervalMs ?? 60_000;
      this.watch = this.options.client.watch(
        LEASES_PATH,
        {
          labelSelector: this.labelSelector,
          resourceVersion: this.resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds: Math.round(1800 + Math.random() * 1800),
        },
        {
          onEvent: (event) => {
            const name = event.object.metadata?.name ?? '';
            if (event.type === 'DELETED') known.delete(name);
            else known.add(name);
            this.options.onLease(event.object, event.type === 'DELETED');
          },
        },
        { inactivityTimeoutMs: 3 * interval },
      );
      const end = await this.watch.done;
      this.watch = undefined;
      if (end.resourceVersion !== undefined) this.resourceVersion = end.resourceVersion;
      if (this.stopped) return;
      const healthy = end.events > 0 || performance.now() - started >= 1000;
      if (end.reason === 'closed' && healthy) {
        this.backoff.reset();
        continue;
      }
      if (end.reason === 'expired') needList = true;
      if (end.error) this.options.logger.warn('serial slot lease watch', { error: end.error });
      await this.sleep(this.backoff.next());
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
  }
}

// Leader election on a coordination.k8s.io Lease, like client-go's leaderelection: the leader renews
// the Lease every retry period; a candidate takes it over once the holder has not renewed for the lease
// duration, judged by the candidate's own clock from when it last saw the record change (so clock skew
// between machines does not matter). A leader that cannot renew within the renew deadline steps down
// before the lease can expire for others; stopping releases the Lease so a standby takes over at once.

import { microTime } from '../util/kube-time.ts';
import type { Logger } from '../util/logger.ts';
import type { KubeClient } from './kube-client.ts';
import { isKubeError } from './kube-error.ts';
import type { Lease } from './types.ts';
import { WakeableSleep } from './wakeable-sleep.ts';

export interface LeaderElectionOptions {
  client: KubeClient;
  namespace: string;
  name: string;
  /** Unique per process, e.g. `${hostname}_${random}`. */
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  onStartedLeading(): void | Promise<void>;
  onStoppedLeading(): void | Promise<void>;
  onNewLeader?(identity: string): void;
  logger?: Logger;
  now?: () => number;
}

export class LeaderElector {
  private readonly options: LeaderElectionOptions;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly now: () => number;
  private observed: { record: string; at: number } | undefined;
  private lastHolder: string | undefined;
  private leading = false;
  private stopped = false;
  private running: Promise<void> | undefined;
  private readonly sleeper = new WakeableSleep();
  private releaseOnStop = true;

  constructor(options: LeaderElectionOptions) {
    this.options = options;
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    this.now = options.now ?? Date.now;
    if (!(this.leaseDurationMs > this.renewDeadlineMs && this.renewDeadlineMs > this.retryPeriodMs)) {
      throw new RangeError('leader election needs leaseDuration > renewDeadline > retryPeriod');
    }
  }

  get isLeader(): boolean {
    return this.leading;
  }

  get identity(): string {
    return this.options.identity;
  }

  private get path(): string {
    return `/apis/coordination.k8s.io/v1/namespaces/${this.options.namespace}/leases/${this.options.name}`;
  }

  start(): void {
    if (this.running) return;
    this.stopped = false;
    this.running = this.run();
  }

  /**
   * Stops campaigning; a leader steps down and releases the Lease (release: false leaves it to expire,
   * as a crashed process would).
   */
  async stop(options: { release?: boolean } = {}): Promise<void> {
    this.releaseOnStop = options.release ?? true;
    this.stopped = true;
    this.sleeper.wake();
    await this.running;
    this.running = undefined;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      // Candidate: try until we hold the lease.
      if (!(await this.tryAcquireOrRenew())) {
        await this.sleeper.sleep(this.jittered(this.retryPeriodMs));
        continue;
      }
      this.leading = true;
      this.options.logger?.info({ identity: this.options.identity }, 'became leader');
      await this.options.onStartedLeading();
      // Leader: renew until we cannot for renewDeadline, or until stopped.
      let lastRenew = this.now();
      while (!this.stopped) {
        await this.sleeper.sleep(this.retryPeriodMs);
        if (this.stopped) break;
        if (await this.tryAcquireOrRenew()) {
          lastRenew = this.now();
        } else if (
          this.now() - lastRenew >= this.renewDeadlineMs ||
          this.lastHolder !== this.options.identity
        ) {
          break;
        }
      }
      this.leading = false;
      if (this.stopped && this.releaseOnStop) await this.release();
      this.options.logger?.warn({ identity: this.options.identity }, 'stopped leading');
      await this.options.onStoppedLeading();
    }
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const { client, identity } = this.options;
    const now = this.now();
    const spec = {
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    let lease: Lease;
    try {
      lease = await client.get<Lease>(this.path);
    } catch (err) {
      if (!isKubeError(err, 404)) {
        this.options.logger?.debug({ err }, 'could not read the leader lease');
        return false;
      }
      try {
        await client.create(`/apis/coordination.k8s.io/v1/namespaces/${this.options.namespace}/leases`, {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: this.options.name, namespace: this.options.namespace },
          spec,
        });
        this.noteHolder(identity);
        return true;
      } catch {
        return false;
      }
    }
    const holder = lease.spec?.holderIdentity ?? '';
    const record = `${holder}|${lease.spec?.renewTime ?? ''}|${lease.metadata.resourceVersion ?? ''}`;
    if (!this.observed || this.observed.record !== record) this.observed = { record, at: now };
    this.noteHolder(holder);
    const durationMs = (lease.spec?.leaseDurationSeconds ?? 0) * 1000;
    if (holder && holder !== identity && this.observed.at + durationMs > now) return false;
    const ours = holder === identity;
    try {
      const updated = await client.replace<Lease>(this.path, {
        ...lease,
        spec: {
          ...spec,
          acquireTime: ours && lease.spec?.acquireTime ? lease.spec.acquireTime : spec.acquireTime,
          leaseTransitions: (lease.spec?.leaseTransitions ?? 0) + (ours ? 0 : 1),
        },
      });
      this.observed = {
        record: `${identity}|${updated.spec?.renewTime ?? ''}|${updated.metadata.resourceVersion ?? ''}`,
        at: now,
      };
      this.noteHolder(identity);
      return true;
    } catch (err) {
      this.options.logger?.debug({ err }, 'could not take or renew the leader lease');
      return false;
    }
  }

  private async release(): Promise<void> {
    try {
      const lease = await this.options.client.get<Lease>(this.path);
      if (lease.spec?.holderIdentity !== this.options.identity) return;
      await this.options.client.replace(this.path, {
        ...lease,
        spec: {
          ...lease.spec,
          holderIdentity: '',
          leaseDurationSeconds: 1,
          renewTime: microTime(this.now()),
        },
      });
    } catch (err) {
      this.options.logger?.warn({ err }, 'could not release the leader lease');
    }
  }

  private noteHolder(holder: string): void {
    if (holder === this.lastHolder) return;
    this.lastHolder = holder;
    if (holder) this.options.onNewLeader?.(holder);
  }

  private jittered(ms: number): number {
    return ms * (1 + Math.random() * 0.2);
  }
}

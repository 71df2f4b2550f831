// Records core/v1 Events about objects (Nodes, NodeConfigPools), so `kubectl describe` and `kubectl get events`
// show every step. Repeats of the same event (same object, type, reason and message) within ten minutes
// bump the count of the existing Event instead of creating another, as kubelet's recorder does.
// Recording never blocks the caller: events go out in the background, a few at a time, and a flood is
// bounded (the oldest unsent events are dropped, with a log line at most every ten seconds: a rollout
// of thousands of nodes would otherwise log a line per event, faster than a slow log pipe drains).

import { randomBytes } from 'node:crypto';
import type { Logger } from '../util/logger.ts';
import { truncateUtf8 } from '../util/truncate-utf8.ts';
import { kubeTime } from './conditions.ts';
import type { KubeClient } from './kube-client.ts';
import { isKubeError } from './kube-error.ts';

export interface EventSubject {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  uid?: string;
}

export type EventType = 'Normal' | 'Warning';

export interface EventRecorderOptions {
  component: string;
  /** Identifies this process among replicas (pod name, host name). */
  instance?: string;
  /** Namespace for Events about cluster-scoped objects (kube uses default). */
  namespace?: string;
  concurrency?: number;
  maxPending?: number;
  logger?: Logger;
  now?: () => number;
}

interface Pending {
  subject: EventSubject;
  type: EventType;
  reason: string;
  message: string;
  at: number;
}

interface Sent {
  name: string;
  namespace: string;
  count: number;
  firstTimestamp: string;
  at: number;
}

const AGGREGATE_MS = 10 * 60_000;
const MAX_REMEMBERED = 4096;
/** In UTF-8 bytes: the API server refuses Event messages over 1,024 (kube's NoteLengthLimit). */
const MAX_MESSAGE = 1024;
const DROP_LOG_INTERVAL_MS = 10_000;

export class EventRecorder {
  private readonly client: KubeClient;
  private readonly options: EventRecorderOptions;
  private readonly now: () => number;
  private readonly pending: Pending[] = [];
  private readonly sent = new Map<string, Sent>();
  private active = 0;
  private idleWaiters: (() => void)[] = [];
  /** Drops not yet logged, and when the last drop was logged. */
  private unloggedDrops = 0;
  private dropLoggedAt = Number.NEGATIVE_INFINITY;
  /** Events created, counts bumped, and failures, for tests and metrics. */
  readonly stats = { created: 0, aggregated: 0, failed: 0, dropped: 0 };

  constructor(client: KubeClient, options: EventRecorderOptions) {
    this.client = client;
    this.options = options;
    this.now = options.now ?? Date.now;
  }

  normal(subject: EventSubject, reason: string, message: string): void {
    this.record(subject, 'Normal', reason, message);
  }

  warning(subject: EventSubject, reason: string, message: string): void {
    this.record(subject, 'Warning', reason, message);
  }

  record(subject: EventSubject, type: EventType, reason: string, message: string): void {
    const max = this.options.maxPending ?? 1000;
    if (this.pending.length >= max) {
      this.pending.shift();
      this.stats.dropped++;
      this.unloggedDrops++;
      const now = this.now();
      if (now - this.dropLoggedAt >= DROP_LOG_INTERVAL_MS) {
        this.options.logger?.warn(
          { dropped: this.unloggedDrops, max },
          'event backlog full: dropped the oldest unsent events',
        );
        this.unloggedDrops = 0;
        this.dropLoggedAt = now;
      }
    }
    this.pending.push({ subject, type, reason, message: truncateUtf8(message, MAX_MESSAGE), at: this.now() });
    this.pump();
  }

  /** Resolves when every recorded event has been sent (or has failed). */
  flush(): Promise<void> {
    if (this.active === 0 && this.pending.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    const concurrency = this.options.concurrency ?? 4;
    while (this.active < concurrency && this.pending.length > 0) {
      const event = this.pending.shift()!;
      this.active++;
      this.send(event)
        .catch((err) => {
          this.stats.failed++;
          this.options.logger?.warn({ err, reason: event.reason }, 'could not record event');
        })
        .finally(() => {
          this.active--;
          this.pump();
          if (this.active === 0 && this.pending.length === 0) {
            for (const resolve of this.idleWaiters.splice(0)) resolve();
          }
        });
    }
  }

  private async send(event: Pending): Promise<void> {
    const { subject } = event;
    const key = [
      subject.kind,
      subject.namespace ?? '',
      subject.name,
      subject.uid ?? '',
      event.type,
      event.reason,
      event.message,
    ].join('\u0000');
    const namespace = subject.namespace ?? this.options.namespace ?? 'default';
    const previous = this.sent.get(key);
    const timestamp = kubeTime(event.at);
    if (previous && event.at - previous.at < AGGREGATE_MS) {
      try {
        await this.client.patch(`/api/v1/namespaces/${previous.namespace}/events/${previous.name}`, {
          count: previous.count + 1,
          lastTimestamp: timestamp,
        });
        previous.count++;
        previous.at = event.at;
        this.stats.aggregated++;
        return;
      } catch (err) {
        if (!isKubeError(err, 404)) throw err;
      }
    }
    const name = `${subject.name}.${event.at.toString(16)}${randomBytes(3).toString('hex')}`;
    await this.client.create(`/api/v1/namespaces/${namespace}/events`, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      involvedObject: {
        apiVersion: subject.apiVersion,
        kind: subject.kind,
        name: subject.name,
        ...(subject.namespace ? { namespace: subject.namespace } : {}),
        ...(subject.uid ? { uid: subject.uid } : {}),
      },
      type: event.type,
      reason: event.reason,
      message: event.message,
      source: { component: this.options.component },
      reportingComponent: this.options.component,
      reportingInstance: this.options.instance ?? '',
      firstTimestamp: timestamp,
      lastTimestamp: timestamp,
      count: 1,
    });
    this.stats.created++;
    if (this.sent.size >= MAX_REMEMBERED) this.sent.delete(this.sent.keys().next().value!);
    this.sent.set(key, { name, namespace, count: 1, firstTimestamp: timestamp, at: event.at });
  }
}

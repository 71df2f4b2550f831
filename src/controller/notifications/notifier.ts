// Sends rollout events to webhooks without ever holding up a rollout: notify() only queues (a bounded
// queue: when full, the oldest unsent notification is dropped and counted), a few deliveries run at
// once in the background, and a delivery that fails with a network error, a timeout, 408, 429 or a
// 5xx is retried with exponential backoff up to a number of attempts; any other 4xx is final (the
// webhook refuses the body; retrying would not change that). The target is resolved when the
// notification is queued (the Secret then); logs name the webhook and the URL's origin, never its
// path, query or credentials (a Slack or Teams URL is a secret in itself).

import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Logger } from 'pino';
import { Backoff } from '../../kube/backoff.ts';
import { webhookBody } from './formats.ts';
import type { RolloutEvent } from './rollout-events.ts';
import { shownUrl, type WebhookTarget } from './webhook-config.ts';

export interface NotifierOptions {
  logger?: Logger;
  /** Notifications waiting at most (default 1000); beyond, the oldest is dropped. */
  maxPending?: number;
  /** Deliveries at once (default 2). */
  concurrency?: number;
  /** Attempts per notification (default 6). */
  attempts?: number;
  /** Retry delays (default 1 s doubling to 60 s). */
  backoff?: { initialMs: number; maxMs: number };
  /** One request's time limit (default 10 s). */
  timeoutMs?: number;
}

interface Pending {
  target: WebhookTarget;
  event: RolloutEvent;
}

export class WebhookError extends Error {
  readonly retry: boolean;
  constructor(message: string, retry: boolean) {
    super(message);
    this.retry = retry;
  }
}

export class Notifier {
  private readonly options: NotifierOptions;
  private readonly pending: Pending[] = [];
  private active = 0;
  private stopped = false;
  private readonly sleeping = new Set<() => void>();
  private idleWaiters: (() => void)[] = [];
  readonly stats = { delivered: 0, failed: 0, retried: 0, dropped: 0 };

  constructor(options: NotifierOptions = {}) {
    this.options = options;
  }

  /** Queues the event for the webhook; returns at once. */
  notify(target: WebhookTarget, event: RolloutEvent): void {
    if (this.stopped) return;
    if (this.pending.length >= (this.options.maxPending ?? 1000)) {
      const dropped = this.pending.shift()!;
      this.stats.dropped++;
      this.options.logger?.warn(
        { webhook: dropped.target.name, kind: dropped.event.kind, pool: dropped.event.pool },
        'notification queue full: dropped the oldest notification',
      );
    }
    this.pending.push({ target, event });
    this.pump();
  }

  /** Resolves once nothing is queued or being delivered. */
  idle(): Promise<void> {
    if (this.active === 0 && this.pending.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops retrying and drops what is queued; deliveries in flight end by their timeout. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stats.dropped += this.pending.length;
    this.pending.length = 0;
    for (const wake of this.sleeping) wake();
    await this.idle();
  }

  private pump(): void {
    while (!this.stopped && this.active < (this.options.concurrency ?? 2) && this.pending.length > 0) {
      const next = this.pending.shift()!;
      this.active++;
      this.deliver(next).finally(() => {
        this.active--;
        this.pump();
        if (this.active === 0 && this.pending.length === 0)
          for (const resolve of this.idleWaiters.splice(0)) resolve();
      });
    }
  }

  private async deliver({ target, event }: Pending): Promise<void> {
    const attempts = this.options.attempts ?? 6;
    const backoff = new Backoff({
      initialMs: this.options.backoff?.initialMs ?? 1000,
      maxMs: this.options.backoff?.maxMs ?? 60_000,
    });
    const where = { webhook: target.name, origin: shownUrl(target.url), kind: event.kind, pool: event.pool };
    for (let attempt = 1; ; attempt++) {
      try {
        await this.post(target, webhookBody(target.format, event));
        this.stats.delivered++;
        this.options.logger?.debug({ ...where, attempt }, 'notification delivered');
        return;
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        const retry = !(err instanceof WebhookError) || err.retry;
        if (!retry || attempt >= attempts || this.stopped) {
          this.stats.failed++;
          this.options.logger?.warn({ ...where, attempt, error: message }, 'notification not delivered');
          return;
        }
        this.stats.retried++;
        this.options.logger?.info({ ...where, attempt, error: message }, 'notification failed; retrying');
        await this.sleep(backoff.next());
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.sleeping.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.sleeping.add(wake);
    });
  }

  /** One POST; errors say what happened without the URL's path (only its origin). */
  private post(target: WebhookTarget, body: unknown): Promise<void> {
    const payload = JSON.stringify(body);
    const https = target.url.protocol === 'https:';
    const request = https ? httpsRequest : httpRequest;
    const timeoutMs = this.options.timeoutMs ?? 10_000;
    const origin = shownUrl(target.url);
    return new Promise((resolve, reject) => {
      const req = request(
        target.url,
        {
          method: 'POST',
          headers: {
            ...target.headers,
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(payload)),
            'user-agent': 'nodeherd-controller',
          },
          ...(https && target.caPem ? { ca: target.caPem } : {}),
          signal: AbortSignal.timeout(timeoutMs),
        },
        (res: IncomingMessage) => {
          res.resume();
          res.on('error', () => {});
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) resolve();
            else
              reject(
                new WebhookError(
                  `${origin}: HTTP ${status}`,
                  status === 408 || status === 429 || status >= 500,
                ),
              );
          });
        },
      );
      req.on('error', (err: Error & { code?: string }) => {
        if (err.name === 'AbortError' || err.name === 'TimeoutError')
          reject(new WebhookError(`${origin}: no answer within ${timeoutMs} ms`, true));
        else reject(new WebhookError(`${origin}: ${err.code ?? err.name}`, true));
      });
      req.end(payload);
    });
  }
}

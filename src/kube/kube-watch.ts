// One watch request: GET ...?watch=true, read as newline-delimited JSON events until the server ends
// the stream, the connection breaks, the caller aborts, or nothing arrives for too long. BOOKMARK
// events only advance the resourceVersion to resume from; an ERROR event ends the watch (410 Expired
// tells the caller to re-list). It never retries: resuming is the informer's job.

import type { IncomingMessage } from 'node:http';
import type { HttpsTransport } from './https-transport.ts';
import { InactivityWatchdog } from './inactivity-watchdog.ts';
import { isKubeStatus, type KubeError, kubeErrorFromResponse, kubeErrorFromStatus } from './kube-error.ts';
import { withQuery } from './light/api-paths.ts';
import type { KubeObject, WatchEvent } from './light/types.ts';
import { NdjsonLineSplitter } from './ndjson-line-splitter.ts';
import type { RequestCounters } from './request-counters.ts';

/** What a watch needs of a connection: a streamed GET, and scrubbing credentials from error text. */
export type WatchTransport = Pick<HttpsTransport, 'stream' | 'redact'>;

export interface WatchQuery {
  fieldSelector?: string;
  labelSelector?: string;
  /** Start after this version; unset or "0" starts with synthetic ADDED events for every object. */
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  /** Server-side limit of the watch's life. */
  timeoutSeconds?: number;
}

export interface WatchHandlers<T = KubeObject> {
  /** Called for ADDED, MODIFIED and DELETED; a throw ends the watch as failed. */
  onEvent(event: WatchEvent<T>): void;
}

export interface WatchOptions {
  /** Ends the watch as `inactive` when no bytes arrive for this long (0 or unset: never). */
  inactivityTimeoutMs?: number;
  maxLineBytes?: number;
  /** Clock for the inactivity check (tests). */
  now?: () => number;
}

/**
 * closed: the server ended the stream (e.g. timeoutSeconds); resume from resourceVersion.
 * expired: 410, the resourceVersion is too old; re-list.
 * inactive: nothing arrived within the inactivity timeout; the connection was dropped.
 * aborted: the caller called abort().
 * failed: transport error, non-200 answer, ERROR event, malformed stream, or a throwing handler.
 */
export type WatchEndReason = 'closed' | 'expired' | 'inactive' | 'aborted' | 'failed';

export interface WatchEnd {
  reason: WatchEndReason;
  /** Last resourceVersion seen in an event or bookmark (or the one the watch started from). */
  resourceVersion: string | undefined;
  /** Events received, bookmarks included. */
  events: number;
  error?: Error;
}

export interface WatchHandle {
  readonly done: Promise<WatchEnd>;
  readonly resourceVersion: string | undefined;
  abort(): void;
}

/** An error body of a refused watch is read up to this size. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

export class KubeWatch<T = KubeObject> implements WatchHandle {
  readonly done: Promise<WatchEnd>;
  private readonly handlers: WatchHandlers<T>;
  private readonly counters: RequestCounters;
  private readonly transport: WatchTransport;
  private readonly splitter: NdjsonLineSplitter;
  private readonly watchdog: InactivityWatchdog | undefined;
  private readonly abortRequest: () => void;
  private resolveDone!: (end: WatchEnd) => void;
  private lastResourceVersion: string | undefined;
  private events = 0;
  private finished = false;

  constructor(
    transport: WatchTransport,
    counters: RequestCounters,
    path: string,
    query: WatchQuery,
    handlers: WatchHandlers<T>,
    options: WatchOptions = {},
  ) {
    this.transport = transport;
    this.counters = counters;
    this.handlers = handlers;
    this.lastResourceVersion = query.resourceVersion;
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
    this.splitter = new NdjsonLineSplitter((line) => this.handleLine(line), options.maxLineBytes);
    const timeout = options.inactivityTimeoutMs ?? 0;
    this.watchdog =
      timeout > 0 ? new InactivityWatchdog(timeout, () => this.finish('inactive'), options.now) : undefined;

    counters.request('watch');
    const { abort, response } = transport.stream(
      withQuery(path, {
        watch: true,
        fieldSelector: query.fieldSelector,
        labelSelector: query.labelSelector,
        resourceVersion: query.resourceVersion,
        allowWatchBookmarks: query.allowWatchBookmarks ? true : undefined,
        timeoutSeconds: query.timeoutSeconds,
      }),
    );
    this.abortRequest = abort;
    this.watchdog?.start();
    response.then(
      (res) => this.onResponse(res),
      (err: Error) => this.finish('failed', err),
    );
  }

  get resourceVersion(): string | undefined {
    return this.lastResourceVersion;
  }

  abort(): void {
    this.finish('aborted');
  }

  private onResponse(res: IncomingMessage): void {
    if (this.finished) {
      res.destroy();
      return;
    }
    this.watchdog?.touch();
    res.on('error', (err) => this.finish('failed', err));
    if (res.statusCode !== 200) {
      this.readRefusal(res);
      return;
    }
    res.on('data', (chunk: Buffer) => {
      this.watchdog?.touch();
      this.counters.bytes(chunk.length);
      try {
        this.splitter.push(chunk);
      } catch (err) {
        this.finish('failed', err as Error);
      }
    });
    res.on('end', () => {
      const rest = this.splitter.end();
      // A clean end never cuts a line: the server writes whole events.
      if (rest !== undefined && rest.trim() !== '') {
        this.finish('failed', new Error('watch stream ended in the middle of an event'));
        return;
      }
      this.finish('closed');
    });
  }

  private readRefusal(res: IncomingMessage): void {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      this.counters.bytes(chunk.length);
      if (size < MAX_ERROR_BODY_BYTES) chunks.push(chunk);
      size += chunk.length;
    });
    res.on('end', () => {
      const text = this.transport.redact(Buffer.concat(chunks).toString('utf8'));
      const error = kubeErrorFromResponse(res.statusCode ?? 0, text);
      this.finish(error.status === 410 ? 'expired' : 'failed', error);
    });
  }

  private handleLine(line: string): void {
    if (this.finished) return;
    let event: { type?: unknown; object?: unknown };
    try {
      event = JSON.parse(line);
    } catch {
      this.finish('failed', new Error(`watch stream sent a line that is not JSON (${line.length} chars)`));
      return;
    }
    const type = event?.type;
    const object = event?.object as KubeObject | undefined;
    if (typeof type !== 'string' || typeof object !== 'object' || object === null) {
      this.finish('failed', new Error('watch stream sent an event without type or object'));
      return;
    }
    this.events++;
    this.counters.watchEvent(type, typeof object.kind === 'string' ? object.kind : undefined);
    if (type === 'ERROR') {
      const error: KubeError = isKubeStatus(object)
        ? kubeErrorFromStatus(object)
        : kubeErrorFromStatus({ code: 500, message: 'watch ERROR event without a Status' });
      this.finish(error.status === 410 ? 'expired' : 'failed', error);
      return;
    }
    const resourceVersion = object.metadata?.resourceVersion;
    if (type === 'BOOKMARK') {
      if (typeof resourceVersion === 'string' && resourceVersion !== '')
        this.lastResourceVersion = resourceVersion;
      return;
    }
    if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') {
      this.finish('failed', new Error(`watch stream sent an unknown event type ${JSON.stringify(type)}`));
      return;
    }
    if (typeof resourceVersion === 'string' && resourceVersion !== '')
      this.lastResourceVersion = resourceVersion;
    try {
      this.handlers.onEvent({ type, object: object as T });
    } catch (err) {
      this.finish('failed', err as Error);
    }
  }

  private finish(reason: WatchEndReason, error?: Error): void {
    if (this.finished) return;
    this.finished = true;
    this.watchdog?.stop();
    // After a clean end the socket goes back to the pool; in every other case it is torn down.
    if (reason !== 'closed') this.abortRequest();
    this.resolveDone({
      reason,
      resourceVersion: this.lastResourceVersion,
      events: this.events,
      ...(error !== undefined ? { error } : {}),
    });
  }
}

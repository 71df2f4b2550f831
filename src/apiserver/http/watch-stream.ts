// One open watch over HTTP: newline-delimited JSON events, periodic BOOKMARKs so idle watches stay
// alive and resume cheaply, a server-side timeout, and termination of consumers that fall too far behind.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResourceDefinition } from '../registry/resource-definition.ts';
import { apiVersionOf } from '../registry/resource-definition.ts';
import type { KubeObject, StoreEvent } from '../storage/types.ts';
import type { WatchDelivery, Watcher, WatchHub } from '../watch/watch-hub.ts';
import { eventForWatcher } from '../watch/watch-hub.ts';

/** A consumer that lets this much output pile up unread is cut off, like kube's slow-watcher limit. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

export interface WatchStreamOptions {
  def: ResourceDefinition;
  prefix: string;
  name?: string;
  filter?: (object: KubeObject) => boolean;
  bookmarks: boolean;
  bookmarkIntervalMs: number;
  timeoutMs: number;
  /** Turns an object into what the client asked to see (e.g. a one-row Table). */
  transform?: (object: KubeObject) => KubeObject;
  currentRevision: () => number;
}

export class WatchStream {
  private readonly res: ServerResponse;
  private readonly options: WatchStreamOptions;
  private unregister: (() => void) | undefined;
  private timers: NodeJS.Timeout[] = [];
  private closed = false;
  private lastRevision = 0;
  readonly watcher: Watcher;

  constructor(req: IncomingMessage, res: ServerResponse, options: WatchStreamOptions) {
    this.res = res;
    this.options = options;
    this.watcher = {
      prefix: options.prefix,
      ...(options.name !== undefined ? { name: options.name } : {}),
      ...(options.filter ? { filter: options.filter } : {}),
      deliver: (event) => this.send(event),
    };
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-cache, private',
      'Transfer-Encoding': 'chunked',
    });
    res.flushHeaders();
    req.on('close', () => this.close());
    res.on('error', () => this.close());
  }

  /** Starts live delivery. Call in the same tick as replaying history so no event falls in between. */
  attach(hub: WatchHub): void {
    if (this.closed) return;
    this.unregister = hub.register(this.watcher);
    const timeout = setTimeout(() => this.close(), this.options.timeoutMs);
    timeout.unref();
    this.timers.push(timeout);
    if (this.options.bookmarks) {
      const interval = setInterval(() => this.bookmark(), this.options.bookmarkIntervalMs);
      interval.unref();
      this.timers.push(interval);
    }
  }

  /** Replays stored events (a resume from a resourceVersion) through this watch's filter. */
  replay(events: StoreEvent[]): void {
    for (const event of events) {
      const delivery = eventForWatcher(this.watcher, event);
      if (delivery) this.send(delivery);
    }
  }

  send(event: WatchDelivery): void {
    if (this.closed) return;
    const object = this.options.transform ? this.options.transform(event.object) : event.object;
    this.lastRevision = Math.max(this.lastRevision, event.revision);
    this.write(`{"type":"${event.type}","object":${JSON.stringify(object)}}\n`);
  }

  /** A BOOKMARK carries only the resourceVersion the client may resume from. */
  bookmark(annotations?: Record<string, string>): void {
    if (this.closed) return;
    const def = this.options.def;
    const revision = Math.max(this.options.currentRevision(), this.lastRevision);
    const metadata: KubeObject = { resourceVersion: String(revision) };
    if (annotations) metadata.annotations = annotations;
    const object = { kind: def.kind, apiVersion: apiVersionOf(def), metadata };
    this.write(`{"type":"BOOKMARK","object":${JSON.stringify(object)}}\n`);
  }

  sendError(status: KubeObject): void {
    this.write(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`);
    this.close();
  }

  private write(line: string): void {
    if (this.closed) return;
    if (this.res.writableLength > MAX_BUFFERED_BYTES) {
      this.close();
      return;
    }
    this.res.write(line);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unregister?.();
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
    if (!this.res.writableEnded) this.res.end();
  }

  get isClosed(): boolean {
    return this.closed;
  }
}

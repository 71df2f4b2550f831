// One open watch over HTTP: newline-delimited JSON events, periodic BOOKMARKs so idle watches stay
// alive and resume cheaply, a server-side timeout, and termination of consumers that fall too far behind.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResourceDefinition } from '../registry/resource-definition.ts';
import { apiVersionOf } from '../registry/resource-definition.ts';
import { jsonText } from '../storage/stored-json.ts';
import type { DurabilityGate, KubeObject, StoreEvent } from '../storage/types.ts';
import { type WatchBudget, watchBudgetOf } from '../watch/watch-budget.ts';
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
  /**
   * With a group-committing store: every line waits until the state it reflects (everything written when
   * it was produced) is durable, so a watcher never sees a write a crash could still take back.
   */
  gate?: DurabilityGate;
}

interface HeldLine {
  line: string;
  /** The revision that must be durable before the line may go out. */
  revision: number;
}

export class WatchStream {
  private readonly res: ServerResponse;
  private readonly options: WatchStreamOptions;
  private unregister: (() => void) | undefined;
  private timers: NodeJS.Timeout[] = [];
  private closed = false;
  private lastRevision = 0;
  private held: HeldLine[] = [];
  private waiting = false;
  private endAfterRelease = false;
  /** What this watch's identity's watches may leave unread together (priority and fairness). */
  private readonly budget: WatchBudget | undefined;
  readonly watcher: Watcher;

  constructor(req: IncomingMessage, res: ServerResponse, options: WatchStreamOptions) {
    this.res = res;
    this.options = options;
    this.budget = watchBudgetOf(req);
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
    // Every watcher of an event gets the store's one frozen object: its text is made once (jsonText).
    this.write(`{"type":"${event.type}","object":${jsonText(object)}}\n`);
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
    if (this.held.length > 0) this.endAfterRelease = true;
    else this.close();
  }

  private write(line: string): void {
    if (this.closed) return;
    const gate = this.options.gate;
    if (gate !== undefined) {
      const revision = gate.currentRevision();
      // Once something is held, later lines queue behind it to keep the order.
      if (this.held.length > 0 || revision > gate.durableRevision()) {
        this.held.push({ line, revision });
        this.awaitDurability(gate);
        return;
      }
    }
    this.emit(line);
  }

  private awaitDurability(gate: DurabilityGate): void {
    if (this.waiting) return;
    this.waiting = true;
    gate.whenDurable(this.held[this.held.length - 1]!.revision).then(
      () => {
        this.waiting = false;
        this.release(gate);
      },
      // The store failed: what is held may never have been committed. The client re-lists.
      () => {
        this.waiting = false;
        this.close();
      },
    );
  }

  private release(gate: DurabilityGate): void {
    const durable = gate.durableRevision();
    while (this.held.length > 0 && this.held[0]!.revision <= durable && !this.closed) {
      this.emit(this.held.shift()!.line);
    }
    if (this.closed) return;
    if (this.held.length > 0) this.awaitDurability(gate);
    else if (this.endAfterRelease) this.close();
  }

  private emit(line: string): void {
    if (this.closed) return;
    if (this.res.writableLength > MAX_BUFFERED_BYTES || this.budget?.exceeded) {
      this.close();
      return;
    }
    this.res.write(line);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.held = [];
    this.unregister?.();
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
    if (!this.res.writableEnded) this.res.end();
  }

  get isClosed(): boolean {
    return this.closed;
  }
}

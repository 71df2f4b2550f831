// Counts what the client asks of the API server, so benchmarks and the agent's metrics can show
// how many requests an idle node costs (the agent's budget is a handful per idle hour).

export type KubeVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete';

export const KUBE_VERBS: readonly KubeVerb[] = [
  'get',
  'list',
  'watch',
  'create',
  'update',
  'patch',
  'delete',
];

export interface RequestCountsSnapshot {
  /** Requests sent, all verbs. */
  requests: number;
  byVerb: Record<KubeVerb, number>;
  /** Responses received, by HTTP status code (a watch counts when its headers arrive). */
  byStatus: Record<number, number>;
  /** New TLS connections; the rest of the requests reused a kept-alive one. */
  connections: number;
  /** Requests sent again after a kept-alive connection turned out to be closed (not in `requests`). */
  retries: number;
  /** Requests that got no HTTP response at all (refused, reset, timed out). */
  transportFailures: number;
  /** Watch events delivered, by type (BOOKMARK included). */
  watchEvents: Record<string, number>;
  /** Watch events delivered other than BOOKMARK, by the kind of their object (what a watch fan-out costs). */
  watchEventsByKind: Record<string, number>;
  /** Response body bytes received. */
  bytesReceived: number;
}

export class RequestCounters {
  private requests = 0;
  private readonly byVerb = Object.fromEntries(KUBE_VERBS.map((verb) => [verb, 0])) as Record<
    KubeVerb,
    number
  >;
  private readonly byStatus = new Map<number, number>();
  private connections = 0;
  private retries = 0;
  private transportFailures = 0;
  private readonly watchEvents = new Map<string, number>();
  private readonly watchEventsByKind = new Map<string, number>();
  private bytesReceived = 0;

  request(verb: KubeVerb): void {
    this.requests++;
    this.byVerb[verb]++;
  }

  response(status: number): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
  }

  connection(): void {
    this.connections++;
  }

  retry(): void {
    this.retries++;
  }

  transportFailure(): void {
    this.transportFailures++;
  }

  watchEvent(type: string, kind?: string): void {
    this.watchEvents.set(type, (this.watchEvents.get(type) ?? 0) + 1);
    if (type !== 'BOOKMARK' && kind !== undefined)
      this.watchEventsByKind.set(kind, (this.watchEventsByKind.get(kind) ?? 0) + 1);
  }

  bytes(count: number): void {
    this.bytesReceived += count;
  }

  snapshot(): RequestCountsSnapshot {
    return {
      requests: this.requests,
      byVerb: { ...this.byVerb },
      byStatus: Object.fromEntries(this.byStatus),
      connections: this.connections,
      retries: this.retries,
      transportFailures: this.transportFailures,
      watchEvents: Object.fromEntries(this.watchEvents),
      watchEventsByKind: Object.fromEntries(this.watchEventsByKind),
      bytesReceived: this.bytesReceived,
    };
  }
}

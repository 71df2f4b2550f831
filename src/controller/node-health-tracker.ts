// What the controller has seen of each node's health since the node's current update started: when it
// turned healthy (for the minReadySeconds soak, more precise than second-granular condition times) and
// whether it was ever healthy on that update (so turning unhealthy afterwards is a regression, not a
// slow start). Memory only: after a restart the controller falls back to condition times and deadlines.

interface Seen {
  /** `${desired revision}@${update started}`: a new update starts a new record. */
  update: string;
  healthy: boolean;
  since?: number;
  wasHealthy: boolean;
}

export interface HealthObservation {
  /** When the node turned healthy while watched (undefined: unhealthy, or healthy since before we looked). */
  since?: number;
  wasHealthy: boolean;
}

export class NodeHealthTracker {
  private readonly seen = new Map<string, Seen>();
  /** What the agent reported when a node was given a revision: until it changes, it is about the old one. */
  private readonly reportAtStart = new Map<string, { revision: string; report: string }>();

  /** Records the agent's report (state, current revision, message) when the node is given `revision`. */
  noteStart(node: string, revision: string, report: string): void {
    this.reportAtStart.set(node, { revision, report });
  }

  /**
   * Whether the agent still shows the report it had before it was given `revision` (it has not reacted
   * yet): a Failed left over from the previous revision must not count against the new one. Any change
   * of state, current revision or message ends it, so a report that merely comes back to the same state
   * (Done, Applying, Done) is never mistaken for an old one.
   */
  isStale(node: string, revision: string | undefined, report: string): boolean {
    const atStart = this.reportAtStart.get(node);
    if (!atStart) return false;
    if (atStart.revision === revision && atStart.report === report) return true;
    this.reportAtStart.delete(node);
    return false;
  }

  /** When each node's object last changed (informer event time). */
  private readonly changedAt = new Map<string, number>();

  /** Since when each node has been Ready or not, by our clock; undefined while we do not know. */
  private readonly readiness = new Map<string, { ready: boolean; since: number | undefined }>();

  /**
   * A node object changed (called from the informer, at the moment the change arrives). `live`: the
   * change happened while we watched (not the initial list), so a first sight is the node's birth.
   */
  noteChange(node: string, at: number, ready: boolean, live: boolean): void {
    this.changedAt.set(node, at);
    const known = this.readiness.get(node);
    if (!known) this.readiness.set(node, { ready, since: live ? at : undefined });
    else if (known.ready !== ready) this.readiness.set(node, { ready, since: at });
  }

  /**
   * Since when the node has had its current readiness, by our own clock (so a skewed node clock does
   * not matter); undefined when it was so before we started watching.
   */
  readinessSince(node: string): number | undefined {
    return this.readiness.get(node)?.since;
  }

  /**
   * Records what a reconcile sees. A node found healthy that was not before turned healthy at its
   * latest change (when `sinceChange`: nothing but the Node decides its health) or, at the latest, now.
   */
  observe(
    node: string,
    update: string,
    healthy: boolean,
    now: number,
    sinceChange = false,
  ): HealthObservation {
    const turnedAt = sinceChange ? Math.min(now, this.changedAt.get(node) ?? now) : now;
    const previous = this.seen.get(node);
    let entry: Seen;
    if (!previous) {
      entry = { update, healthy, wasHealthy: healthy };
    } else if (previous.update !== update) {
      entry = { update, healthy, wasHealthy: healthy, ...(healthy ? { since: turnedAt } : {}) };
    } else if (!previous.healthy && healthy) {
      entry = { update, healthy, since: turnedAt, wasHealthy: true };
    } else if (previous.healthy && !healthy) {
      entry = { update, healthy, wasHealthy: true };
    } else {
      entry = previous;
    }
    this.seen.set(node, entry);
    return {
      ...(entry.healthy && entry.since !== undefined ? { since: entry.since } : {}),
      wasHealthy: entry.wasHealthy,
    };
  }

  /**
   * The record observe() keeps of the node: an opaque value that stays the same object until observe()
   * or forget() changes what it holds (observe() with the update and health it holds changes nothing).
   * A caller that kept what observe() answered may reuse it while this is the same.
   */
  lastSeen(node: string): unknown {
    return this.seen.get(node);
  }

  /** When this tracker (this controller process) first looked at any node. */
  private watchingSince: number | undefined;
  /** For updates started before we watched: when we first saw each node's update in flight. */
  private readonly firstSeenUpdate = new Map<string, { started: number; at: number }>();

  /**
   * Where the node's progress deadline counts from: its update-started, or, for an update started
   * before this process was watching, the moment we first saw it. Time nobody watched (the controller,
   * or the whole system, down) is not the node's fault: after an outage longer than the deadline a
   * restarted controller must not fail every node that was mid-update.
   */
  deadlineFrom(node: string, started: number, now: number): number {
    this.watchingSince ??= now;
    if (started >= this.watchingSince) return started;
    const seen = this.firstSeenUpdate.get(node);
    if (seen?.started === started) return Math.max(started, seen.at);
    this.firstSeenUpdate.set(node, { started, at: now });
    return Math.max(started, now);
  }

  forget(node: string): void {
    this.firstSeenUpdate.delete(node);
    this.seen.delete(node);
    this.reportAtStart.delete(node);
    this.changedAt.delete(node);
    this.readiness.delete(node);
  }
}

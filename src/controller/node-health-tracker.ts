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
  /** The agent state a node showed when it was given a revision: until it changes, it is about the old one. */
  private readonly stateAtStart = new Map<string, { revision: string; state: string | undefined }>();

  /** Records the agent's state when the node is given `revision`. */
  noteStart(node: string, revision: string, state: string | undefined): void {
    this.stateAtStart.set(node, { revision, state });
  }

  /**
   * Whether the agent's state still is the one it had before it was given `revision` (it has not
   * reacted yet): a Failed left over from the previous revision must not count against the new one.
   */
  isStale(node: string, revision: string | undefined, state: string | undefined): boolean {
    const atStart = this.stateAtStart.get(node);
    if (!atStart) return false;
    if (atStart.revision === revision && atStart.state === state) return true;
    this.stateAtStart.delete(node);
    return false;
  }

  observe(node: string, update: string, healthy: boolean, now: number): HealthObservation {
    const previous = this.seen.get(node);
    let entry: Seen;
    if (!previous) {
      entry = { update, healthy, wasHealthy: healthy };
    } else if (previous.update !== update) {
      entry = { update, healthy, wasHealthy: healthy, ...(healthy ? { since: now } : {}) };
    } else if (!previous.healthy && healthy) {
      entry = { update, healthy, since: now, wasHealthy: true };
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

  forget(node: string): void {
    this.seen.delete(node);
    this.stateAtStart.delete(node);
  }
}

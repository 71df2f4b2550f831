// Whether the controller hands this pool's slots out, as this agent can tell: it saw the controller
// hand a slot of the pool over (a hand-over mark on a Lease it listed, watched or read: seen as it
// happens by this agent's clock, or at first sight the mark's time, capped) or its gate says when the
// controller gave it (handedOutAt: the controller that writes the gate hands the slots out), within a
// lease duration. While it is live the agents leave the slots to it; once it lapses they take turns
// by themselves. Judged per pool: a gate of another pool starts over.

import type { SerialGate } from '../../api/node-protocol.ts';
import type { Clock } from '../clock.ts';
import { slotIndex } from './slot-semaphore.ts';

export class ControllerLiveness {
  private readonly clock: Clock;
  /** The gate last asked about (the liveness a watch event changes is judged against it). */
  private gate: SerialGate | undefined;
  /** When (this agent's clock) it last saw the controller hand a slot of `gate.pool` over. */
  private seenAt: number | undefined;
  /** The gate's handedOutAt last seen, and when (this agent's clock, capped at its own time) it was given. */
  private given: { stamp: string; at: number } | undefined;

  constructor(clock: Clock) {
    this.clock = clock;
  }

  /** The agent asks about `gate`: the controller of another pool is not this one's. */
  ask(gate: SerialGate): void {
    if (this.gate?.pool !== gate.pool) this.seenAt = undefined;
    this.gate = gate;
  }

  /**
   * The gate says when the controller gave it (handedOutAt): that controller hands the pool's slots out,
   * so it counts as live from then, as a hand-over mark would. Taken at first sight, capped at this
   * agent's clock (a controller clock ahead does not make the gate look fresh for longer).
   */
  noteGateGiven(gate: SerialGate): void {
    if (gate.handedOutAt === undefined) {
      this.given = undefined;
      return;
    }
    if (this.given?.stamp !== gate.handedOutAt) {
      const at = Math.min(this.clock.now(), Date.parse(gate.handedOutAt));
      this.given = { stamp: gate.handedOutAt, at };
    }
    this.saw(this.given.at);
  }

  /** The controller wrote a holder into the Lease `name` at `at`: news if it is a slot of the pool asked about. */
  sawHandOver(name: string, at: number): void {
    if (this.gate !== undefined && slotIndex(this.gate.pool, name) !== undefined) this.saw(at);
  }

  /** Whether the controller handed a slot of the gate's pool over (or gave the gate) within a lease duration. */
  isLive(gate: SerialGate | undefined = this.gate): boolean {
    return (
      gate !== undefined &&
      this.gate?.pool === gate.pool &&
      this.seenAt !== undefined &&
      this.clock.now() - this.seenAt < gate.leaseDurationSeconds * 1000
    );
  }

  /** When the liveness lapses, with no newer hand-over seen. */
  lapsesAt(gate: SerialGate): number {
    return (this.seenAt ?? 0) + gate.leaseDurationSeconds * 1000;
  }

  /** Until when the gate counts as given lately by the controller (a lease duration from then), if it says. */
  givenUntil(gate: SerialGate): number | undefined {
    return this.given && this.given.at + gate.leaseDurationSeconds * 1000;
  }

  private saw(at: number): void {
    this.seenAt = Math.max(this.seenAt ?? at, at);
  }
}

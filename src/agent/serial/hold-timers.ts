// The two timers of a held slot: the next renewal (every leaseDuration/3 while the node applies,
// verifies or has failed), and the end of the grace for which a finished holder leaves its slot to a
// live controller to move on. Unref'd: they never keep the process up. Once closed (the agent stops)
// no renewal is scheduled any more: the slot stays the node's for the next agent to re-adopt.

import { OneShotTimer } from '../../util/one-shot-timer.ts';

export class HoldTimers {
  private readonly renewal = new OneShotTimer();
  private readonly graceEnd = new OneShotTimer();
  private closed = false;

  /** Runs `renew` in `ms` (instead of any renewal scheduled before). */
  renewIn(ms: number, renew: () => void): void {
    if (this.closed) this.renewal.cancel();
    else this.renewal.schedule(ms, renew);
  }

  stopRenewing(): void {
    this.renewal.cancel();
  }

  /** Runs `release` when the grace of `ms` ends. */
  releaseIn(ms: number, release: () => void): void {
    this.graceEnd.schedule(ms, release);
  }

  stopRelease(): void {
    this.graceEnd.cancel();
  }

  close(): void {
    this.closed = true;
    this.stopRenewing();
    this.stopRelease();
  }
}

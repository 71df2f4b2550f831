// The two timers of a held slot: the next renewal (every leaseDuration/3 while the node applies,
// verifies or has failed), and the end of the grace for which a finished holder leaves its slot to a
// live controller to move on. Unref'd: they never keep the process up. Once closed (the agent stops)
// no renewal is scheduled any more: the slot stays the node's for the next agent to re-adopt.

export class HoldTimers {
  private renewal: NodeJS.Timeout | undefined;
  private graceEnd: NodeJS.Timeout | undefined;
  private closed = false;

  /** Runs `renew` in `ms` (instead of any renewal scheduled before). */
  renewIn(ms: number, renew: () => void): void {
    this.stopRenewing();
    if (this.closed) return;
    this.renewal = setTimeout(() => {
      this.renewal = undefined;
      renew();
    }, ms);
    this.renewal.unref?.();
  }

  stopRenewing(): void {
    clearTimeout(this.renewal);
    this.renewal = undefined;
  }

  /** Runs `release` when the grace of `ms` ends. */
  releaseIn(ms: number, release: () => void): void {
    this.stopRelease();
    this.graceEnd = setTimeout(() => {
      this.graceEnd = undefined;
      release();
    }, ms);
    this.graceEnd.unref?.();
  }

  stopRelease(): void {
    clearTimeout(this.graceEnd);
    this.graceEnd = undefined;
  }

  close(): void {
    this.closed = true;
    this.stopRenewing();
    this.stopRelease();
  }
}

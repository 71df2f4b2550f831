// One pending timer that a new schedule replaces: scheduling again cancels what was scheduled before.
// Unref'd, so it never keeps the process up.

export class OneShotTimer {
  private timer: NodeJS.Timeout | undefined;

  /** Runs `fire` in `ms`, instead of anything scheduled before. */
  schedule(ms: number, fire: () => void): void {
    this.cancel();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      fire();
    }, ms);
    this.timer.unref?.();
  }

  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  get pending(): boolean {
    return this.timer !== undefined;
  }
}

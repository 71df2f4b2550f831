// The retry delay of a list/watch or lease loop: stop() wakes it, so a stopping loop exits at once
// instead of waiting out a backoff of up to half a minute.

export class WakeableSleep {
  private readonly unref: boolean;
  private pending: (() => void) | undefined;

  /** unref: the timer alone does not keep the process alive (for helpers of a larger process). */
  constructor(options: { unref?: boolean } = {}) {
    this.unref = options.unref ?? false;
  }

  /** Resolves after `ms`, or as soon as wake() is called. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending = undefined;
        resolve();
      }, ms);
      if (this.unref) timer.unref();
      this.pending = () => {
        clearTimeout(timer);
        this.pending = undefined;
        resolve();
      };
    });
  }

  /** Ends the current sleep, if there is one. */
  wake(): void {
    this.pending?.();
  }
}

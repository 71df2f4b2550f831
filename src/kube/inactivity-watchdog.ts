// Fires when nothing has happened for a while: a watch with bookmarks receives bytes at least every
// bookmark interval, so a long silence means the connection is dead even if TCP has not noticed
// (a half-open connection after a NAT or server loss). touch() only stores a timestamp, so a busy
// stream costs no timer churn; the single timer re-arms itself for the remaining time.

import { monotonicMs } from '../util/monotonic.ts';

export class InactivityWatchdog {
  private readonly timeoutMs: number;
  private readonly onIdle: () => void;
  private readonly now: () => number;
  private last = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(timeoutMs: number, onIdle: () => void, now: () => number = monotonicMs) {
    if (!(timeoutMs > 0)) throw new RangeError('inactivity timeout must be positive');
    this.timeoutMs = timeoutMs;
    this.onIdle = onIdle;
    this.now = now;
  }

  start(): void {
    this.last = this.now();
    this.arm(this.timeoutMs);
  }

  /** Records activity. */
  touch(): void {
    this.last = this.now();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(delayMs: number): void {
    this.timer = setTimeout(() => this.check(), delayMs);
  }

  private check(): void {
    this.timer = undefined;
    const idle = this.now() - this.last;
    if (idle >= this.timeoutMs) {
      this.onIdle();
      return;
    }
    this.arm(this.timeoutMs - idle);
  }
}

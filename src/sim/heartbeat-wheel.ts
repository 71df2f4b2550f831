// One timer for the periodic work of thousands of simulated nodes. A node joins the wheel once and
// is called every period, at a fixed phase: the period is cut into slots and each node sits in the
// least loaded slot, so N nodes renewing their Leases every 10 s send N/10 requests each second
// instead of bursts. One unref'd interval drives every slot, so the wheel costs one timer however
// many nodes it carries, and it never keeps the process alive on its own.

export type WheelTask = (now: number) => void;

export interface HeartbeatWheelOptions {
  /** How often each task runs. */
  periodMs: number;
  /** Granularity of the phases (default: period / 100, at least 10 ms). */
  slotMs?: number;
  /** Clock (tests). */
  now?: () => number;
}

/** What add() returns; pass it to remove(). */
export interface WheelMembership {
  readonly slot: number;
}

interface Member extends WheelMembership {
  readonly task: WheelTask;
}

export class HeartbeatWheel {
  readonly periodMs: number;
  readonly slotMs: number;
  private readonly slots: Set<Member>[];
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private origin = 0;
  /** Absolute index of the last slot processed. */
  private lastTick = -1;
  private cursor = 0;
  private members = 0;

  constructor(options: HeartbeatWheelOptions) {
    if (!(options.periodMs > 0)) throw new RangeError('wheel period must be positive');
    this.periodMs = options.periodMs;
    this.slotMs = Math.min(this.periodMs, options.slotMs ?? Math.max(10, Math.floor(this.periodMs / 100)));
    const count = Math.max(1, Math.round(this.periodMs / this.slotMs));
    this.slots = Array.from({ length: count }, () => new Set<Member>());
    this.now = options.now ?? (() => performance.now());
  }

  /** Tasks on the wheel. */
  get size(): number {
    return this.members;
  }

  /** Runs `task` once per period from now on, in the least loaded slot. */
  add(task: WheelTask): WheelMembership {
    let best = this.cursor;
    for (let i = 0; i < this.slots.length; i++) {
      const index = (this.cursor + i) % this.slots.length;
      if (this.slots[index]!.size < this.slots[best]!.size) best = index;
    }
    this.cursor = (best + 1) % this.slots.length;
    const member: Member = { slot: best, task };
    this.slots[best]!.add(member);
    this.members++;
    if (this.timer === undefined) this.startTimer();
    return member;
  }

  remove(membership: WheelMembership): void {
    if (!this.slots[membership.slot]?.delete(membership as Member)) return;
    this.members--;
    if (this.members === 0) this.stop();
  }

  /** Stops the timer; tasks stay registered and run again after the next add(). */
  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Runs the slots whose time has come; called by the timer, public for tests. */
  tick(): void {
    const now = this.now();
    const current = Math.floor((now - this.origin) / this.slotMs);
    // A blocked event loop skips no node: catch up, but never run a slot twice in one tick.
    const first = Math.max(this.lastTick + 1, current - this.slots.length + 1);
    for (let tick = first; tick <= current; tick++) {
      for (const member of this.slots[tick % this.slots.length]!) {
        try {
          member.task(now);
        } catch {
          // A task handles its own failures; one bad task must not starve the rest of its slot.
        }
      }
    }
    this.lastTick = Math.max(this.lastTick, current);
  }

  private startTimer(): void {
    const now = this.now();
    if (this.lastTick < 0) this.origin = now;
    // Slots that came round while the wheel was stopped are skipped, not run in a burst.
    this.lastTick = Math.floor((now - this.origin) / this.slotMs);
    this.timer = setInterval(() => this.tick(), this.slotMs);
    this.timer.unref();
  }
}

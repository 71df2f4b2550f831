// What the simulated backends share: every call is logged (tests and the simulator assert on the
// order of operations), takes a configurable time (a restart that takes 30 s is what makes
// rollouts interesting), and can be made to fail on purpose (a unit that never starts, a package
// mirror that is down once).

import { sleep } from '../../util/sleep.ts';

export interface SimulatedCall<Op extends string> {
  /** 1, 2, 3... in call order. */
  seq: number;
  op: Op;
  /** The unit, package or repository the call is about; absent for daemon-reload or update. */
  target?: string;
  startedAt: number;
  finishedAt?: number;
  /** undefined while the call runs. */
  ok?: boolean;
  error?: string;
}

export interface FailureInjection {
  /** How many calls fail before the rule is used up; default: every call. */
  times?: number;
  message?: string;
}

export interface SimulationTiming<Op extends string> {
  /** Milliseconds each operation takes. */
  durations?: Partial<Record<Op, number>>;
  /** Per-target overrides, e.g. { 'kubelet.service': { restart: 30_000 } }. */
  targetDurations?: Record<string, Partial<Record<Op, number>>>;
}

interface FailureRule<Op extends string> {
  op: Op;
  target: string | undefined;
  remaining: number;
  message: string;
}

export class InjectedFailureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InjectedFailureError';
  }
}

export class SimulationRecorder<Op extends string> {
  readonly calls: SimulatedCall<Op>[] = [];
  private readonly rules: FailureRule<Op>[] = [];
  private readonly durations: Map<Op, number>;
  private readonly targetDurations = new Map<string, Map<Op, number>>();

  constructor(timing: SimulationTiming<Op> = {}) {
    this.durations = new Map(Object.entries(timing.durations ?? {}) as [Op, number][]);
    for (const [target, durations] of Object.entries(timing.targetDurations ?? {})) {
      this.targetDurations.set(target, new Map(Object.entries(durations) as [Op, number][]));
    }
  }

  /** Makes `op` fail (for `target`, or for any target when it is undefined). */
  fail(op: Op, target: string | undefined, injection: FailureInjection = {}): void {
    const message = injection.message ?? `injected failure: ${op}${target ? ` ${target}` : ''}`;
    this.rules.push({ op, target, remaining: injection.times ?? Number.POSITIVE_INFINITY, message });
  }

  clearFailures(): void {
    this.rules.length = 0;
  }

  setDuration(op: Op, milliseconds: number, target?: string): void {
    if (target === undefined) {
      this.durations.set(op, milliseconds);
      return;
    }
    const forTarget = this.targetDurations.get(target) ?? new Map<Op, number>();
    forTarget.set(op, milliseconds);
    this.targetDurations.set(target, forTarget);
  }

  /** Calls of one operation (and target), for assertions like "restarted exactly once". */
  count(op: Op, target?: string): number {
    return this.calls.filter((call) => call.op === op && (target === undefined || call.target === target))
      .length;
  }

  /**
   * Logs the call, waits its duration, then either fails it (running `onFailure` first, so the
   * simulated state can reflect the failure) or runs `body`.
   */
  async run<T>(op: Op, target: string | undefined, body: () => T, onFailure?: () => void): Promise<T> {
    const call: SimulatedCall<Op> = { seq: this.calls.length + 1, op, startedAt: Date.now() };
    if (target !== undefined) call.target = target;
    this.calls.push(call);
    try {
      const duration = this.durationOf(op, target);
      if (duration > 0) await sleep(duration);
      const failure = this.takeFailure(op, target);
      if (failure !== undefined) {
        onFailure?.();
        throw new InjectedFailureError(failure);
      }
      const result = body();
      call.ok = true;
      return result;
    } catch (error) {
      call.ok = false;
      call.error = (error as Error).message;
      throw error;
    } finally {
      call.finishedAt = Date.now();
    }
  }

  /** How long `op` (on `target`) takes, as configured. */
  durationOf(op: Op, target: string | undefined): number {
    const forTarget = target === undefined ? undefined : this.targetDurations.get(target)?.get(op);
    return forTarget ?? this.durations.get(op) ?? 0;
  }

  private takeFailure(op: Op, target: string | undefined): string | undefined {
    const rule = this.rules.find(
      (r) => r.op === op && r.remaining > 0 && (r.target === undefined || r.target === target),
    );
    if (!rule) return undefined;
    rule.remaining -= 1;
    return rule.message;
  }
}

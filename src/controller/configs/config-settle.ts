// Waiting for a pool's NodeConfigs to settle before they are rendered (issue 33). `kubectl apply -f`
// of a file with several NodeConfigs writes them one request after another: rendering on the first
// event made a revision of a subset (the first object alone), which then rolled out. A pool's
// rendering input (its config selector and the resourceVersions of the NodeConfigs it selects) is
// rendered only after `quietMs` without a change to it, but at most `maxDelayMs` after the first change
// of a burst, so a stream of edits cannot hold rendering back for ever. Pure bookkeeping over the
// times the reconciler saw each input: the clock is the caller's.

export interface RenderSettleOptions {
  /** Render after this long without a change to a pool's NodeConfigs (ms). */
  quietMs: number;
  /** ... but at most this long after the first change of a burst (ms). */
  maxDelayMs: number;
}

/** 500 ms covers one `kubectl apply -f` of many objects on a loaded machine; 5 s bounds a burst. */
export const DEFAULT_RENDER_SETTLE: RenderSettleOptions = { quietMs: 500, maxDelayMs: 5000 };

/** The options, checked: each bad value throws naming it. */
export function renderSettleOptions(
  options: Partial<RenderSettleOptions> | undefined,
  names: { quietMs: string; maxDelayMs: string } = { quietMs: 'quietMs', maxDelayMs: 'maxDelayMs' },
): RenderSettleOptions {
  const out = { ...DEFAULT_RENDER_SETTLE, ...options };
  for (const key of ['quietMs', 'maxDelayMs'] as const) {
    const v = out[key];
    if (!Number.isFinite(v) || v < 0 || !Number.isInteger(v))
      throw new Error(`${names[key]}: must be a whole number of milliseconds ≥ 0, got ${String(v)}`);
  }
  if (out.maxDelayMs < out.quietMs)
    throw new Error(
      `${names.maxDelayMs}: must be at least ${names.quietMs} (${out.quietMs}), got ${out.maxDelayMs}`,
    );
  return out;
}

interface Burst {
  /** The input last seen. */
  input: string;
  /** When the burst began (first change not yet rendered), and the last change was seen. */
  first: number;
  last: number;
}

export type SettleVerdict =
  | { settled: true /** How long rendering waited for this input (0: not at all). */; waitedMs: number }
  | { settled: false /** Look again after this long. */; waitMs: number; message: string };

export class RenderSettle {
  readonly options: RenderSettleOptions;
  /** Per pool: the input rendered last, and a burst of changes since, if any. */
  private readonly rendered = new Map<string, string>();
  private readonly bursts = new Map<string, Burst>();

  constructor(options: RenderSettleOptions) {
    this.options = options;
  }

  /**
   * Whether the pool's input may be rendered now. `unchanged` says the input renders to what the pool
   * already targets (a controller restart, a resync): nothing to wait for.
   */
  check(pool: string, input: string, now: number, unchanged: boolean): SettleVerdict {
    const { quietMs, maxDelayMs } = this.options;
    if (this.rendered.get(pool) === input) {
      this.bursts.delete(pool);
      return { settled: true, waitedMs: 0 };
    }
    let burst = this.bursts.get(pool);
    if (!burst) {
      if (unchanged || (quietMs === 0 && maxDelayMs === 0)) return this.settle(pool, input, now, now);
      burst = { input, first: now, last: now };
      this.bursts.set(pool, burst);
    } else if (burst.input !== input) {
      burst.input = input;
      burst.last = now;
    }
    const due = Math.min(burst.last + quietMs, burst.first + maxDelayMs);
    if (now >= due) return this.settle(pool, input, now, burst.first);
    const quiet = Math.max(0, now - burst.last);
    return {
      settled: false,
      waitMs: due - now,
      message: `waiting for the NodeConfigs to settle: ${quiet} ms without a change of the ${quietMs} ms asked, rendering at the latest ${maxDelayMs} ms after the first change`,
    };
  }

  private settle(pool: string, input: string, now: number, since: number): SettleVerdict {
    this.rendered.set(pool, input);
    this.bursts.delete(pool);
    return { settled: true, waitedMs: now - since };
  }

  forget(pool: string): void {
    this.rendered.delete(pool);
    this.bursts.delete(pool);
  }
}

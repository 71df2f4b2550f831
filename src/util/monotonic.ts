// Milliseconds on a monotonic clock, for deadlines and durations (only differences mean anything).
// performance.now() would do, but the global `performance` is a lazy getter that loads perf_hooks
// and its timing modules: ~0.3 MB of RSS in the node agent, which needs none of them (issue 17).

export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

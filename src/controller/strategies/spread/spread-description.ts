// Spread as the CLI describes it: its window (and budget, canary); the plan is each node's start offset
// in the window, from the controller's own schedule.

import type { StrategyDescription } from '../strategy-description.ts';
import { spreadSchedule } from './spread-schedule.ts';

export const spreadDescription: StrategyDescription = {
  detail(strategy) {
    if (!strategy.spread) return 'no window set';
    const budget = strategy.spread.maxUnavailable;
    const canary = strategy.rollingUpdate?.canary?.nodes;
    return [
      `window ${strategy.spread.windowSeconds}s`,
      ...(budget !== undefined ? [`maxUnavailable ${budget}`] : []),
      ...(canary !== undefined ? [`canary ${canary}`] : []),
    ].join(', ');
  },

  plan({ spec, ordered, moving }) {
    const windowSeconds = spec.updateStrategy.spread?.windowSeconds;
    if (windowSeconds === undefined) {
      return {
        batches: [],
        notes: ['spread.windowSeconds is not set: the controller cannot schedule this pool'],
      };
    }
    // The controller's own schedule, from a window starting at 0: the offsets are the times.
    const times = spreadSchedule(ordered, 0, windowSeconds);
    for (const step of moving) step.offsetSeconds = (times.get(step.name) ?? 0) / 1000;
    const budget = spec.updateStrategy.spread?.maxUnavailable;
    const canary = spec.updateStrategy.rollingUpdate?.canary?.nodes;
    return {
      batches: [],
      notes: [
        `every node starts at its own offset in a ${windowSeconds}s window that opens when the rollout starts`,
        ...(canary !== undefined
          ? [
              `canary ${canary}: the first nodes go first; the others' offsets count from when those are updated, not from the window's start`,
            ]
          : []),
        ...(budget !== undefined
          ? [
              `at most ${budget} nodes unavailable or about to start (spread.maxUnavailable): a node whose time comes while the budget is full waits for a place`,
            ]
          : []),
      ],
    };
  },

  column: { header: 'START', shows: 'offset' },
};

// Spread as the CLI describes it: its window; the plan is each node's start offset in the window, from
// the controller's own schedule.

import type { StrategyDescription } from '../strategy-description.ts';
import { spreadSchedule } from './spread-schedule.ts';

export const spreadDescription: StrategyDescription = {
  detail(strategy) {
    return strategy.spread ? `window ${strategy.spread.windowSeconds}s` : 'no window set';
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
    return {
      batches: [],
      notes: [
        `every node starts at its own offset in a ${windowSeconds}s window that opens when the rollout starts`,
      ],
    };
  },

  column: { header: 'START', shows: 'offset' },
};

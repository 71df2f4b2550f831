// OnDelete as the CLI describes it: its outdated taint; the plan changes no existing node until it is
// upgraded (`nodeherd upgrade`, which is for these pools) or replaced.

import { plural } from '../../plural.ts';
import type { StrategyDescription } from '../strategy-description.ts';

export const onDeleteDescription: StrategyDescription = {
  detail(strategy) {
    return `outdated taint ${strategy.onDelete?.outdatedTaint ?? 'None'}`;
  },

  plan({ pool, moving, newNumber }) {
    return {
      batches: [],
      notes: [
        `existing nodes keep their revision: none of the ${plural(moving.length, 'node')} below changes now; new nodes joining the pool get revision ${newNumber}`,
        `the actions below happen only when a node is upgraded: nodeherd upgrade node <name>, or nodeherd upgrade revision ${pool.metadata.name} <R> for every node of revision R`,
      ],
    };
  },

  updatesWhenAsked: true,
  upgradesOnDemand: true,
};

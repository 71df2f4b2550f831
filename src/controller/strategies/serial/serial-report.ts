// Serial's part of the report: who holds the slots; a failed holder keeps its slot, so no other node
// starts, and the pool is Degraded saying so.

import { plural } from '../../plural.ts';
import { names, type StrategyReporter, type StrategyStatusInput } from '../strategy-status.ts';
import type { SlotHolder } from './serial-slots.ts';

export interface SerialStatusInput extends StrategyStatusInput {
  slots?: { count: number; holders: readonly SlotHolder[] };
  /** rollingUpdate.canary, while it has not passed. */
  canary?: { size: number };
}

export const serialReport: StrategyReporter<SerialStatusInput> = {
  notes(input, report) {
    if (!input.slots) return [];
    const T = input.target.name;
    const holders = input.slots.holders;
    const failedHolders = holders.filter((h) => h.state === 'Failed').map((h) => h.node);
    if (failedHolders.length > 0) {
      report.degraded = {
        reason: 'SlotHolderFailed',
        message: `${plural(failedHolders.length, 'slot holder')} failed ${T} and keep their slots, so no other node starts (a bad change stops after ${plural(input.slots.count, 'node')}): ${names(failedHolders)}; fix the config or roll back`,
      };
    }
    return [
      ...(input.canary
        ? [`waiting for the canary (${plural(input.canary.size, 'node')}) to be updated`]
        : []),
      holders.length === 0
        ? `no node holds one of the ${plural(input.slots.count, 'slot')}`
        : `${holders.length}/${input.slots.count} slots held: ${holders.map((h) => `${h.node} (${h.state})`).join(', ')}`,
    ];
  },
};

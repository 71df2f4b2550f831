// Spread's part of the report: the next start time and who it is, how many nodes apply, and why nodes
// without a time wait (the canary, the budget).

import { plural } from '../../plural.ts';
import type { StrategyReporter, StrategyStatusInput } from '../strategy-status.ts';

export interface SpreadStatusInput extends StrategyStatusInput {
  /** Node → not-before (ms) as planned. */
  schedule?: ReadonlyMap<string, number>;
  /** Why nodes without a time wait (the canary, the budget). */
  notes?: readonly string[];
}

export const spreadReport: StrategyReporter<SpreadStatusInput> = {
  notes(input, report) {
    const schedule = input.schedule;
    if (!schedule) return [];
    const notes: string[] = [];
    const next = input.nodes
      .filter((n) => n.current !== input.target.name)
      .map((n) => ({ name: n.name, at: schedule.get(n.name) }))
      .filter((n): n is { name: string; at: number } => n.at !== undefined && n.at > input.now)
      .sort((a, b) => a.at - b.at)[0];
    if (next) notes.push(`next start ${new Date(next.at).toISOString()} (${next.name})`);
    if (report.applying > 0) notes.push(`${plural(report.applying, 'node')} applying`);
    notes.push(...(input.notes ?? []));
    return notes;
  },
};

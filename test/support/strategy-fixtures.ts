// The strategies' pure parts as the table tests of test/controller/strategies/<name>/ call them: a
// strategy's marks or report over defaults (a pool p moving from r1 to r2), by strategy type, through the registry.

import {
  type MarksInput,
  type NodeMarks,
  planNodeMarks,
  type StrategyType,
} from '../../src/controller/strategies/node-marks.ts';
import { strategyFor } from '../../src/controller/strategies/registry.ts';
import type { StrategyNode } from '../../src/controller/strategies/strategy-node.ts';
import { type StrategyStatusInput, strategyReport } from '../../src/controller/strategies/strategy-status.ts';
import { NOW } from './rollout-fixtures.ts';

/** A node of the pool: r1 given and applied, unless `over` says otherwise. */
export function strategyNode(name: string, over: Partial<StrategyNode> = {}): StrategyNode {
  return { name, zone: '', desired: 'r1', current: 'r1', state: 'Done', cordonedByUs: false, ...over };
}

export function marksDefaults(over: Partial<MarksInput> = {}): MarksInput {
  return {
    target: { name: 'r2', number: 2 },
    revisionNumbers: new Map([
      ['r1', 1],
      ['r2', 2],
    ]),
    nodes: [],
    serial: { pool: 'p', slots: 1, leaseDurationSeconds: 600 },
    outdatedTaint: 'None',
    slotHolders: new Set(),
    now: NOW,
    ...over,
  };
}

/** The marks of strategy `type` (Serial unless given), by node. */
export function marks(over: Partial<MarksInput> & { type?: StrategyType }): Map<string, NodeMarks> {
  const { type = 'Serial', ...input } = over;
  const result = planNodeMarks(marksDefaults(input), strategyFor(type).marks);
  return new Map(result.map((m) => [m.node, m]));
}

/** The report of strategy `type` (Serial unless given). */
export function report(over: Partial<StrategyStatusInput>) {
  const input: StrategyStatusInput = {
    type: 'Serial',
    target: { name: 'r2', number: 2 },
    nodes: [],
    healthy: () => true,
    revisionNumbers: new Map([
      ['r1', 1],
      ['r2', 2],
    ]),
    paused: false,
    now: NOW,
    ...over,
  };
  const reporter = strategyFor(input.type).reportNotes;
  if (!reporter) throw new Error(`${input.type} has no strategy report`);
  return strategyReport(input, reporter);
}

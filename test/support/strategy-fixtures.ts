// The strategies' pure parts as the table tests of test/controller/strategies/<name>/ call them: a
// strategy's marks or report over defaults (a pool p moving from r1 to r2), by strategy type, from the
// strategy's folder (<name>-marks.ts, <name>-report.ts).

import { SERIAL_GATE_ANNOTATION, SERIAL_SLOT_ANNOTATION } from '../../src/api/node-protocol.ts';
import {
  type NodeMarks,
  planNodeMarks,
  type StrategyMarks,
  type StrategyType,
} from '../../src/controller/strategies/node-marks.ts';
import {
  type OnDeleteMarksInput,
  onDeleteMarks,
} from '../../src/controller/strategies/on-delete/on-delete-marks.ts';
import {
  type OnDeleteStatusInput,
  onDeleteReport,
} from '../../src/controller/strategies/on-delete/on-delete-report.ts';
import { otaMarks } from '../../src/controller/strategies/ota/ota-marks.ts';
import { otaReport } from '../../src/controller/strategies/ota/ota-report.ts';
import { rollingUpdateMarks } from '../../src/controller/strategies/rolling-update/rolling-update-marks.ts';
import { type SerialMarksInput, serialMarks } from '../../src/controller/strategies/serial/serial-marks.ts';
import {
  type SerialStatusInput,
  serialReport,
} from '../../src/controller/strategies/serial/serial-report.ts';
import { type SpreadMarksInput, spreadMarks } from '../../src/controller/strategies/spread/spread-marks.ts';
import {
  type SpreadStatusInput,
  spreadReport,
} from '../../src/controller/strategies/spread/spread-report.ts';
import type { StrategyNode } from '../../src/controller/strategies/strategy-node.ts';
import { type StrategyReporter, strategyReport } from '../../src/controller/strategies/strategy-status.ts';

/** Every strategy's marks input at once: each strategy reads its own part. */
export type AnyMarksInput = SerialMarksInput & SpreadMarksInput & OnDeleteMarksInput;
/** Every strategy's report input at once. */
export type AnyStatusInput = SerialStatusInput & SpreadStatusInput & OnDeleteStatusInput;

const MARKS: Record<StrategyType, StrategyMarks<AnyMarksInput>> = {
  RollingUpdate: rollingUpdateMarks,
  Serial: serialMarks,
  Spread: spreadMarks,
  OnDelete: onDeleteMarks,
  OTA: otaMarks,
};

const REPORTERS: Partial<Record<StrategyType, StrategyReporter<AnyStatusInput>>> = {
  Serial: serialReport,
  Spread: spreadReport,
  OnDelete: onDeleteReport,
  OTA: otaReport,
};

import { NOW } from './rollout-fixtures.ts';

/** A node of the pool: r1 given and applied, unless `over` says otherwise. */
/** A StrategyNode's fields, with Serial's annotations (its gate, its slot) by name. */
export type NodeOver = Partial<StrategyNode> & { serialGate?: string | undefined; serialSlot?: string };

/** `over` with Serial's annotations moved into StrategyNode.annotations, as readStrategyNode puts them. */
export function serialFields(over: NodeOver): Partial<StrategyNode> {
  const { serialGate, serialSlot, ...rest } = over;
  const annotations = {
    ...rest.annotations,
    ...(serialGate !== undefined ? { [SERIAL_GATE_ANNOTATION]: serialGate } : {}),
    ...(serialSlot !== undefined ? { [SERIAL_SLOT_ANNOTATION]: serialSlot } : {}),
  };
  return Object.keys(annotations).length > 0 ? { ...rest, annotations } : rest;
}

export function strategyNode(name: string, over: NodeOver = {}): StrategyNode {
  return {
    name,
    zone: '',
    desired: 'r1',
    current: 'r1',
    state: 'Done',
    cordonedByUs: false,
    ...serialFields(over),
  };
}

export function marksDefaults(over: Partial<AnyMarksInput> = {}): AnyMarksInput {
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
export function marks(over: Partial<AnyMarksInput> & { type?: StrategyType }): Map<string, NodeMarks> {
  const { type = 'Serial', ...input } = over;
  const result = planNodeMarks(marksDefaults(input), MARKS[type]);
  return new Map(result.map((m) => [m.node, m]));
}

/** The report of strategy `type` (Serial unless given). */
export function report(over: Partial<AnyStatusInput>) {
  const input: AnyStatusInput = {
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
  const reporter = REPORTERS[input.type];
  if (!reporter) throw new Error(`${input.type} has no strategy report`);
  return strategyReport(input, reporter);
}

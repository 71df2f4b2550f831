// Progressing, Complete and Degraded for the strategies the agents or the nodes' owners drive: what
// the nodes report (on the target, failed, applying, gated and waiting), a pause and the failure
// policy. Each strategy's folder adds its own notes and what they are made from (<name>/<name>-report.ts:
// the holders, the schedule, the offers). Pure, like the rest of the status.

import { plural } from '../plural.ts';
import type { NumberedRevision } from '../rollout/types.ts';
import type { StrategyType } from './node-marks.ts';
import { carriesGate, failedFor, type StrategyNode, workingOn } from './strategy-node.ts';

export interface StrategyCondition {
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

export interface StrategyReport {
  progressing: StrategyCondition;
  complete: StrategyCondition;
  degraded?: { reason: string; message: string };
  /** Nodes that failed the target. */
  failed: string[];
  /** Nodes applying or verifying the target. */
  applying: number;
  /** OTA: nodes offered the target, not on it and not applying it. */
  updateAvailable: number;
  /** Gated strategies: nodes given the target and gated (their gate, start time, hold), not started. */
  waiting: number;
  /** Every node is on the target and healthy. */
  done: boolean;
}

/** What every strategy's report is built from; a strategy's own report input extends it. */
export interface StrategyStatusInput {
  /** The Progressing reason while the rollout goes on. */
  type: StrategyType;
  target: NumberedRevision;
  nodes: readonly StrategyNode[];
  healthy: (node: string) => boolean;
  revisionNumbers: ReadonlyMap<string, number>;
  paused: boolean;
  /** The failure policy stopped the rollout (message). */
  stoppedByFailure?: string;
  now: number;
}

/**
 * What one strategy adds to the report while the rollout is not done: notes for the Progressing
 * message; it may also set reasons, counts and Degraded on the report.
 */
export interface StrategyReporter<Input extends StrategyStatusInput = StrategyStatusInput> {
  notes(input: Input, report: StrategyReport): string[];
  /** spec.paused stops nothing (the nodes' owners pull the update). */
  ignoresPause?: boolean;
}

/** Not on the target, and neither working on it nor failed it. */
export function idleOff(node: StrategyNode, target: string): boolean {
  return node.current !== target && !workingOn(node, target) && !failedFor(node, target);
}

export function names(list: readonly string[], max = 5): string {
  return list.length > max
    ? `${list.slice(0, max).join(', ')} and ${list.length - max} more`
    : list.join(', ');
}

export function strategyReport<Input extends StrategyStatusInput>(
  input: Input,
  reporter: StrategyReporter<Input>,
): StrategyReport {
  const T = input.target.name;
  const { nodes } = input;
  const onTarget = nodes.filter((n) => n.current === T);
  const failed = nodes.filter((n) => failedFor(n, T)).map((n) => n.name);
  const applying = nodes.filter((n) => workingOn(n, T)).length;
  const gated = (n: StrategyNode) =>
    carriesGate(n) || n.notBefore !== undefined || n.hold !== undefined || n.state === 'Waiting';
  const waiting = nodes.filter((n) => n.desired === T && idleOff(n, T) && gated(n)).length;
  const done = nodes.every((n) => n.current === T && input.healthy(n.name));
  const progress = `${onTarget.length}/${nodes.length} nodes on ${T}`;
  const report: StrategyReport = {
    progressing: { status: 'True', reason: input.type, message: progress },
    complete: done
      ? { status: 'True', reason: 'RolloutComplete', message: `${plural(onTarget.length, 'node')} on ${T}` }
      : { status: 'False', reason: 'RolloutInProgress', message: progress },
    failed,
    applying,
    updateAvailable: 0,
    waiting,
    done,
  };
  if (failed.length > 0) {
    const detail = nodes
      .filter((n) => failed.includes(n.name))
      .slice(0, 5)
      .map((n) => `${n.name}: ${n.message ?? 'failed'}`);
    report.degraded = {
      reason: 'NodesFailed',
      message: `${plural(failed.length, 'node')} failed ${T}: ${detail.join('; ')}`,
    };
  }
  if (done) {
    report.progressing = { status: 'False', reason: 'RolloutComplete', message: `every node runs ${T}` };
    return report;
  }

  const notes = reporter.notes(input, report);
  if (input.stoppedByFailure) {
    report.progressing = {
      status: 'False',
      reason: 'FailurePolicy',
      message: `${progress}; ${input.stoppedByFailure}`,
    };
    return report;
  }
  if (input.paused && !reporter.ignoresPause) {
    report.progressing = {
      status: 'False',
      reason: 'Paused',
      message: `${progress}; the pool is paused (spec.paused): nodes that have not started wait${notes.length ? `; ${notes.join('; ')}` : ''}`,
    };
    return report;
  }
  report.progressing.message = [progress, ...notes].join('; ');
  return report;
}

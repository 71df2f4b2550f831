// Progressing, Complete and Degraded for the strategies the agents or the nodes' owners drive
// (Serial, Spread, OnDelete, OTA): what the nodes report, the Serial slot holders, the Spread
// schedule, the update offers. Pure, like the rest of the status.

import { plural } from '../plural.ts';
import type { RevisionRef, RolloutDecision } from '../rollout/types.ts';
import type { SlotHolder } from './serial/serial-slots.ts';
import { failedFor, type StrategyNode, workingOn } from './strategy-node.ts';

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
  /** Serial, Spread: nodes given the target and gated (slot, start time, hold), not started. */
  waiting: number;
  /** Every node is on the target and healthy. */
  done: boolean;
}

export interface StrategyStatusInput {
  type: 'Serial' | 'Spread' | 'OnDelete' | 'OTA';
  target: RevisionRef;
  nodes: readonly StrategyNode[];
  healthy: (node: string) => boolean;
  revisionNumbers: ReadonlyMap<string, number>;
  paused: boolean;
  /** The failure policy stopped the rollout (message). */
  stoppedByFailure?: string;
  slots?: { count: number; holders: readonly SlotHolder[] };
  /** Spread: node → not-before (ms) as planned. */
  schedule?: ReadonlyMap<string, number>;
  /** OnDelete: the upgrade decision, when nodes were asked to upgrade. */
  upgrade?: { requested: readonly string[]; decision?: RolloutDecision };
  now: number;
}

function names(list: readonly string[], max = 5): string {
  return list.length > max
    ? `${list.slice(0, max).join(', ')} and ${list.length - max} more`
    : list.join(', ');
}

export function strategyReport(input: StrategyStatusInput): StrategyReport {
  const T = input.target.name;
  const { nodes } = input;
  const onTarget = nodes.filter((n) => n.current === T);
  const failed = nodes.filter((n) => failedFor(n, T)).map((n) => n.name);
  const applying = nodes.filter((n) => workingOn(n, T)).length;
  const idleOff = (n: StrategyNode) => n.current !== T && !workingOn(n, T) && !failedFor(n, T);
  // OTA: every node with a revision but not the target has it on offer (the controller writes the
  // offer); those applying or failed it are counted as such instead.
  const updateAvailable =
    input.type === 'OTA' ? nodes.filter((n) => n.current !== undefined && idleOff(n)).length : 0;
  const gated = (n: StrategyNode) =>
    n.serialGate !== undefined || n.notBefore !== undefined || n.hold !== undefined || n.state === 'Waiting';
  const waiting = nodes.filter((n) => n.desired === T && idleOff(n) && gated(n)).length;
  const done = nodes.every((n) => n.current === T && input.healthy(n.name));
  const progress = `${onTarget.length}/${nodes.length} nodes on ${T}`;
  const report: StrategyReport = {
    progressing: { status: 'True', reason: input.type, message: progress },
    complete: done
      ? { status: 'True', reason: 'RolloutComplete', message: `${plural(onTarget.length, 'node')} on ${T}` }
      : { status: 'False', reason: 'RolloutInProgress', message: progress },
    failed,
    applying,
    updateAvailable,
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

  const notes: string[] = [];
  if (input.type === 'Serial' && input.slots) {
    const holders = input.slots.holders;
    notes.push(
      holders.length === 0
        ? `no node holds one of the ${plural(input.slots.count, 'slot')}`
        : `${holders.length}/${input.slots.count} slots held: ${holders.map((h) => `${h.node} (${h.state})`).join(', ')}`,
    );
    const failedHolders = holders.filter((h) => h.state === 'Failed').map((h) => h.node);
    if (failedHolders.length > 0) {
      report.degraded = {
        reason: 'SlotHolderFailed',
        message: `${plural(failedHolders.length, 'slot holder')} failed ${T} and keep their slots, so no other node starts (a bad change stops after ${plural(input.slots.count, 'node')}): ${names(failedHolders)}; fix the config or roll back`,
      };
    }
  }
  if (input.type === 'Spread' && input.schedule) {
    const next = nodes
      .filter((n) => n.current !== T)
      .map((n) => ({ name: n.name, at: input.schedule!.get(n.name) }))
      .filter((n): n is { name: string; at: number } => n.at !== undefined && n.at > input.now)
      .sort((a, b) => a.at - b.at)[0];
    if (next) notes.push(`next start ${new Date(next.at).toISOString()} (${next.name})`);
    if (applying > 0) notes.push(`${plural(applying, 'node')} applying`);
  }
  if (input.type === 'OnDelete') {
    const older = new Map<string, number>();
    for (const n of nodes)
      if (n.current && n.current !== T) older.set(n.current, (older.get(n.current) ?? 0) + 1);
    const list = [...older.entries()]
      .sort((a, b) => (input.revisionNumbers.get(a[0]) ?? 0) - (input.revisionNumbers.get(b[0]) ?? 0))
      .map(
        ([name, count]) => `revision ${input.revisionNumbers.get(name) ?? name}: ${plural(count, 'node')}`,
      );
    if (list.length > 0) notes.push(`older revisions in use (${list.join(', ')})`);
    const requested = input.upgrade?.requested ?? [];
    const decision = input.upgrade?.decision;
    if (requested.length > 0 || (decision && !decision.complete)) {
      notes.push(`upgrading on request: ${names(requested)}`);
      if (decision?.blocked) notes.push(decision.blocked.message);
    } else {
      report.progressing.status = 'False';
      report.progressing.reason = 'WaitingForNodeReplacement';
      notes.push('new nodes get the target; existing nodes keep their revision until replaced or upgraded');
    }
    report.complete.reason = 'OlderRevisionsInUse';
  }
  if (input.type === 'OTA') {
    notes.push(
      `${plural(updateAvailable, 'node')} ${updateAvailable === 1 ? 'has' : 'have'} an update available`,
    );
    if (applying > 0) notes.push(`${plural(applying, 'node')} applying`);
    else {
      report.progressing.status = 'False';
      report.progressing.reason = 'WaitingForNodeOwners';
    }
    report.complete.reason = 'UpdatesAvailable';
  }
  if (input.stoppedByFailure) {
    report.progressing = {
      status: 'False',
      reason: 'FailurePolicy',
      message: `${progress}; ${input.stoppedByFailure}`,
    };
    return report;
  }
  if (input.paused && input.type !== 'OTA') {
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

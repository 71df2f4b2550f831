// Spread's marks: every node not on the target gets it with its not-before time from the schedule (with
// a budget or a canary, only the nodes spread-handout.ts lets go now). A
// time handed out stays once it has passed (the agent may have acted on it), and nodes first gated
// after their planned time start from now, spaced like the window, not all at once.

import { HOLD_ANNOTATION, NOT_BEFORE_ANNOTATION } from '../../../api/node-protocol.ts';
import {
  bootstrap,
  gatedHandout,
  type MarksInput,
  type StrategyMarks,
  type WantedMarks,
} from '../node-marks.ts';
import { type StrategyNode, startedOn } from '../strategy-node.ts';
import { lateTimes, spreadSchedule } from './spread-schedule.ts';

export interface SpreadMarksInput extends MarksInput {
  /**
   * When the window opens (ms; spreadWindowStart) and how long it is; with a budget or a canary
   * (spread-handout.ts), the times planned and the nodes that get the target now.
   */
  spread?: {
    windowStart: number;
    windowSeconds: number;
    times?: ReadonlyMap<string, number>;
    /** Nodes not given the target yet that get it now (absent: all). */
    handOut?: ReadonlySet<string>;
    /** Times are handed out just in time (a budget): a late node keeps its passed time. */
    budgeted?: boolean;
    /** Why a node not given the target yet that still has an older revision to apply waits. */
    waitReason?: string;
  };
}

export const spreadMarks: StrategyMarks<SpreadMarksInput> = (input) => {
  if (!input.spread) throw new Error('Spread marks need the window (SpreadMarksInput.spread)');
  const T = input.target.name;
  const { handOut, waitReason } = input.spread;
  const schedule = spreadSchedule(
    input.nodes,
    input.spread.windowStart,
    input.spread.windowSeconds,
    input.order,
  );
  const times = input.spread.times ?? schedule;
  // Handed out just in time, a node whose time passed waited for a place: it starts at once.
  const late = input.spread.budgeted ? new Map<string, number>() : lateHandouts(input, times, input.spread);
  return (node) => {
    const joining = bootstrap(node, T);
    if (joining) return { ...joining, releaseDrain: true };
    if (node.current === undefined || node.current === T) return { annotations: {}, releaseDrain: true };
    if (node.desired !== T && handOut && !handOut.has(node.name))
      return notYet(node, input.hold ?? waitReason);
    const started = startedOn(node, T, false);
    // A node given the target before its time was planned (a canary set mid-way) keeps the window's.
    const plannedAt = late.get(node.name) ?? times.get(node.name) ?? schedule.get(node.name)!;
    const existing = node.notBefore === undefined ? Number.NaN : Date.parse(node.notBefore);
    // A time already passed for this revision stays: the agent may have acted on it. So does one
    // given late (lateHandouts) once its planned time has passed: moving it back would start it now.
    const keep =
      node.desired === T &&
      !Number.isNaN(existing) &&
      (started || existing <= input.now || plannedAt <= input.now);
    return gatedHandout(node, input, started, {
      key: NOT_BEFORE_ANNOTATION,
      value: keep ? node.notBefore : new Date(plannedAt).toISOString(),
    });
  };
};

/**
 * A node whose turn has not come (budget, canary) is left as it is, except that one still to apply an
 * older revision (a rollout superseded mid-way) waits too: its gate is kept and held.
 */
function notYet(node: StrategyNode, reason: string | undefined): WantedMarks {
  const pending =
    node.desired !== undefined && node.desired !== node.current && !startedOn(node, node.desired, false);
  if (!pending) return { annotations: {}, releaseDrain: true };
  return {
    annotations: {
      [NOT_BEFORE_ANNOTATION]: node.notBefore,
      [HOLD_ANNOTATION]: reason ?? 'waiting for its turn in the Spread schedule',
    },
    releaseDrain: true,
  };
}

/**
 * Spread nodes getting their not-before for the first time for this target although their planned
 * time has passed: their times after the window, spaced like it (lateTimes), not all at once.
 */
function lateHandouts(
  input: MarksInput,
  times: ReadonlyMap<string, number>,
  window: { windowStart: number; windowSeconds: number },
): Map<string, number> {
  const late: { name: string; planned: number }[] = [];
  // Less than a spacing late, a node starts at once: the next on time is still a moment away.
  const spacing = input.nodes.length > 0 ? (window.windowSeconds * 1000) / input.nodes.length : 0;
  for (const node of input.nodes) {
    if (node.current === undefined || node.current === input.target.name) continue;
    const firstGate =
      node.desired !== input.target.name ||
      node.notBefore === undefined ||
      Number.isNaN(Date.parse(node.notBefore));
    const planned = times.get(node.name);
    if (firstGate && planned !== undefined && planned < input.now - spacing)
      late.push({ name: node.name, planned });
  }
  return lateTimes(late, input.now, window, input.nodes.length);
}

// Spread's marks: every node not on the target gets it with its not-before time from the schedule. A
// time handed out stays once it has passed (the agent may have acted on it), and nodes first gated
// after their planned time start from now, spaced like the window, not all at once.

import { NOT_BEFORE_ANNOTATION } from '../../../api/node-protocol.ts';
import { bootstrap, gatedHandout, type MarksInput, type StrategyMarks } from '../node-marks.ts';
import { startedOn } from '../strategy-node.ts';
import { lateTimes, spreadSchedule } from './spread-schedule.ts';

export const spreadMarks: StrategyMarks = (input) => {
  if (!input.spread) throw new Error('Spread marks need the window (MarksInput.spread)');
  const T = input.target.name;
  const times = spreadSchedule(input.nodes, input.spread.windowStart, input.spread.windowSeconds);
  const late = lateHandouts(input, times, input.spread);
  return (node) => {
    const joining = bootstrap(node, T);
    if (joining) return { ...joining, releaseDrain: true };
    if (node.current === undefined || node.current === T) return { annotations: {}, releaseDrain: true };
    const started = startedOn(node, T, input.slotHolders.has(node.name));
    const plannedAt = late.get(node.name) ?? times.get(node.name)!;
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

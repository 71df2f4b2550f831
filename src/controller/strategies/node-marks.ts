// What each strategy wants on the pool's Nodes: desired-revision (where the controller hands it out),
// the gates (Serial gate, Spread not-before), the hold, OTA's available-revision and OnDelete's
// outdated taint. Every strategy names the full set it wants, so artefacts of a strategy the pool left
// are removed by the same rule that sets them. Pure: the executor turns the changes into patches.

import type { UPDATE_STRATEGY_TYPES } from '../../api/node-config-pool-schema.ts';
import {
  AVAILABLE_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  HOLD_ANNOTATION,
  NOT_BEFORE_ANNOTATION,
  SERIAL_GATE_ANNOTATION,
  type SerialGate,
  UPGRADE_REQUESTED_ANNOTATION,
} from '../../api/node-protocol.ts';
import type { RevisionRef } from '../rollout/types.ts';
import { lateTimes, spreadSchedule } from './spread/spread-schedule.ts';
import { type StrategyNode, startedOn, type Taint } from './strategy-node.ts';

export type StrategyType = (typeof UPDATE_STRATEGY_TYPES)[number];

export interface MarksInput {
  type: StrategyType;
  target: RevisionRef;
  /** Revision name → number, for the pool's revisions (taint values). */
  revisionNumbers: ReadonlyMap<string, number>;
  nodes: readonly StrategyNode[];
  /** Why nodes that have not started must wait (paused, failure policy); Serial and Spread only. */
  hold?: string;
  serial: SerialGate;
  /** Spread: when the window opens (ms; spreadWindowStart) and how long it is. */
  spread?: { windowStart: number; windowSeconds: number };
  outdatedTaint: 'None' | 'NoSchedule' | 'PreferNoSchedule';
  /** Nodes holding a Serial slot. */
  slotHolders: ReadonlySet<string>;
  now: number;
}

export interface NodeMarks {
  node: string;
  /** Annotations to set (string) or remove (null). */
  annotations: Record<string, string | null>;
  /** Our taint: set to this, or removed (null); absent: unchanged. */
  taint?: Taint | null;
  /** Lift our cordon and stop a drain left from a RollingUpdate (gated strategies never drain). */
  release?: boolean;
  /** Why, for Events: 'bootstrap' | 'handout' (desired-revision given with its gate) | 'marks'. */
  kind: 'bootstrap' | 'handout' | 'marks';
}

const MANAGED = [
  SERIAL_GATE_ANNOTATION,
  NOT_BEFORE_ANNOTATION,
  HOLD_ANNOTATION,
  AVAILABLE_REVISION_ANNOTATION,
] as const;

function currentValue(node: StrategyNode, key: string): string | undefined {
  switch (key) {
    case SERIAL_GATE_ANNOTATION:
      return node.serialGate;
    case NOT_BEFORE_ANNOTATION:
      return node.notBefore;
    case HOLD_ANNOTATION:
      return node.hold;
    case AVAILABLE_REVISION_ANNOTATION:
      return node.available;
    case UPGRADE_REQUESTED_ANNOTATION:
      return node.upgradeRequested;
    case DESIRED_REVISION_ANNOTATION:
      return node.desired;
    default:
      return undefined;
  }
}

export function serialGateValue(gate: SerialGate): string {
  return JSON.stringify({
    pool: gate.pool,
    slots: gate.slots,
    leaseDurationSeconds: gate.leaseDurationSeconds,
  });
}

export function planNodeMarks(input: MarksInput): NodeMarks[] {
  const T = input.target.name;
  const { type } = input;
  const times = input.spread
    ? spreadSchedule(input.nodes, input.spread.windowStart, input.spread.windowSeconds)
    : undefined;
  const gate = serialGateValue(input.serial);
  const changes: NodeMarks[] = [];
  const late = times && input.spread ? lateHandouts(input, times, input.spread) : undefined;

  for (const node of input.nodes) {
    const want = new Map<string, string | undefined>(MANAGED.map((k) => [k, undefined]));
    let kind: NodeMarks['kind'] = 'marks';
    const joining = node.current === undefined;
    const onTarget = node.current === T;
    const started = startedOn(node, T, input.slotHolders.has(node.name));
    const gated = type === 'Serial' || type === 'Spread';

    if (type !== 'RollingUpdate' && joining && node.desired !== T) {
      // Joining the pool is not an update: the newest revision at once, with no gate.
      want.set(DESIRED_REVISION_ANNOTATION, T);
      kind = 'bootstrap';
    } else if (gated && !onTarget && !joining) {
      if (node.desired !== T) {
        want.set(DESIRED_REVISION_ANNOTATION, T);
        kind = 'handout';
      }
      if (type === 'Serial') {
        // A node already in its slot keeps the gate it started with.
        want.set(SERIAL_GATE_ANNOTATION, started && node.serialGate !== undefined ? node.serialGate : gate);
      } else {
        const plannedAt = late?.get(node.name) ?? times!.get(node.name)!;
        const existing = node.notBefore === undefined ? Number.NaN : Date.parse(node.notBefore);
        // A time already passed for this revision stays: the agent may have acted on it. So does one
        // given late (lateHandouts) once its planned time has passed: moving it back would start it now.
        const keep =
          node.desired === T &&
          !Number.isNaN(existing) &&
          (started || existing <= input.now || plannedAt <= input.now);
        want.set(NOT_BEFORE_ANNOTATION, keep ? node.notBefore : new Date(plannedAt).toISOString());
      }
      if (input.hold && !started) want.set(HOLD_ANNOTATION, input.hold);
    }
    if (type === 'OTA' && !onTarget && !joining) want.set(AVAILABLE_REVISION_ANNOTATION, T);

    const annotations: Record<string, string | null> = {};
    for (const [key, value] of want) {
      const now = currentValue(node, key);
      if (value === undefined && now !== undefined && key !== DESIRED_REVISION_ANNOTATION)
        annotations[key] = null;
      else if (value !== undefined && value !== now) annotations[key] = value;
    }
    // Asked to upgrade and there: the request is done (whatever the strategy is now).
    if (node.upgradeRequested !== undefined && onTarget && node.desired === T)
      annotations[UPGRADE_REQUESTED_ANNOTATION] = null;

    let taint: Taint | null | undefined;
    const number = node.current ? input.revisionNumbers.get(node.current) : undefined;
    const wantTaint: Taint | undefined =
      type === 'OnDelete' && input.outdatedTaint !== 'None' && !joining && !onTarget
        ? { effect: input.outdatedTaint, value: String(number ?? node.current) }
        : undefined;
    if (wantTaint === undefined && node.outdatedTaint) taint = null;
    else if (
      wantTaint &&
      (node.outdatedTaint?.effect !== wantTaint.effect || node.outdatedTaint?.value !== wantTaint.value)
    )
      taint = wantTaint;

    const release =
      (gated || type === 'OTA') && (node.cordonedByUs || node.drainingFor !== undefined) ? true : undefined;
    if (Object.keys(annotations).length > 0 || taint !== undefined || release) {
      changes.push({
        node: node.name,
        annotations,
        ...(taint !== undefined ? { taint } : {}),
        ...(release ? { release } : {}),
        kind,
      });
    }
  }
  // Written earliest time first, so a node's gate is on it before its time comes.
  const at = (m: NodeMarks) => {
    const value = m.annotations[NOT_BEFORE_ANNOTATION];
    return typeof value === 'string' ? Date.parse(value) : Number.NEGATIVE_INFINITY;
  };
  return changes.sort((a, b) => at(a) - at(b));
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

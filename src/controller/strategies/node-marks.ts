// What a strategy wants on the pool's Nodes, turned into changes: each strategy's folder says per node
// what it wants (desired-revision where the controller hands it out, its gate, the hold, an offer, a
// taint: <name>/<name>-marks.ts); this compares it with what the node carries. Every strategy names the
// full set it wants, so artefacts of a strategy the pool left are removed by the same rule that sets
// them. Pure: the executor turns the changes into patches.

import type { UPDATE_STRATEGY_TYPES } from '../../api/node-config-pool-schema.ts';
import {
  AVAILABLE_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  HOLD_ANNOTATION,
  NOT_BEFORE_ANNOTATION,
  UPGRADE_REQUESTED_ANNOTATION,
} from '../../api/node-protocol.ts';
import type { NodeOrder } from '../rollout/rollout-order.ts';
import type { NumberedRevision } from '../rollout/types.ts';
import { STRATEGY_ANNOTATION_KEYS } from './strategy-annotations.ts';
import type { StrategyNode, Taint } from './strategy-node.ts';

export type StrategyType = (typeof UPDATE_STRATEGY_TYPES)[number];

/** What every strategy's marks are planned from; a strategy's own marks input extends it. */
export interface MarksInput {
  target: NumberedRevision;
  /** Revision name → number, for the pool's revisions (taint values). */
  revisionNumbers: ReadonlyMap<string, number>;
  nodes: readonly StrategyNode[];
  /** Why nodes that have not started must wait (paused, failure policy); gated strategies only. */
  hold?: string;
  /**
   * Nodes that cannot take the target (another package manager: rollout/package-manager-fit.ts): whatever
   * a strategy wants, they are neither handed nor offered it.
   */
  refused?: ReadonlySet<string>;
  /** The pool's order (spec.rolloutOrder); absent: Interleaved. */
  order?: NodeOrder;
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

const MANAGED: readonly string[] = [
  ...STRATEGY_ANNOTATION_KEYS,
  NOT_BEFORE_ANNOTATION,
  HOLD_ANNOTATION,
  AVAILABLE_REVISION_ANNOTATION,
];
const MANAGED_KEYS: ReadonlySet<string> = new Set(MANAGED);

function currentValue(node: StrategyNode, key: string): string | undefined {
  switch (key) {
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
      return node.annotations?.[key];
  }
}

/** What one strategy wants on one node, before it is compared with what the node carries. */
export interface WantedMarks {
  /**
   * The annotations the strategy wants, by key. Of the managed ones (gates, not-before, hold, offer)
   * those not named here are removed; desired-revision is only ever set, never removed.
   */
  annotations: Record<string, string | undefined>;
  kind?: NodeMarks['kind'];
  /** The strategy's taint; absent: none of ours. */
  taint?: Taint;
  /** A cordon of ours or a drain left from a RollingUpdate is lifted (strategies that never drain). */
  releaseDrain?: boolean;
}

/** A strategy's marks: set up once per pool (a schedule, the gate), then asked per node. */
export type StrategyMarks<Input extends MarksInput = MarksInput> = (
  input: Input,
) => (node: StrategyNode) => WantedMarks;

/** Joining the pool is not an update: the newest revision at once, with no gate. */
export function bootstrap(node: StrategyNode, target: string): WantedMarks | undefined {
  return node.current === undefined && node.desired !== target
    ? { annotations: { [DESIRED_REVISION_ANNOTATION]: target }, kind: 'bootstrap' }
    : undefined;
}

/**
 * A gated strategy's hand-out to a node not on the target: the target with the strategy's gate, and
 * the hold (the pool is paused) on a node that has not started.
 */
export function gatedHandout(
  node: StrategyNode,
  input: MarksInput,
  started: boolean,
  gate: { key: string; value: string | undefined },
): WantedMarks {
  const annotations: Record<string, string | undefined> = {};
  let kind: NodeMarks['kind'] = 'marks';
  if (node.desired !== input.target.name) {
    annotations[DESIRED_REVISION_ANNOTATION] = input.target.name;
    kind = 'handout';
  }
  annotations[gate.key] = gate.value;
  if (input.hold && !started) annotations[HOLD_ANNOTATION] = input.hold;
  return { annotations, kind, releaseDrain: true };
}

/** `changes` with the change of one annotation from what the node carries to `value`, if any. */
function change(
  changes: Record<string, string | null> | undefined,
  node: StrategyNode,
  key: string,
  value: string | undefined,
): Record<string, string | null> | undefined {
  const now = currentValue(node, key);
  let to: string | null;
  if (value === undefined && now !== undefined && key !== DESIRED_REVISION_ANNOTATION) to = null;
  else if (value !== undefined && value !== now) to = value;
  else return changes;
  const out = changes ?? {};
  out[key] = to;
  return out;
}

/** The changes less those that would hand out or offer `target`. */
function withoutTarget(
  annotations: Record<string, string | null> | undefined,
  target: string,
): Record<string, string | null> | undefined {
  if (annotations === undefined) return undefined;
  const kept = Object.entries(annotations).filter(
    ([key, value]) =>
      !(value === target && (key === DESIRED_REVISION_ANNOTATION || key === AVAILABLE_REVISION_ANNOTATION)),
  );
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

export function planNodeMarks<Input extends MarksInput>(
  input: Input,
  strategyMarks: StrategyMarks<Input>,
): NodeMarks[] {
  const T = input.target.name;
  const wantedOn = strategyMarks(input);
  const changes: NodeMarks[] = [];

  for (const node of input.nodes) {
    const wanted = wantedOn(node);
    const onTarget = node.current === T;

    // The managed keys first (absent from what is wanted: removed), then the others wanted, in order.
    // Called for every member on every reconcile: no allocation for a node that needs nothing.
    let annotations: Record<string, string | null> | undefined;
    for (const key of MANAGED) annotations = change(annotations, node, key, wanted.annotations[key]);
    for (const key in wanted.annotations)
      if (!MANAGED_KEYS.has(key)) annotations = change(annotations, node, key, wanted.annotations[key]);
    if (input.refused?.has(node.name) && node.desired !== T) annotations = withoutTarget(annotations, T);
    // Asked to upgrade and there: the request is done (whatever the strategy is now).
    if (node.upgradeRequested !== undefined && onTarget && node.desired === T)
      annotations = { ...annotations, [UPGRADE_REQUESTED_ANNOTATION]: null };

    let taint: Taint | null | undefined;
    const wantTaint = wanted.taint;
    if (wantTaint === undefined && node.outdatedTaint) taint = null;
    else if (
      wantTaint &&
      (node.outdatedTaint?.effect !== wantTaint.effect || node.outdatedTaint?.value !== wantTaint.value)
    )
      taint = wantTaint;

    const release =
      wanted.releaseDrain && (node.cordonedByUs || node.drainingFor !== undefined) ? true : undefined;
    if (annotations !== undefined || taint !== undefined || release) {
      changes.push({
        node: node.name,
        annotations: annotations ?? {},
        ...(taint !== undefined ? { taint } : {}),
        ...(release ? { release } : {}),
        kind: wanted.kind ?? 'marks',
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

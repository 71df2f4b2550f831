// The conflict hold (issue 33): while a pool's NodeConfigs do not render (RenderDegraded True:
// conflicting configs, an invalid one, a missing Secret), or are settling (a change not rendered yet,
// which may supersede the target or turn out to conflict), no node of the pool starts an update to a
// revision other than the pool's last complete one. A target rendered earlier from a subset of the
// configs (the first object of a `kubectl apply -f` alone, before the conflicting second arrived) is
// held, not rolled out: the strategy decides as if the pool were paused (nodes in flight finish, as
// after spec.paused), and whatever of its decision would still hand a node another revision is dropped
// here, whatever the strategy: starts, desired-revision hand-outs (a joining node's too) and OTA offers,
// an offer already made is withdrawn (an agent may copy an offer into desired-revision).

import { AVAILABLE_REVISION_ANNOTATION, DESIRED_REVISION_ANNOTATION } from '../../api/node-protocol.ts';
import type { NodeMarks } from '../strategies/node-marks.ts';
import type { StrategyDecision } from '../strategies/strategy.ts';
import type { StrategyNode } from '../strategies/strategy-node.ts';
import type { RenderOutcome } from './pool-status.ts';

export interface RenderHold {
  /** The held target. */
  revision: string;
  /** The revision nodes may still be given (the last complete one), if any. */
  allowed?: string;
  reason: string;
  /** The reason of Progressing and Complete while held (default HELD_REASON, RenderHeld). */
  conditionReason?: string;
  message: string;
}

/** The hold, when the rendering fails and the target is not the last complete revision. */
export function renderHold(
  render: RenderOutcome,
  target: string | undefined,
  lastComplete: string | undefined,
): RenderHold | undefined {
  if ((!render.problem && !render.settling) || !target || target === lastComplete) return undefined;
  const to = lastComplete ? `stay on ${lastComplete} (the last complete revision)` : 'keep what they run';
  const why = render.problem
    ? `while the NodeConfigs do not render (${render.problem.reason})`
    : 'while the NodeConfigs settle (changed within the quiet period)';
  return {
    revision: target,
    ...(lastComplete ? { allowed: lastComplete } : {}),
    reason: render.problem ? render.problem.reason : 'Settling',
    message: `rollout of ${target} held ${why}: nodes that have not started it ${to}; nodes in flight finish`,
  };
}

function allowedValue(value: string | null | undefined, allowed: string | undefined): boolean {
  return value === null || value === undefined || value === allowed;
}

/** The decision with every hand-out of a revision other than the allowed one taken out. */
export function holdDecision(
  decision: StrategyDecision,
  hold: RenderHold,
  nodes: readonly StrategyNode[],
): StrategyDecision {
  const marks: NodeMarks[] = [];
  const marked = new Set<string>();
  for (const mark of decision.marks) {
    marked.add(mark.node);
    const annotations = { ...mark.annotations };
    for (const key of [DESIRED_REVISION_ANNOTATION, AVAILABLE_REVISION_ANNOTATION])
      if (!allowedValue(annotations[key], hold.allowed)) delete annotations[key];
    const node = nodes.find((n) => n.name === mark.node);
    if (node?.available !== undefined && !allowedValue(node.available, hold.allowed))
      annotations[AVAILABLE_REVISION_ANNOTATION] = null;
    const handsOut = annotations[DESIRED_REVISION_ANNOTATION] !== undefined;
    marks.push({ ...mark, annotations, kind: handsOut ? mark.kind : 'marks' });
  }
  // An offer made before the hold, on a node the strategy has nothing else to say about.
  for (const node of nodes) {
    if (marked.has(node.name) || node.available === undefined) continue;
    if (allowedValue(node.available, hold.allowed)) continue;
    marks.push({ node: node.name, annotations: { [AVAILABLE_REVISION_ANNOTATION]: null }, kind: 'marks' });
  }
  const noStarts = <T extends { starts: unknown[] }>(d: T | undefined): T | undefined =>
    d ? { ...d, starts: [] } : undefined;
  const rollout = noStarts(decision.rollout);
  const upgrades = noStarts(decision.upgrades);
  const { rollout: _r, upgrades: _u, ...rest } = decision;
  return { ...rest, marks, ...(rollout ? { rollout } : {}), ...(upgrades ? { upgrades } : {}) };
}

// Which revision a pool rolls out. Normally the one its NodeConfigs render to now. A rollback (by the
// failure policy, or requested with spec.rollbackTo) pins the pool to an older revision for as long as
// the NodeConfigs still render the revision it left: a new config change ends the pin. A rendering that
// fails keeps the pool on its current target. A rollback goes to the last completed revision, and a
// revision every node ran healthy counts as completed even when a new one superseded it during its
// last soak (ranHealthyOnEveryNode): its soak only waited for a failure that did not come.

import { isHealthy } from '../rollout/node-verdict.ts';
import type { NodeSnapshot, NumberedRevision } from '../rollout/types.ts';

export interface RolloutPin {
  /** The revision the pool stays on. */
  to: string;
  /** The rendered revision held back. */
  from: string;
}

export interface TargetInput {
  /** What the NodeConfigs render to now; undefined when rendering failed. */
  latest?: NumberedRevision;
  /** status.targetRevision. */
  statusTarget?: string;
  /** spec.rollbackTo.revision. */
  rollbackTo?: number;
  pin?: RolloutPin;
  /** The pool's revisions. */
  revisions: readonly NumberedRevision[];
}

export interface TargetChoice {
  target?: NumberedRevision;
  /** New pin; null removes it; undefined leaves it. */
  pin?: RolloutPin | null;
  /** spec.rollbackTo was handled (done or impossible) and is to be cleared. */
  clearRollbackTo: boolean;
  rollbackRequest?: { ok: true; to: NumberedRevision } | { ok: false; message: string };
  /** How the target was chosen. */
  source: 'Rendered' | 'Pinned' | 'RollbackRequested' | 'Kept' | 'None';
}

export function chooseTarget(input: TargetInput): TargetChoice {
  const byName = new Map(input.revisions.map((r) => [r.name, r]));
  if (input.rollbackTo !== undefined) {
    const to = input.revisions.find((r) => r.number === input.rollbackTo);
    if (!to) {
      const rest = chooseTarget({ ...input, rollbackTo: undefined });
      return {
        ...rest,
        clearRollbackTo: true,
        rollbackRequest: { ok: false, message: `revision ${input.rollbackTo} does not exist (any more)` },
      };
    }
    const from = input.latest?.name ?? input.statusTarget;
    return {
      target: to,
      pin: from && from !== to.name ? { to: to.name, from } : null,
      clearRollbackTo: true,
      rollbackRequest: { ok: true, to },
      source: 'RollbackRequested',
    };
  }
  let pin: RolloutPin | null | undefined;
  if (input.pin) {
    const to = byName.get(input.pin.to);
    if (to && (input.latest === undefined || input.latest.name === input.pin.from)) {
      return { target: to, clearRollbackTo: false, source: 'Pinned' };
    }
    pin = null;
  }
  if (input.latest) return { target: input.latest, pin, clearRollbackTo: false, source: 'Rendered' };
  const kept = input.statusTarget ? byName.get(input.statusTarget) : undefined;
  return kept
    ? { target: kept, pin, clearRollbackTo: false, source: 'Kept' }
    : { pin, clearRollbackTo: false, source: 'None' };
}

/**
 * Every member runs `revision`, settled and healthy: its rollout lacks nothing but the rest of its
 * last soak. Superseded then, it is still a revision every node ran healthy, and so a rollback target.
 */
export function ranHealthyOnEveryNode(nodes: readonly NodeSnapshot[], revision: string): boolean {
  return nodes.length > 0 && nodes.every((n) => n.currentRevision === revision && isHealthy(n));
}

/** What the superseded rollout's record says when it counts as complete. */
export const RAN_HEALTHY_MESSAGE =
  'every node ran it healthy; superseded before its last soak ended, it counts as completed (a rollback target)';

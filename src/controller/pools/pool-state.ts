// Where a pool's rollout stands, as one value the reconcile steps hand on (target, history, pause,
// rollback pin), so no step changes another's locals: each returns the next state.

import type { NodeConfigPool } from '../../api/types.ts';
import { ROLLBACK_FROM_ANNOTATION, ROLLBACK_TO_ANNOTATION } from '../annotations.ts';
import type { RolloutRecord } from '../revisions/rollout-history.ts';
import type { RolloutPin } from '../revisions/rollout-target.ts';
import type { NumberedRevision } from '../rollout/types.ts';
import type { WaveHold } from '../waves/wave-gate.ts';

export interface PoolState {
  target?: NumberedRevision;
  lastComplete?: NumberedRevision;
  history: RolloutRecord[];
  paused: boolean;
  /** Why the failure policy paused the pool, while it stays paused. */
  pausedByFailure?: string;
  pin?: RolloutPin;
  /** The RolledBack condition's reason and message, while rolled back. */
  rollback?: { reason: string; message: string };
  /** A new revision waiting for other pools (waves), and when to look again. */
  wave?: WaveHold;
}

/**
 * The Paused condition when the failure policy, not a person, paused the pool (spec.paused is true
 * either way; the condition's reason tells them apart, and its message says what failed).
 */
export function failurePolicyPause(
  pool: NodeConfigPool,
): NonNullable<NonNullable<NodeConfigPool['status']>['conditions']>[number] | undefined {
  if (pool.spec.paused !== true) return undefined;
  const paused = pool.status?.conditions?.find((c) => c.type === 'Paused');
  return paused?.status === 'True' && paused.reason === 'FailurePolicy' ? paused : undefined;
}

export function readPin(pool: NodeConfigPool): RolloutPin | undefined {
  const a = pool.metadata.annotations ?? {};
  const to = a[ROLLBACK_TO_ANNOTATION];
  const from = a[ROLLBACK_FROM_ANNOTATION];
  return to && from ? { to, from } : undefined;
}

/** The annotations pinning the pool to a revision (null: remove). */
export function pinPatch(pin: RolloutPin | undefined): {
  metadata: { annotations: Record<string, string | null> };
} {
  return {
    metadata: {
      annotations: {
        [ROLLBACK_TO_ANNOTATION]: pin?.to ?? null,
        [ROLLBACK_FROM_ANNOTATION]: pin?.from ?? null,
      },
    },
  };
}

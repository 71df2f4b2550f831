// The target step of a pool reconcile: which revision the pool rolls out (the newest rendering, a
// rollback request, or a rollback pin), the pin written or lifted, the RolledBack condition's words,
// and a new rollout begun in the history when the target changes.

import type { DefaultedPoolSpec } from '../../api/pool-defaults.ts';
import type { NodeConfigPool } from '../../api/types.ts';
import { findCondition, kubeTime, type StatusCondition } from '../../kube/conditions.ts';
import { type ControllerContext, poolSubject } from '../controller-context.ts';
import { beginRollout, endRollout, type RolloutRecord } from '../revisions/rollout-history.ts';
import { chooseTarget, RAN_HEALTHY_MESSAGE, type RolloutPin } from '../revisions/rollout-target.ts';
import type { NumberedRevision } from '../rollout/types.ts';
import type { WaveGate } from '../waves/wave-gate.ts';
import type { PoolRendering } from './pool-render.ts';
import { type PoolState, pinPatch, readPin } from './pool-state.ts';
import type { PoolWriter } from './pool-writer.ts';

type TargetChoice = ReturnType<typeof chooseTarget>;

function rollbackCondition(
  pool: NodeConfigPool,
  choice: TargetChoice,
  pin: RolloutPin | undefined,
): PoolState['rollback'] {
  if (choice.rollbackRequest?.ok) {
    const to = choice.rollbackRequest.to;
    return {
      reason: 'RollbackRequested',
      message: `rolled back to ${to.name} (revision ${to.number}) as spec.rollbackTo asked`,
    };
  }
  if (!pin || choice.source !== 'Pinned') return undefined;
  const previous = findCondition(pool.status?.conditions as StatusCondition[] | undefined, 'RolledBack');
  return previous?.status === 'True'
    ? { reason: previous.reason ?? 'RolledBack', message: previous.message ?? '' }
    : { reason: 'RolledBack', message: `staying on ${pin.to} while the NodeConfigs render ${pin.from}` };
}

/** The pool's paused state: spec.paused, and why when the failure policy paused it. */
function pauseOf(
  pool: NodeConfigPool,
  spec: DefaultedPoolSpec,
): Pick<PoolState, 'paused' | 'pausedByFailure'> {
  const previous = findCondition(pool.status?.conditions as StatusCondition[] | undefined, 'Paused');
  const byFailure = spec.paused && previous?.status === 'True' && previous.reason === 'FailurePolicy';
  return {
    paused: spec.paused,
    ...(byFailure ? { pausedByFailure: previous.message ?? 'paused by the failure policy' } : {}),
  };
}

export async function resolveTarget(
  ctx: ControllerContext,
  writer: PoolWriter,
  pool: NodeConfigPool,
  spec: DefaultedPoolSpec,
  rendering: PoolRendering,
  revisions: readonly NumberedRevision[],
  now: number,
  waves: WaveGate,
  ranHealthy: (revision: string) => boolean,
): Promise<PoolState> {
  const name = pool.metadata.name;
  const subject = poolSubject(pool);
  const status = pool.status;
  let pin = readPin(pool);
  const choice = chooseTarget({
    latest: rendering.latest,
    statusTarget: status?.targetRevision,
    rollbackTo: spec.rollbackTo?.revision,
    pin,
    revisions,
  });
  if (choice.clearRollbackTo || choice.pin !== undefined) {
    pin = choice.pin === undefined ? pin : (choice.pin ?? undefined);
    await writer.patchPool(name, {
      ...pinPatch(pin),
      ...(choice.clearRollbackTo ? { spec: { rollbackTo: null } } : {}),
    });
    if (choice.rollbackRequest?.ok === false)
      ctx.recorder.warning(subject, 'RollbackFailed', `spec.rollbackTo: ${choice.rollbackRequest.message}`);
  }
  const rollback = rollbackCondition(pool, choice, pin);
  if (choice.rollbackRequest?.ok) ctx.metrics.rollbacks.inc({ pool: name, reason: 'RollbackRequested' });

  // Waves: a new rendered revision waits until the pools this one follows are done (src/controller/waves).
  const wave = waves.gate(pool, choice, new Map(revisions.map((r) => [r.name, r])), now);
  const target = wave.target;
  let history: RolloutRecord[] = (status?.history as RolloutRecord[] | undefined) ?? [];
  let lastComplete = status?.currentRevision
    ? revisions.find((r) => r.name === status.currentRevision)
    : undefined;
  // A new rendering supersedes a rollout every node already runs healthy (its last soak still going):
  // that revision completed in all but the soak, and a failure of the new one rolls back to it.
  const previous = status?.targetRevision;
  if (
    target &&
    previous &&
    previous !== target.name &&
    choice.source === 'Rendered' &&
    history.at(-1)?.name === previous &&
    history.at(-1)?.result === 'InProgress' &&
    ranHealthy(previous)
  ) {
    history = endRollout(history, previous, 'Complete', kubeTime(now), RAN_HEALTHY_MESSAGE);
    lastComplete = revisions.find((r) => r.name === previous) ?? lastComplete;
  }
  if (target && status?.targetRevision !== target.name) {
    const byRollback = choice.source === 'RollbackRequested' || choice.source === 'Pinned';
    history = beginRollout(history, target, kubeTime(now), byRollback ? 'RolledBack' : 'Superseded', {
      ...(byRollback ? { ended: rollback?.message, started: `rollback: ${rollback?.message ?? ''}` } : {}),
    });
    ctx.metrics.rolloutsStarted.inc({ pool: name });
    ctx.recorder.normal(subject, 'RolloutStarted', `rolling out ${target.name} (revision ${target.number})`);
  }
  return {
    ...(target ? { target } : {}),
    ...(lastComplete ? { lastComplete } : {}),
    history,
    ...pauseOf(pool, spec),
    ...(pin ? { pin } : {}),
    ...(rollback ? { rollback } : {}),
    ...(wave.hold ? { wave: wave.hold } : {}),
  };
}

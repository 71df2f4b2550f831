// What a pool that others wait for (a predecessor in a wave) tells them: done with its current revision
// and since when, or why not. Read from its object and from what its NodeConfigs render to now, which the
// waiting pool computes from the same cache as its own rendering: a config change that reaches both pools
// holds the follower at once, before the predecessor's controller has even adopted the new revision.

import type { NodeConfigPool } from '../../api/types.ts';
import { findCondition } from '../../kube/conditions.ts';
import { plural } from '../plural.ts';

export interface PredecessorState {
  name: string;
  /** Why it is not done (phrased to follow its name); undefined when done. */
  hold?: string;
  /** Done: when its current revision completed (ms), when known. */
  completedAt?: number;
}

/**
 * @param rendered the revision name the pool's NodeConfigs render to now; undefined when they do not
 *   render (conflict, invalid, no config selected).
 */
export function predecessorState(pool: NodeConfigPool, rendered: string | undefined): PredecessorState {
  const name = pool.metadata.name;
  const status = pool.status ?? {};
  const condition = (type: string) => findCondition(status.conditions, type);
  const held = (hold: string): PredecessorState => ({ name, hold });

  if (pool.metadata.deletionTimestamp) return held('is being deleted');
  if (pool.spec.paused) {
    const paused = condition('Paused');
    return held(
      paused?.reason === 'FailurePolicy'
        ? `is paused by its failure policy: ${paused.message ?? ''}`
        : 'is paused (spec.paused)',
    );
  }
  const rolledBack = condition('RolledBack');
  if (rolledBack?.status === 'True') return held(`rolled back: ${rolledBack.message ?? rolledBack.reason}`);
  if ((status.observedGeneration ?? -1) < (pool.metadata.generation ?? 0))
    return held('has a spec change the controller has not acted on yet');
  if (rendered === undefined) {
    const render = condition('RenderDegraded');
    return held(
      `cannot render its NodeConfigs${render?.status === 'True' ? ` (${render.reason}: ${render.message})` : ''}`,
    );
  }
  const target = status.targetRevision;
  if (!target) return held('has no revision yet');
  if (rendered !== target) {
    const progressing = condition('Progressing');
    const why = ['WaitingForPools', 'WaveCycle'].includes(progressing?.reason ?? '')
      ? ` (${progressing?.reason})`
      : '';
    return held(`has not started rolling out ${rendered}${why}`);
  }
  const history = status.history ?? [];
  const last = history[history.length - 1];
  if (last?.result === 'Failed' && last.name === target)
    return held(`failed rolling out ${target}${last.message ? `: ${last.message}` : ''}`);
  const complete = condition('Complete');
  if (complete?.status !== 'True' || status.currentRevision !== target) {
    return held(`is rolling out ${target} (${status.updated ?? 0}/${status.nodes ?? 0} nodes updated)`);
  }
  if ((status.failed ?? 0) > 0) return held(`has ${plural(status.failed ?? 0, 'failed node')}`);
  const record = [...history].reverse().find((r) => r.name === target && r.result === 'Complete');
  const completedAt = Date.parse(record?.finishedAt ?? complete.lastTransitionTime ?? '');
  return Number.isNaN(completedAt) ? { name } : { name, completedAt };
}

// The failure policy, carried out once for every strategy: pause the pool, or pin it to the last
// completed revision and roll back; and, when someone resumes a pool the policy paused, the open
// rollout goes on (the nodes a strategy names get a fresh deadline).

import type { NodeConfigPool } from '../../api/types.ts';
import { findCondition, kubeTime, type StatusCondition } from '../../kube/conditions.ts';
import { type ControllerContext, poolSubject } from '../controller-context.ts';
import type { DecisionExecutor } from '../decision-executor.ts';
import { beginRollout, endRollout } from '../revisions/rollout-history.ts';
import type { FailureAction, NumberedRevision } from '../rollout/types.ts';
import { observeRolloutEnd } from './pool-metrics.ts';
import { type PoolState, pinPatch } from './pool-state.ts';
import type { PoolWriter } from './pool-writer.ts';

type Targeted = PoolState & { target: NumberedRevision };

/** The failure policy paused the pool and it is no longer paused. */
export function resumedAfterFailure(pool: NodeConfigPool, state: PoolState): boolean {
  const previous = findCondition(pool.status?.conditions as StatusCondition[] | undefined, 'Paused');
  return !state.paused && previous?.status === 'True' && previous.reason === 'FailurePolicy';
}

export class FailurePolicy {
  private readonly ctx: ControllerContext;
  private readonly writer: PoolWriter;
  private readonly executor: DecisionExecutor;

  constructor(ctx: ControllerContext, writer: PoolWriter, executor: DecisionExecutor) {
    this.ctx = ctx;
    this.writer = writer;
    this.executor = executor;
  }

  /** The rollout the policy stopped is open again. */
  reopen(state: Targeted, now: number): Targeted {
    return {
      ...state,
      history: endRollout(state.history, state.target.name, 'InProgress', kubeTime(now), 'resumed'),
    };
  }

  /** Gives the nodes to retry a fresh deadline and says so; returns the failed writes. */
  async retry(pool: NodeConfigPool, nodes: readonly string[]): Promise<unknown[]> {
    const errors = nodes.length > 0 ? await this.executor.restamp(nodes) : [];
    for (const n of nodes) this.ctx.health.forget(n);
    this.ctx.recorder.normal(
      poolSubject(pool),
      'Resumed',
      `resumed${nodes.length ? `; retrying ${nodes.join(', ')}` : ''}`,
    );
    return errors;
  }

  async apply(pool: NodeConfigPool, state: Targeted, action: FailureAction, now: number): Promise<Targeted> {
    const { ctx } = this;
    const name = pool.metadata.name;
    if (action.action === 'Pause') {
      await this.writer.patchPool(name, { spec: { paused: true } });
      const history = endRollout(state.history, state.target.name, 'Failed', kubeTime(now), action.message);
      observeRolloutEnd(ctx.metrics, name, history, 'Failed', now);
      return { ...state, paused: true, pausedByFailure: action.message, history };
    }
    if (action.action !== 'Rollback' || !action.to) return state;
    const from = state.target;
    const pin = { to: action.to.name, from: from.name };
    await this.writer.patchPool(name, pinPatch(pin));
    observeRolloutEnd(ctx.metrics, name, state.history, 'RolledBack', now);
    ctx.metrics.rollbacks.inc({ pool: name, reason: 'FailurePolicy' });
    ctx.metrics.rolloutsStarted.inc({ pool: name });
    return {
      ...state,
      target: action.to,
      pin,
      rollback: { reason: 'FailurePolicy', message: action.message },
      history: beginRollout(state.history, action.to, kubeTime(now), 'RolledBack', {
        ended: action.message,
        started: `rollback from ${from.name}`,
      }),
    };
  }
}

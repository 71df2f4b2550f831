// The wave step of a pool's reconcile (pools/pool-target.ts calls it before a new rollout begins): when
// the NodeConfigs render a new revision and the pool waits for other pools (spec.updateStrategy.wave),
// the pool keeps rolling out its current target until decideWave says go. Rollbacks (by the failure
// policy or spec.rollbackTo) and a pool's first revision never wait.

import type { NodeConfigPool } from '../../api/types.ts';
import type { ControllerContext } from '../controller-context.ts';
import type { PoolRenderer } from '../pools/pool-render.ts';
import type { TargetChoice } from '../revisions/rollout-target.ts';
import type { NumberedRevision } from '../rollout/types.ts';
import { decideWave, type WaveReason } from './decide-wave.ts';
import { predecessorState } from './predecessor.ts';
import { waveCycle, waveNode } from './wave-graph.ts';

export interface WaveHold {
  reason: WaveReason;
  message: string;
  /** Reconcile again then (a predecessor's soak ends). */
  requeueAfterMs?: number;
}

export interface WaveGateResult {
  /** The revision to roll out now. */
  target?: NumberedRevision;
  /** Set when a new revision waits. */
  hold?: WaveHold;
}

export class WaveGate {
  private readonly ctx: ControllerContext;
  private readonly renderer: PoolRenderer;

  constructor(ctx: ControllerContext, renderer: PoolRenderer) {
    this.ctx = ctx;
    this.renderer = renderer;
  }

  gate(
    pool: NodeConfigPool,
    choice: TargetChoice,
    revisions: ReadonlyMap<string, NumberedRevision>,
    now: number,
  ): WaveGateResult {
    const wave = pool.spec.updateStrategy?.wave;
    const current = pool.status?.targetRevision;
    const kept = current ? revisions.get(current) : undefined;
    const starting = choice.source === 'Rendered' && choice.target && choice.target.name !== current;
    if (!wave?.after.length || !starting || !kept) return choice.target ? { target: choice.target } : {};

    const pools = this.ctx.informers.pools;
    const predecessors = new Map(
      wave.after.map((name) => {
        const p = pools.get(name);
        return [name, p ? predecessorState(p, this.renderer.renderedName(p)) : undefined] as const;
      }),
    );
    const cycle = waveCycle(pool.metadata.name, pools.list().map(waveNode));
    const decision = decideWave({
      after: wave.after,
      soakSeconds: wave.soakSeconds ?? 0,
      predecessors,
      ...(cycle ? { cycle } : {}),
      now,
    });
    if (decision.go) return { target: choice.target! };
    const next = choice.target!;
    return {
      target: kept,
      hold: {
        reason: decision.reason,
        message: `${next.name} (revision ${next.number}) waits: ${decision.message}`,
        ...(decision.requeueAfterMs !== undefined ? { requeueAfterMs: decision.requeueAfterMs } : {}),
      },
    };
  }
}

// Per-node duties outside any one pool's rollout: a node the controller cordoned that no longer belongs
// to exactly one pool (its pool was deleted, its labels changed, a second pool selects it) is
// uncordoned and its drain stopped, so no cordon of ours outlives its rollout; and a node selected by
// several pools gets the NodeConfigPoolConflict condition (and an Event) until only one selects it.

import { kubeTime } from '../../kube/conditions.ts';
import type { Node } from '../../kube/types.ts';
import { CORDONED_BY_ANNOTATION, DRAINING_FOR_ANNOTATION, POOL_CONFLICT_CONDITION } from '../annotations.ts';
import { nodePath } from '../api-paths.ts';
import { type ControllerContext, type Informers, nodeSubject } from '../controller-context.ts';
import type { DecisionExecutor } from '../decision-executor.ts';
import { hasRolloutMarks, syncNextInLineTaints } from '../drain/next-in-line-taint.ts';
import { syncSkipMarks } from '../drain/skip-marks.ts';
import { uncordonPatch } from '../node-updates.ts';
import { type KeyReconciler, poolsOfNode } from '../reconciler.ts';
import { initialNodes, watchNodes } from './node-watches.ts';

export class NodeReconciler implements KeyReconciler {
  readonly kind = 'node';
  private readonly ctx: ControllerContext;
  private readonly executor: DecisionExecutor;

  constructor(ctx: ControllerContext, executor: DecisionExecutor) {
    this.ctx = ctx;
    this.executor = executor;
  }

  initialKeys(informers: Informers): string[] {
    return initialNodes(informers);
  }

  watch(informers: Informers, enqueue: (name: string) => void): void {
    watchNodes(informers, enqueue);
  }

  async reconcile(name: string): Promise<undefined> {
    const { ctx } = this;
    const node = ctx.informers.nodes.get(name);
    if (!node) {
      ctx.drainer.stop(name);
      ctx.health.forget(name);
      return undefined;
    }
    const pools = poolsOfNode(ctx.informers, node);
    const a = node.metadata.annotations ?? {};
    if (
      pools.length !== 1 &&
      (a[CORDONED_BY_ANNOTATION] !== undefined || a[DRAINING_FOR_ANNOTATION] !== undefined)
    ) {
      ctx.drainer.stop(name);
      const ours = a[CORDONED_BY_ANNOTATION] !== undefined;
      const updated = await this.executor.patchNode(name, uncordonPatch(ours, true));
      ctx.recorder.normal(
        nodeSubject(updated),
        ours ? 'Uncordoned' : 'DrainAborted',
        pools.length === 0
          ? 'no NodeConfigPool selects this node any more'
          : `selected by several NodeConfigPools (${pools.join(', ')})`,
      );
    }
    // Nor a next-in-line taint or a drain-skipped mark (issue 34): they belong to one pool's rollout.
    if (pools.length !== 1 && hasRolloutMarks(node)) {
      await syncNextInLineTaints(ctx, [name], [], pools.length === 0 ? '(none)' : pools.join(', '));
      await syncSkipMarks(ctx, [{ name }]);
    }
    await this.reportConflict(node, pools);
    return undefined;
  }

  private async reportConflict(node: Node, pools: string[]): Promise<void> {
    const existing = (node.status?.conditions ?? []).find((c) => c.type === POOL_CONFLICT_CONDITION);
    const conflict = pools.length > 1;
    if (!conflict && (!existing || existing.status === 'False')) return;
    const message = conflict
      ? `selected by NodeConfigPools ${pools.join(', ')}: none of them manages this node until only one selects it`
      : 'selected by at most one NodeConfigPool';
    if (existing && existing.status === (conflict ? 'True' : 'False') && existing.message === message) return;
    const now = kubeTime(this.ctx.now());
    const condition = {
      type: POOL_CONFLICT_CONDITION,
      status: conflict ? 'True' : 'False',
      reason: conflict ? 'SelectedByMultiplePools' : 'SelectedByOnePool',
      message,
      lastHeartbeatTime: now,
      lastTransitionTime:
        existing && existing.status === (conflict ? 'True' : 'False') ? existing.lastTransitionTime : now,
    };
    // Strategic merge: conditions merge by type, so the kubelet's own conditions are untouched.
    const updated = await this.ctx.client.patch<Node>(
      nodePath(node.metadata.name, 'status'),
      { status: { conditions: [condition] } },
      'strategic',
    );
    this.ctx.informers.nodes.upsert(updated);
    if (conflict) this.ctx.recorder.warning(nodeSubject(updated), 'NodeInMultiplePools', message);
  }
}

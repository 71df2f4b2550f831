// The next-in-line taint (spec.rolloutOrder.preferNoScheduleNext): the nodes of the next batch carry
// nodeherd.io/next-in-line:PreferNoSchedule while the current batch drains, so the scheduler prefers
// nodes already done for the pods evicted now, and they are not moved a second time when their new
// node's turn comes (MCO#2059). The rollout decision names the nodes that should carry it
// (RolloutDecision.taintNext); every other node of the pool loses it: when its turn comes, or the
// rollout pauses, rolls back or is replanned. Written before the batch's drains start.

import { NEXT_IN_LINE_TAINT_KEY } from '../../api/pool-order-schema.ts';
import type { Node } from '../../kube/types.ts';
import { nodePath } from '../api-paths.ts';
import { type ControllerContext, nodeSubject, runLimited } from '../controller-context.ts';
import { DRAIN_SKIPPED_LABEL } from './skip-marks.ts';

export { NEXT_IN_LINE_TAINT_KEY };
export const NEXT_IN_LINE_TAINT_EFFECT = 'PreferNoSchedule';

type TaintList = NonNullable<NonNullable<Node['spec']>['taints']>;

export function hasNextInLineTaint(node: Node): boolean {
  return (node.spec?.taints ?? []).some((t) => t.key === NEXT_IN_LINE_TAINT_KEY);
}

/** The node carries a mark of one pool's rollout: the next-in-line taint or the drain-skipped label. */
export function hasRolloutMarks(node: Node): boolean {
  return hasNextInLineTaint(node) || node.metadata.labels?.[DRAIN_SKIPPED_LABEL] !== undefined;
}

/**
 * Puts the taint on `wanted` and takes it off the other `members` (names of the pool's nodes).
 * Returns the errors of writes that failed (the pool is retried).
 */
export async function syncNextInLineTaints(
  ctx: ControllerContext,
  members: readonly string[],
  wanted: readonly string[],
  pool: string,
): Promise<unknown[]> {
  const want = new Set(wanted);
  const changes: { node: Node; taint: boolean }[] = [];
  for (const name of members) {
    const node = ctx.informers.nodes.get(name);
    if (!node) continue;
    const has = hasNextInLineTaint(node);
    if (want.has(name) !== has) changes.push({ node, taint: !has });
  }
  return runLimited(changes, ctx.writeConcurrency, async ({ node, taint }) => {
    const others: TaintList = (node.spec?.taints ?? []).filter((t) => t.key !== NEXT_IN_LINE_TAINT_KEY);
    const taints = taint
      ? [...others, { key: NEXT_IN_LINE_TAINT_KEY, value: pool, effect: NEXT_IN_LINE_TAINT_EFFECT }]
      : others;
    // The taint list is replaced whole: the resourceVersion makes a concurrent change fail (409, retried).
    const updated = await ctx.client.patch<Node>(
      nodePath(node.metadata.name),
      {
        metadata: node.metadata.resourceVersion ? { resourceVersion: node.metadata.resourceVersion } : {},
        spec: { taints },
      },
      'merge',
    );
    ctx.informers.nodes.upsert(updated);
    ctx.recorder.normal(
      nodeSubject(updated),
      taint ? 'NextInLine' : 'NextInLineEnded',
      taint
        ? `pool ${pool}: next in line; tainted ${NEXT_IN_LINE_TAINT_KEY}:${NEXT_IN_LINE_TAINT_EFFECT} so pods evicted now prefer nodes already done`
        : `pool ${pool}: no longer next in line (its turn came, or the rollout paused, rolled back or was replanned); taint removed`,
    );
  });
}

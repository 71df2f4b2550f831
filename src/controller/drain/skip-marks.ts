// The marks of a node skipped under spec.drain.onTimeout Skip (the rollout decision's DrainSkipped):
// a label to select such nodes by (`kubectl get nodes -l nodeherd.io/drain-skipped`), an annotation
// and a Node condition saying why (the PodDisruptionBudget and pods that block), and a Warning Event.
// They go when the node is no longer skipped: its drain finished, the rollout moved on to another
// target (rollback, new revision) or the pool stopped skipping. The decision itself needs none of
// them (it judges from draining-for and update-started), so a restarted controller skips the same
// nodes; the marks are for people and tools.

import type { Node } from '../../kube/types.ts';
import { kubeTime } from '../../util/kube-time.ts';
import { nodePath } from '../api-paths.ts';
import { type ControllerContext, nodeSubject, runLimited } from '../controller-context.ts';
import type { NodeVerdict } from '../rollout/types.ts';

export const DRAIN_SKIPPED_LABEL = 'nodeherd.io/drain-skipped';
export const DRAIN_SKIPPED_ANNOTATION = 'nodeherd.io/drain-skipped';
/** Node condition written by the controller (agents may not write it: not one of AGENT_CONDITIONS). */
export const DRAIN_SKIPPED_CONDITION = 'NodeConfigDrainSkipped';

/** Annotation values are free text, but a budget's message need not be read in full on a Node. */
const MAX_REASON_LENGTH = 1024;

/** A node's verdict as far as the marks go (no phase: not skipped). */
type SkipVerdict = Pick<NodeVerdict, 'name'> & Partial<Pick<NodeVerdict, 'phase' | 'detail'>>;

function reasonText(verdict: SkipVerdict): string {
  const text = verdict.detail ?? 'skipped: its drain did not finish in time';
  return text.length > MAX_REASON_LENGTH ? `${text.slice(0, MAX_REASON_LENGTH - 1)}…` : text;
}

function markPatch(reason: string | undefined) {
  return {
    metadata: {
      labels: { [DRAIN_SKIPPED_LABEL]: reason === undefined ? null : 'true' },
      annotations: { [DRAIN_SKIPPED_ANNOTATION]: reason ?? null },
    },
  };
}

/**
 * Marks the pool's skipped nodes and clears the marks of its nodes no longer skipped. Returns the
 * errors of writes that failed (the pool is retried).
 */
export async function syncSkipMarks(
  ctx: ControllerContext,
  verdicts: readonly SkipVerdict[],
): Promise<unknown[]> {
  const changes: { name: string; reason: string | undefined }[] = [];
  for (const v of verdicts) {
    const node = ctx.informers.nodes.get(v.name);
    if (!node) continue;
    const marked = node.metadata.labels?.[DRAIN_SKIPPED_LABEL] !== undefined;
    if (v.phase === 'DrainSkipped' && !marked) changes.push({ name: v.name, reason: reasonText(v) });
    else if (v.phase !== 'DrainSkipped' && marked) changes.push({ name: v.name, reason: undefined });
  }
  return runLimited(changes, ctx.writeConcurrency, async ({ name, reason }) => {
    const patched = await ctx.client.patch<Node>(nodePath(name), markPatch(reason), 'merge');
    ctx.informers.nodes.upsert(patched);
    const updated = await writeCondition(ctx, patched, reason);
    await writeCondition(ctx, updated, reason);
    if (reason !== undefined) ctx.recorder.warning(nodeSubject(updated), 'DrainSkipped', reason);
    else
      ctx.recorder.normal(
        nodeSubject(updated),
        'DrainSkipEnded',
        'no longer skipped: the rollout has it again',
      );
  });
}

async function writeCondition(ctx: ControllerContext, node: Node, reason: string | undefined): Promise<Node> {
  const now = kubeTime(ctx.now());
  const condition = {
    type: DRAIN_SKIPPED_CONDITION,
    status: reason === undefined ? 'False' : 'True',
    reason: reason === undefined ? 'NotSkipped' : 'DrainTimedOut',
    message: reason ?? 'the node is not skipped',
    lastHeartbeatTime: now,
    lastTransitionTime: now,
  };
  // Strategic merge: conditions merge by type, so the kubelet's and the agent's are untouched.
  const updated = await ctx.client.patch<Node>(
    nodePath(node.metadata.name, 'status'),
    { status: { conditions: [condition] } },
    'strategic',
  );
  ctx.informers.nodes.upsert(updated);
  return updated;
}

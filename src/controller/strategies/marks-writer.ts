// Writes the node marks a strategy decided (annotations and our taint, one patch per node, lifting a
// cordon of ours where asked), with the Events that say so. A strategy's runtime may say which of a
// mark's annotations are still to be written (a write of its own may have told the node already).
// Writes that fail are collected and the pool is retried, like the rollout decision's writes.

import { OUTDATED_TAINT_KEY } from '../../api/node-protocol.ts';
import type { Node } from '../../kube/types.ts';
import { CORDONED_BY_ANNOTATION } from '../annotations.ts';
import { type ControllerContext, nodeSubject, runLimited } from '../controller-context.ts';
import type { DecisionExecutor } from '../decision-executor.ts';
import { type NodePatch, uncordonPatch } from '../node-updates.ts';
import type { NodeMarks } from './node-marks.ts';

type TaintList = { key: string; value?: string; effect: string }[];

function describeHandout(annotations: Record<string, string | null>): string {
  const gates = Object.entries(annotations)
    .filter(([key, value]) => value !== null && key !== 'nodeherd.io/desired-revision')
    .map(([key, value]) => `${key}=${value}`);
  return gates.length > 0 ? ` (${gates.join(', ')})` : '';
}

/** A mark's annotations as they are to be written now, the Node as the cache has it. */
export type AnnotationsToWrite = (mark: NodeMarks, node: Node) => Record<string, string | null>;

export class MarksWriter {
  private readonly ctx: ControllerContext;
  private readonly nodes: DecisionExecutor;

  constructor(ctx: ControllerContext, nodes: DecisionExecutor) {
    this.ctx = ctx;
    this.nodes = nodes;
  }

  async applyMarks(
    pool: string,
    target: string,
    marks: readonly NodeMarks[],
    toWrite: AnnotationsToWrite = (mark) => mark.annotations,
  ): Promise<unknown[]> {
    const { ctx } = this;
    return runLimited(marks, ctx.writeConcurrency, async (mark) => {
      const node = ctx.informers.nodes.get(mark.node);
      if (!node) return;
      const annotations = toWrite(mark, node);
      if (Object.keys(annotations).length === 0 && mark.taint === undefined && !mark.release) return;
      let patch: {
        metadata: NodePatch['metadata'];
        spec?: { unschedulable?: boolean | null; taints?: TaintList };
      } = { metadata: { annotations: { ...annotations } } };
      if (mark.release) {
        ctx.drainer.stop(mark.node);
        const lift = uncordonPatch(node.metadata.annotations?.[CORDONED_BY_ANNOTATION] !== undefined, true);
        patch = { ...lift, metadata: { annotations: { ...lift.metadata.annotations, ...annotations } } };
      }
      if (mark.taint !== undefined) {
        const others: TaintList = (node.spec?.taints ?? []).filter((t) => t.key !== OUTDATED_TAINT_KEY);
        const taints = mark.taint
          ? [...others, { key: OUTDATED_TAINT_KEY, effect: mark.taint.effect, value: mark.taint.value ?? '' }]
          : others;
        // The taint list is replaced whole: the resourceVersion makes a concurrent change fail (409, retried).
        patch.spec = { ...(patch.spec ?? {}), taints };
        if (node.metadata.resourceVersion) patch.metadata.resourceVersion = node.metadata.resourceVersion;
      }
      const updated = await this.nodes.patchNode(mark.node, patch as NodePatch);
      if (mark.kind === 'bootstrap') {
        ctx.recorder.normal(
          nodeSubject(updated),
          'Bootstrap',
          `joined pool ${pool}: applying ${target} at once`,
        );
      } else if (mark.kind === 'handout') {
        ctx.recorder.normal(
          nodeSubject(updated),
          'RevisionHandedOut',
          `pool ${pool}: desired revision ${target}${describeHandout(annotations)}`,
        );
      }
      if (mark.release)
        ctx.recorder.normal(nodeSubject(updated), 'Uncordoned', 'the pool no longer drains: uncordoned');
    });
  }
}

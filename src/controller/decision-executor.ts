// Carries out a rollout decision on the Nodes: bootstrap, start (directly, or cordon and drain first),
// uncordon, abort drains, keep drains going. Every write goes through a merge patch whose result is put
// into the node cache at once, so the next decision counts what was just started. A write that fails
// is reported back (the pool is retried) without stopping the others.

import { DESIRED_REVISION_ANNOTATION } from '../api/node-protocol.ts';
import type { NodeConfigPool } from '../api/types.ts';
import type { Node } from '../kube/types.ts';
import { DRAINING_FOR_ANNOTATION, UPDATE_STARTED_ANNOTATION } from './annotations.ts';
import { nodePath } from './api-paths.ts';
import { type ControllerContext, nodeSubject, poolSubject, runLimited } from './controller-context.ts';
import { syncNextInLineTaints } from './drain/next-in-line-taint.ts';
import { syncSkipMarks } from './drain/skip-marks.ts';
import { agentReport } from './node-snapshot.ts';
import {
  bootstrapPatch,
  drainPatch,
  type NodePatch,
  rebootRequestId,
  restampPatch,
  startPatch,
  uncordonPatch,
} from './node-updates.ts';
import type { NodeStart, NumberedRevision, RolloutDecision, UncordonReason } from './rollout/types.ts';

const UNCORDON_MESSAGES: Record<UncordonReason, string> = {
  Healthy: 'healthy on its revision',
  Failed: 'its update failed',
  Aborted: 'its drain was for a revision that is no longer the target',
  Idle: 'it has no update in flight',
};

export class DecisionExecutor {
  private readonly ctx: ControllerContext;
  /**
   * Nodes whose drain ends in a reboot request (the OS asks, the pool reboots): as the last decision
   * for their pool said, so a drain resumed after a restart ends the same way.
   */
  private readonly rebootAfterDrain = new Set<string>();

  constructor(ctx: ControllerContext) {
    this.ctx = ctx;
  }

  async patchNode(name: string, patch: NodePatch): Promise<Node> {
    const node = await this.ctx.client.patch<Node>(nodePath(name), patch, 'merge');
    this.ctx.informers.nodes.upsert(node);
    return node;
  }

  /** Gives a drained node its revision, and its reboot request if it is to reboot (the drainer calls this). */
  async finishDrain(name: string, revision: string): Promise<void> {
    const node = this.ctx.informers.nodes.get(name);
    if (!node || node.metadata.annotations?.[DRAINING_FOR_ANNOTATION] !== revision) return;
    const started = Date.parse(node.metadata.annotations?.[UPDATE_STARTED_ANNOTATION] ?? '');
    const now = this.ctx.now();
    const reboot = this.rebootAfterDrain.has(name);
    const newRevision = node.metadata.annotations?.[DESIRED_REVISION_ANNOTATION] !== revision;
    // A reboot on the node's own revision needs no stale-report guard: the unanswered request is one.
    if (newRevision) this.ctx.health.noteStart(name, revision, agentReport(node));
    const updated = await this.patchNode(
      name,
      startPatch(
        revision,
        Number.isNaN(started) ? undefined : started,
        now,
        reboot ? rebootRequestId(now) : undefined,
      ),
    );
    this.rebootAfterDrain.delete(name);
    const what = reboot
      ? newRevision
        ? `applying ${revision} and rebooting once`
        : 'rebooting'
      : `applying ${revision}`;
    this.ctx.recorder.normal(nodeSubject(updated), 'Drained', `drained; ${what}`);
  }

  async restamp(names: readonly string[]): Promise<unknown[]> {
    return runLimited(names, this.ctx.writeConcurrency, async (name) => {
      await this.patchNode(name, restampPatch(this.ctx.now()));
    });
  }

  /**
   * A pool with no rollout decision now (a strategy the agents or owners drive, OnDelete at rest):
   * no node of it keeps the next-in-line taint or a drain-skipped mark (left from RollingUpdate).
   */
  async clearRolloutMarks(pool: NodeConfigPool, members: readonly string[]): Promise<unknown[]> {
    return [
      ...(await syncNextInLineTaints(this.ctx, members, [], pool.metadata.name)),
      ...(await syncSkipMarks(
        this.ctx,
        members.map((name) => ({ name })),
      )),
    ];
  }

  /**
   * A node that started (its start written) because its pre-stage ask went unanswered
   * (spec.prestage.timeoutSeconds): a Warning Event on the Node and on the pool, naming the node and the bound.
   */
  private reportPrestageTimeout(pool: NodeConfigPool, node: Node, start: NodeStart): void {
    const late = start.prestageTimedOut;
    if (!late) return;
    const message = `${start.node} did not answer its pre-stage ask for ${start.revision} (asked ${new Date(late.askedAt).toISOString()}) within ${late.timeoutSeconds}s (spec.prestage.timeoutSeconds): its turn starts anyway and its packages download inside it; an agent of a release before pre-staging, or a hung download, does this`;
    this.ctx.recorder.warning(nodeSubject(node), 'PrestageTimedOut', message);
    this.ctx.recorder.warning(poolSubject(pool), 'PrestageTimedOut', message);
  }

  async execute(
    pool: NodeConfigPool,
    target: NumberedRevision,
    decision: RolloutDecision,
  ): Promise<unknown[]> {
    const { ctx } = this;
    const now = ctx.now();
    const nodes = ctx.informers.nodes;
    const errors: unknown[] = [];
    const poolName = pool.metadata.name;

    // Lift cordons and stop drains first: they only make nodes available again.
    const uncordon = new Map(decision.uncordon.map((u) => [u.node, u.reason]));
    const abort = new Set(decision.abortDrain);
    for (const name of abort) ctx.drainer.stop(name);
    for (const u of decision.uncordon) if (u.reason !== 'Healthy') ctx.drainer.stop(u.node);
    const lifting = [...new Set([...uncordon.keys(), ...abort])];
    errors.push(
      ...(await runLimited(lifting, ctx.writeConcurrency, async (name) => {
        const node = nodes.get(name);
        if (!node) return;
        const reason = uncordon.get(name);
        const updated = await this.patchNode(name, uncordonPatch(reason !== undefined, abort.has(name)));
        if (reason)
          ctx.recorder.normal(nodeSubject(updated), 'Uncordoned', `uncordoned: ${UNCORDON_MESSAGES[reason]}`);
        else
          ctx.recorder.normal(
            nodeSubject(updated),
            'DrainAborted',
            'drain stopped: its revision is no longer the target',
          );
      })),
    );

    const reboots = new Set(decision.rebootAfterDrain);
    for (const name of decision.drain) {
      if (reboots.has(name)) this.rebootAfterDrain.add(name);
      else this.rebootAfterDrain.delete(name);
    }
    for (const start of decision.starts) {
      if (start.reboot) this.rebootAfterDrain.add(start.node);
      else this.rebootAfterDrain.delete(start.node);
    }
    for (const name of decision.drain) ctx.drainer.ensure(name, target.name);
    // The next batch is tainted before this one's drains start, so their pods avoid it (and a taint
    // left from when the pool asked for it goes once it no longer does).
    errors.push(
      ...(await syncNextInLineTaints(
        ctx,
        decision.verdicts.map((v) => v.name),
        decision.taintNext ?? [],
        poolName,
      )),
    );

    errors.push(
      ...(await runLimited(decision.bootstrap, ctx.writeConcurrency, async (name) => {
        const joining = nodes.get(name);
        if (joining) ctx.health.noteStart(name, target.name, agentReport(joining));
        // No update-started: a first apply is no update of this rollout, its trouble is not the rollout's.
        const updated = await this.patchNode(name, bootstrapPatch(target.name));
        ctx.recorder.normal(
          nodeSubject(updated),
          'Bootstrap',
          `joined pool ${poolName}: applying ${target.name} at once`,
        );
      })),
    );

    errors.push(
      ...(await runLimited(decision.starts, ctx.writeConcurrency, async (start) => {
        const node = nodes.get(start.node);
        if (!node) return;
        if (!start.drain) {
          ctx.health.noteStart(start.node, start.revision, agentReport(node));
          const updated = await this.patchNode(start.node, startPatch(start.revision, now, now));
          this.reportPrestageTimeout(pool, updated, start);
          ctx.recorder.normal(
            nodeSubject(updated),
            'UpdateStarted',
            `pool ${poolName}: applying ${start.revision} (revision ${target.number})`,
          );
          return;
        }
        const alreadyCordoned = node.spec?.unschedulable === true;
        const updated = await this.patchNode(
          start.node,
          drainPatch(start.revision, now, alreadyCordoned, node.metadata.resourceVersion),
        );
        this.reportPrestageTimeout(pool, updated, start);
        ctx.recorder.normal(
          nodeSubject(updated),
          'DrainStarted',
          `pool ${poolName}: ${alreadyCordoned ? 'already cordoned' : 'cordoned'}; draining before ${start.reboot ? (node.metadata.annotations?.[DESIRED_REVISION_ANNOTATION] === start.revision ? 'the reboot its OS asks for' : `applying ${start.revision} and the reboot its OS asks for`) : `applying ${start.revision}`}`,
        );
        ctx.drainer.ensure(start.node, start.revision);
      })),
    );
    errors.push(...(await syncSkipMarks(ctx, decision.verdicts)));
    return errors;
  }
}

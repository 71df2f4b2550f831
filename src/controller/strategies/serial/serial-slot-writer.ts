// Serial's writes: the release of slots whose holder Node is gone, and hand-overs (the Lease, then the
// holder's Node), each a compare-and-swap on the Lease as last seen. Writes that fail are collected and
// the pool is retried, like the rollout decision's writes.

import {
  SERIAL_HANDED_OVER_ANNOTATION,
  SERIAL_LEASE_NAMESPACE,
  SERIAL_POOL_LABEL,
  SERIAL_SLOT_ANNOTATION,
} from '../../../api/node-protocol.ts';
import { isKubeError } from '../../../kube/kube-error.ts';
import type { Lease, Node } from '../../../kube/types.ts';
import { type ControllerContext, runLimited } from '../../controller-context.ts';
import type { NodeMarks } from '../node-marks.ts';
import type { StrategyIO } from '../strategy.ts';
import { serialSlotValue } from './serial-marks.ts';

export class SerialSlotWriter {
  private readonly ctx: ControllerContext;
  private readonly patchNode: StrategyIO['patchNode'];
  /** Serial hand-overs being told to their node (node → SERIAL_SLOT_ANNOTATION value). */
  private readonly telling = new Map<string, string>();
  /** Nodes a Serial hand-over is being written for (the reconcile's and SerialHandoff's race). */
  private readonly handing = new Set<string>();

  constructor(io: StrategyIO) {
    this.ctx = io.ctx;
    this.patchNode = io.patchNode;
  }

  /**
   * The mark's annotations, without a slot hand-over that its hand-over has told (or is telling) the
   * node since the decision's snapshot: the marks write it only when that write was lost.
   */
  untold(mark: NodeMarks, node: Node): Record<string, string | null> {
    const onNode = node.metadata.annotations?.[SERIAL_SLOT_ANNOTATION];
    const slot = mark.annotations[SERIAL_SLOT_ANNOTATION];
    if (typeof slot !== 'string' || (slot !== onNode && slot !== this.telling.get(mark.node)))
      return mark.annotations;
    const { [SERIAL_SLOT_ANNOTATION]: _told, ...rest } = mark.annotations;
    return rest;
  }

  /** Frees slots whose holder Node is gone: compare-and-swap, so a slot taken meanwhile stays taken. */
  async releaseSlots(pool: string, release: readonly { lease: string; node: string }[]): Promise<unknown[]> {
    const { ctx } = this;
    return runLimited(release, ctx.writeConcurrency, async ({ lease: name, node }) => {
      const lease = ctx.informers.leases.get(name, SERIAL_LEASE_NAMESPACE);
      if (!lease || lease.spec?.holderIdentity !== node) return;
      const path = `/apis/coordination.k8s.io/v1/namespaces/${SERIAL_LEASE_NAMESPACE}/leases/${name}`;
      try {
        const updated = await ctx.client.replace<Lease>(path, {
          ...lease,
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          spec: { ...lease.spec, holderIdentity: null, acquireTime: null, renewTime: null },
        });
        ctx.informers.leases.upsert(updated);
        ctx.logger.info({ pool, lease: name, node }, 'released the Serial slot of a deleted node');
      } catch (err) {
        // Someone changed the slot since we looked: the next reconcile judges it again.
        if (isKubeError(err, 409)) return;
        throw err;
      }
    });
  }

  /**
   * Gives slots to waiting nodes (slotHandovers): a free one, or one moved from its finished holder.
   * Compare-and-swap on the Lease as last seen, so a slot an agent took (or renewed, or released)
   * meanwhile is judged again on the next reconcile. The Lease's mark tells agents the controller hands
   * slots out; the node is then told on its Node (SERIAL_SLOT_ANNOTATION), which its agent watches
   * anyway: it reads the Lease, finds itself the holder and starts. One Node event for the one agent
   * concerned, where the Lease write alone had to reach every waiting agent through a watch.
   */
  async handOverSlots(
    pool: string,
    handovers: readonly { lease: string; node: string; from?: string; create?: true }[],
    leaseDurationSeconds: number,
  ): Promise<unknown[]> {
    return runLimited(handovers, this.ctx.writeConcurrency, async (handover) => {
      // A node is handed one slot: a reconcile's decision and SerialHandoff's fast path, each from its
      // own view, could both pick the same waiting node for two slots, and the agent, holding one and
      // watching no Lease, never learns of the other, which then sits idle for a whole turn (14 of 200
      // turns at 200 nodes, 1.12 × the limit). The slot stays with its finished holder instead, and the
      // next reconcile gives it to the next waiting node.
      if (this.handing.has(handover.node) || this.holdsSlot(handover.node)) return;
      this.handing.add(handover.node);
      try {
        await this.handOverSlot(pool, handover, leaseDurationSeconds);
      } finally {
        this.handing.delete(handover.node);
      }
    });
  }

  /** Whether a Serial hand-over to `node` is being written (SerialHandoff passes such a node over). */
  handingTo(node: string): boolean {
    return this.handing.has(node);
  }

  /** Whether `node` holds a Serial slot Lease, as the informer has it (with our own writes in it). */
  private holdsSlot(node: string): boolean {
    return this.ctx.informers.leases.list().some((l) => l.spec?.holderIdentity === node);
  }

  private async handOverSlot(
    pool: string,
    { lease: name, node, from, create }: { lease: string; node: string; from?: string; create?: true },
    leaseDurationSeconds: number,
  ): Promise<void> {
    const { ctx } = this;
    if (create) return this.createSlot(pool, name, node, leaseDurationSeconds);
    const lease = ctx.informers.leases.get(name, SERIAL_LEASE_NAMESPACE);
    if (!lease || (lease.spec?.holderIdentity ?? undefined) !== from) return;
    const path = `/apis/coordination.k8s.io/v1/namespaces/${SERIAL_LEASE_NAMESPACE}/leases/${name}`;
    // metav1.MicroTime, like the agents write it.
    const now = new Date(ctx.now()).toISOString().replace(/Z$/, '000Z');
    try {
      const updated = await ctx.client.replace<Lease>(path, {
        ...lease,
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: {
          ...lease.metadata,
          annotations: { ...lease.metadata.annotations, [SERIAL_HANDED_OVER_ANNOTATION]: now },
        },
        spec: {
          ...lease.spec,
          holderIdentity: node,
          leaseDurationSeconds,
          acquireTime: now,
          renewTime: now,
          leaseTransitions: (lease.spec?.leaseTransitions ?? 0) + 1,
        },
      });
      ctx.informers.leases.upsert(updated);
      ctx.logger.debug(
        { pool, lease: name, node, ...(from ? { from } : {}) },
        from
          ? 'moved a Serial slot from its finished holder to a waiting node'
          : 'handed a free Serial slot to a waiting node',
      );
    } catch (err) {
      // An agent took, renewed or released the slot first: the next reconcile looks again.
      if (isKubeError(err, 409)) return;
      throw err;
    }
    await this.tellHolder(node, name, now);
  }

  /**
   * The node is the holder of `lease` by our write at `handedOverAt`: say so on its Node. If this write
   * fails, the Serial marks write the same value on the pool's next reconcile (until then the agent
   * finds the slot when it next lists the slot Leases).
   */
  private async tellHolder(node: string, lease: string, handedOverAt: string): Promise<void> {
    const value = serialSlotValue({ lease, handedOverAt });
    this.telling.set(node, value);
    try {
      await this.patchNode(node, { metadata: { annotations: { [SERIAL_SLOT_ANNOTATION]: value } } });
    } finally {
      if (this.telling.get(node) === value) this.telling.delete(node);
    }
  }

  /** A slot no agent has created yet, created with `node` as its holder (409: an agent was first). */
  private async createSlot(pool: string, name: string, node: string, leaseDurationSeconds: number) {
    const { ctx } = this;
    if (ctx.informers.leases.get(name, SERIAL_LEASE_NAMESPACE)) return;
    const now = new Date(ctx.now()).toISOString().replace(/Z$/, '000Z');
    try {
      const created = await ctx.client.create<Lease>(
        `/apis/coordination.k8s.io/v1/namespaces/${SERIAL_LEASE_NAMESPACE}/leases`,
        {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: {
            name,
            namespace: SERIAL_LEASE_NAMESPACE,
            labels: { [SERIAL_POOL_LABEL]: pool },
            annotations: { [SERIAL_HANDED_OVER_ANNOTATION]: now },
          },
          spec: {
            holderIdentity: node,
            leaseDurationSeconds,
            acquireTime: now,
            renewTime: now,
            leaseTransitions: 0,
          },
        },
      );
      ctx.informers.leases.upsert(created);
      ctx.logger.debug({ pool, lease: name, node }, 'created a Serial slot for a waiting node');
    } catch (err) {
      if (isKubeError(err, 409)) return;
      throw err;
    }
    await this.tellHolder(node, name, now);
  }
}

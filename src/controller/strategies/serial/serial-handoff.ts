// Serial's fast path: a slot whose holder finishes (Done on the target, its Node Ready again) goes to
// the next waiting node as soon as the Node event that shows it arrives, without waiting for a whole
// pool reconcile (hundreds of ms on a large pool, most of a turn's slack). Who is next comes from the
// last reconcile's decision (slotQueue), checked again against the Node as the informer has it now; the
// write is the same compare-and-swap hand-over as the reconcile's (SerialSlotWriter.handOverSlots), so
// the two may race harmlessly: one of them wins, the other's write fails on the resourceVersion.

import { SERIAL_LEASE_NAMESPACE, SERIAL_POOL_LABEL } from '../../../api/node-protocol.ts';
import { isReady, readyCondition } from '../../../kube/conditions.ts';
import type { Node } from '../../../kube/types.ts';
import type { ControllerContext } from '../../controller-context.ts';
import { readStrategyNode } from '../strategy-node.ts';
import { serialSettingsOf } from './serial-settings.ts';
import type { SerialSlotWriter } from './serial-slot-writer.ts';
import { finishedHolder, waitsForSlot } from './serial-slots.ts';

interface Queue {
  target: string;
  nodes: string[];
}

export class SerialHandoff {
  private readonly ctx: ControllerContext;
  private readonly writer: SerialSlotWriter;
  /** Per pool: the nodes waiting for a slot after the last reconcile's hand-overs, in rollout order. */
  private readonly queues = new Map<string, Queue>();
  /** Slot Leases with a hand-over of ours in flight. */
  private readonly moving = new Set<string>();

  constructor(ctx: ControllerContext, writer: SerialSlotWriter) {
    this.ctx = ctx;
    this.writer = writer;
  }

  /** The last reconcile's view of a pool (undefined: not Serial, or held: nothing is handed over). */
  remember(pool: string, queue: Queue | undefined): void {
    if (queue && queue.nodes.length > 0)
      this.queues.set(pool, { target: queue.target, nodes: [...queue.nodes] });
    else this.queues.delete(pool);
  }

  /** A Node changed: if it holds a slot and is finished with it, its slot goes to the next waiter now. */
  onNode(node: Node): void {
    if (this.queues.size === 0) return;
    const name = node.metadata.name;
    const lease = this.ctx.informers.leases
      .list()
      .find((l) => l.spec?.holderIdentity === name && l.metadata.namespace === SERIAL_LEASE_NAMESPACE);
    const pool = lease?.metadata.labels?.[SERIAL_POOL_LABEL];
    if (!lease || !pool || this.moving.has(lease.metadata.name)) return;
    const queue = this.queues.get(pool);
    if (!queue || !finishedHolder(readStrategyNode(node, ''), queue.target, isReady(node))) return;
    const next = this.nextWaiting(queue);
    if (!next) return;
    const leaseName = lease.metadata.name;
    this.moving.add(leaseName);
    const readySince = readyCondition(node)?.lastTransitionTime;
    this.ctx.logger.debug(
      { pool, lease: leaseName, from: name, to: next, readySince },
      'Serial slot holder finished',
    );
    const { leaseDurationSeconds } = serialSettingsOf(
      this.ctx.informers.pools.get(pool)?.spec.updateStrategy,
    );
    this.writer
      .handOverSlots(pool, [{ lease: leaseName, node: next, from: name }], leaseDurationSeconds)
      .then((errors) => {
        if (errors.length > 0)
          this.ctx.logger.warn({ pool, lease: leaseName, errors }, 'Serial slot hand-over failed');
      })
      .catch(() => undefined)
      .finally(() => this.moving.delete(leaseName));
  }

  /** The first node of the queue that still waits (as the informer has it now), taken off the queue. */
  private nextWaiting(queue: Queue): string | undefined {
    const { informers } = this.ctx;
    const holders = new Set(
      informers.leases
        .list()
        .map((l) => l.spec?.holderIdentity)
        .filter((h): h is string => typeof h === 'string' && h !== ''),
    );
    while (queue.nodes.length > 0) {
      const candidate = queue.nodes.shift()!;
      const node = informers.nodes.get(candidate);
      // Being handed a slot by a reconcile right now: it is not waiting any more.
      if (!node || this.writer.handingTo(candidate)) continue;
      if (waitsForSlot(readStrategyNode(node, ''), queue.target, holders, () => isReady(node)))
        return candidate;
    }
    return undefined;
  }
}

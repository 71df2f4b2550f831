// What Serial reads, writes and watches beyond its marks: the pool's slot Leases (observed into the
// snapshot), the release and hand-over writes its decision asks for (SerialSlotWriter), the fast path
// that moves a finished holder's slot on at once (SerialHandoff), and the watches that drive them.

import { SERIAL_POOL_LABEL, STATE_ANNOTATION } from '../../../api/node-protocol.ts';
import type { NodeConfigPool } from '../../../api/types.ts';
import type { Node } from '../../../kube/types.ts';
import { type ControllerContext, type Informers, poolSubject } from '../../controller-context.ts';
import type { NodeMarks } from '../node-marks.ts';
import type { StrategyDecision, StrategyIO, StrategyRuntime } from '../strategy.ts';
import { SerialHandoff } from './serial-handoff.ts';
import { serialSettingsOf } from './serial-settings.ts';
import { SerialSlotWriter } from './serial-slot-writer.ts';
import { type SlotHandover, type SlotView, serialSlots } from './serial-slots.ts';

/** Serial's decision: the slot writes its runtime carries out before the marks. */
export interface SerialDecision extends StrategyDecision {
  /** Slots to free (holder Node gone). */
  releaseSlots?: SlotView['release'];
  /** Free or finished slots to give to waiting nodes, before the marks (compare-and-swap on each Lease). */
  handOverSlots?: SlotHandover[];
  /**
   * The nodes still waiting for a slot after handOverSlots, in rollout order; a slot whose holder
   * finishes before the next reconcile goes to the first of them at once (SerialHandoff).
   */
  slotQueue?: { target: string; nodes: string[] };
}

export class SerialRuntime implements StrategyRuntime<SerialDecision, SlotView> {
  private readonly ctx: ControllerContext;
  private readonly writer: SerialSlotWriter;
  private readonly handoff: SerialHandoff;

  constructor(io: StrategyIO) {
    this.ctx = io.ctx;
    this.writer = new SerialSlotWriter(io);
    this.handoff = new SerialHandoff(io.ctx, this.writer);
  }

  /** Who holds the pool's slot Leases, which to free, which are free. */
  observe(pool: NodeConfigPool): SlotView {
    const { informers } = this.ctx;
    const leases = informers.leases
      .list()
      .filter((l) => l.metadata.labels?.[SERIAL_POOL_LABEL] === pool.metadata.name);
    return serialSlots(
      leases,
      (node) => informers.nodes.get(node)?.metadata.annotations?.[STATE_ANNOTATION],
      (node) => informers.nodes.get(node) !== undefined,
    );
  }

  async execute(pool: NodeConfigPool, decision: SerialDecision): Promise<unknown[]> {
    const { ctx } = this;
    const name = pool.metadata.name;
    const errors: unknown[] = [];
    if (decision.releaseSlots) {
      errors.push(...(await this.writer.releaseSlots(name, decision.releaseSlots)));
      for (const r of decision.releaseSlots)
        ctx.recorder.normal(
          poolSubject(pool),
          'SlotReleased',
          `released Serial slot ${r.lease}: its holder ${r.node} no longer exists`,
        );
    }
    // Hand-overs before the marks: they go to nodes that already carry the gate, and a slot waiting
    // behind a round of marks (hundreds of patches when a rollout begins) is a slot idle.
    if (decision.handOverSlots) {
      const { leaseDurationSeconds } = serialSettingsOf(pool.spec.updateStrategy);
      errors.push(...(await this.writer.handOverSlots(name, decision.handOverSlots, leaseDurationSeconds)));
    }
    this.handoff.remember(name, decision.slotQueue);
    return errors;
  }

  annotationsToWrite(mark: NodeMarks, node: Node): Record<string, string | null> {
    return this.writer.untold(mark, node);
  }

  watch(informers: Informers, enqueue: (pool: string) => void): void {
    // A slot taken or released changes its pool's status.
    informers.leases.on((_type, lease, old) => {
      const pool = lease.metadata.labels?.[SERIAL_POOL_LABEL] ?? old?.metadata.labels?.[SERIAL_POOL_LABEL];
      if (pool) enqueue(pool);
    });
    // A finished slot holder's slot goes on at once, not after the pool's next reconcile.
    informers.nodes.on((type, node) => {
      if (type !== 'delete') this.handoff.onNode(node);
    });
  }

  forget(pool: string): void {
    this.handoff.remember(pool, undefined);
  }
}

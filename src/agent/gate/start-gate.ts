// Whether the agent may START applying a new desired revision now: the Node's hold, Spread time and
// Serial slot (start-gates.ts), the slot taken through SlotKeeper (told the slot the controller
// handed this node, from the Node's serial-slot, and whether the Node is Ready). An apply that already began
// (journaled, interrupted, failed and retried) is never held back, but still takes or keeps a slot
// when it can, so the slot count stays true. Done or nothing to apply releases the slot.

import { SERIAL_GATE_ANNOTATION } from '../../api/node-protocol.ts';
import { readyCondition } from '../../kube/conditions.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { SlotKeeper } from '../serial/slot-keeper.ts';
import { NAMED_HOLDERS_MAX_SLOTS } from '../serial/slot-semaphore.ts';
import type { NodeFacts } from '../serial/slot-waiter.ts';
import type { NodeObject } from '../watch/kube-objects.ts';
import { parseSerialGate, readSerialSlot, readStartGates } from './start-gates.ts';

export type Admission = { open: true } | { open: false; message: string; retryAt?: number };

/** What the reconciler asks before starting an apply, and tells once the node is settled. */
export interface ApplyGate {
  /** `resuming`: the apply began before (never held back). */
  admit(node: NodeObject, resuming: boolean): Promise<Admission>;
  /** Nothing (more) to apply: give back what admit() took. */
  settle(): Promise<void>;
}

/** Retry after the slot Leases could not be read or written. */
const SLOT_ERROR_RETRY_MS = 5000;

export class StartGate implements ApplyGate {
  private readonly serial: SlotKeeper;
  private readonly clock: Clock;
  private readonly logger: Logger;

  constructor(options: { serial: SlotKeeper; clock: Clock; logger: Logger }) {
    this.serial = options.serial;
    this.clock = options.clock;
    this.logger = options.logger;
  }

  async admit(node: NodeObject, resuming: boolean): Promise<Admission> {
    const annotations = node.metadata?.annotations;
    if (resuming) {
      const serialText = annotations?.[SERIAL_GATE_ANNOTATION];
      const serial = serialText ? parseSerialGate(serialText) : undefined;
      if (serial && typeof serial !== 'string') {
        try {
          await this.serial.acquire(serial, false, nodeFacts(node));
        } catch (error) {
          this.logger.warn(
            {
              error: error as Error,
            },
            'could not keep a serial slot for an apply in progress',
          );
        }
      }
      return { open: true };
    }
    const now = this.clock.now();
    const gates = readStartGates(annotations, now);
    switch (gates.kind) {
      case 'open':
        return { open: true };
      case 'hold':
        return { open: false, message: `held: ${gates.reason}` };
      case 'not-before':
        return { open: false, message: `Spread: starts at ${gates.text}`, retryAt: gates.at };
      case 'invalid':
        return { open: false, message: `not starting: ${gates.problem}` };
      case 'serial': {
        const { slots } = gates.serial;
        try {
          const answer = await this.serial.acquire(gates.serial, true, nodeFacts(node));
          if (answer.held) return { open: true };
          // Written to the Node on every change: naming the holders of a large pool would make every
          // waiter patch its Node at every hand-over (1,000 waiters × each take and release).
          const why =
            answer.reason ??
            (slots <= NAMED_HOLDERS_MAX_SLOTS
              ? `${answer.holders.length} of ${slots} held by ${answer.holders.join(', ') || 'nobody'}`
              : `none of ${slots} free for this node yet`);
          return {
            open: false,
            message: `waiting for a Serial slot: ${why}`,
            ...(answer.recheckAt !== undefined ? { retryAt: answer.recheckAt } : {}),
          };
        } catch (error) {
          return {
            open: false,
            message: `waiting for a Serial slot: slot Leases unavailable: ${(error as Error).message}`,
            retryAt: now + SLOT_ERROR_RETRY_MS,
          };
        }
      }
    }
  }

  settle(): Promise<void> {
    return this.serial.release();
  }
}

function nodeFacts(node: NodeObject): NodeFacts {
  const handedOver = readSerialSlot(node.metadata?.annotations);
  const ready = readyCondition(node)?.status === 'True';
  return { ready, ...(handedOver ? { handedOver } : {}) };
}

/** For agents that are never gated (tests of other behaviour). */
export const openGate: ApplyGate = {
  admit: async () => ({ open: true }),
  settle: async () => undefined,
};

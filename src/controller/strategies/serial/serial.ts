// Serial: every node is given the target with the Serial gate; agents take one of the pool's slot
// Leases before they apply, so at most `slots` nodes update at once, with or without the controller.
// The controller frees slots whose holder Node is gone, moves a slot from a finished holder (Done on the
// target, Ready again) or a released one straight to the next waiting node (slotHandovers), tells
// that node on its Node (nodeherd.io/serial-slot: waiting agents watch their Node, not the slot Leases,
// while the controller hands slots out), and reports the holders.

import {
  DESIRED_REVISION_ANNOTATION,
  HOLD_ANNOTATION,
  SERIAL_GATE_ANNOTATION,
} from '../../../api/node-protocol.ts';
import { resolveIntOrPercent } from '../../rollout/int-or-percent.ts';
import { type CanaryProgress, canaryProgress } from '../canary.ts';
import { type NodeMarks, planNodeMarks } from '../node-marks.ts';
import type { RolloutStrategy, StrategySnapshot } from '../strategy.ts';
import { canaryPassedAt, holdReason, marksInput, reportInput, snapshotsByName } from '../strategy-inputs.ts';
import type { StrategyNode } from '../strategy-node.ts';
import { strategyReport } from '../strategy-status.ts';
import { serialGateOf } from './serial-annotations.ts';
import { serialMarks, serialSlotValue } from './serial-marks.ts';
import { serialReport } from './serial-report.ts';
import { type SerialDecision, SerialRuntime } from './serial-runtime.ts';
import { serialSettingsOf } from './serial-settings.ts';
import { finishedHolder, type SlotView, slotHandovers, waitingForSlots } from './serial-slots.ts';

/** The nodes as they will be once `marks` are written (the annotations that decide who waits for a slot). */
function withMarks(nodes: readonly StrategyNode[], marks: readonly NodeMarks[]): StrategyNode[] {
  const byNode = new Map(marks.map((m) => [m.node, m.annotations]));
  return nodes.map((n) => {
    const a = byNode.get(n.name);
    if (!a) return n;
    const value = (key: string, was: string | undefined) =>
      key in a ? (a[key] === null ? undefined : a[key]) : was;
    const desired = value(DESIRED_REVISION_ANNOTATION, n.desired);
    const gate = value(SERIAL_GATE_ANNOTATION, serialGateOf(n));
    const hold = value(HOLD_ANNOTATION, n.hold);
    const { desired: _d, hold: _h, annotations: own, ...rest } = n;
    const { [SERIAL_GATE_ANNOTATION]: _g, ...otherOwn } = own ?? {};
    const annotations = gate !== undefined ? { ...otherOwn, [SERIAL_GATE_ANNOTATION]: gate } : otherOwn;
    return {
      ...rest,
      ...(desired !== undefined ? { desired } : {}),
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      ...(hold !== undefined ? { hold } : {}),
    };
  });
}

type Snapshot = StrategySnapshot<SlotView>;

/**
 * rollingUpdate.canary, as Spread honours it: until the first canary.nodes nodes in line are updated
 * and soaked, only they are given the target (and so take slots); undefined without a canary.
 */
function serialCanary(s: Snapshot): CanaryProgress | undefined {
  const canary = s.settings.canary;
  if (!canary) return undefined;
  const passedAt = canaryPassedAt(s);
  return canaryProgress({
    target: s.target.name,
    nodes: s.nodes,
    snapshots: snapshotsByName(s),
    size: resolveIntOrPercent(canary.nodes, s.nodes.length, 'up'),
    ...(passedAt === undefined ? {} : { passedAt }),
    minReadyMs: s.settings.minReadySeconds * 1000,
    now: s.now,
    ...(s.order ? { order: s.order } : {}),
  });
}

/** Before the canary passed, a node outside it that does not have the target yet is left as it is. */
function canaryMarks(
  s: Snapshot,
  marks: readonly NodeMarks[],
  canary: CanaryProgress | undefined,
): NodeMarks[] {
  if (!canary || canary.passed) return [...marks];
  const inCanary = new Set(canary.nodes);
  const desired = new Map(s.nodes.map((n) => [n.name, n.desired]));
  return marks.filter(
    (m) => m.kind === 'bootstrap' || inCanary.has(m.node) || desired.get(m.node) === s.target.name,
  );
}

function liveHolders(s: Snapshot) {
  return s.own.holders.filter((h) => h.state !== 'Gone');
}

export const serial: RolloutStrategy<SerialDecision, SlotView> = {
  type: 'Serial',

  decide(s: Snapshot): SerialDecision {
    const hold = holdReason(s);
    const settings = serialSettingsOf(s.spec.updateStrategy);
    // Holders the controller handed their slot: told so on their Node (again, if that write was lost).
    const handedSlots = new Map(
      s.own.held.flatMap((h) =>
        h.handedOverAt ? [[h.node, serialSlotValue({ lease: h.lease, handedOverAt: h.handedOverAt })]] : [],
      ),
    );
    const canary = serialCanary(s);
    const marks = canaryMarks(
      s,
      planNodeMarks(
        {
          ...marksInput(s),
          ...(hold ? { hold } : {}),
          serial: { pool: s.pool.metadata.name, ...settings },
          slotHolders: new Set(liveHolders(s).map((h) => h.node)),
          slotHandovers: handedSlots,
        },
        serialMarks,
      ),
      canary,
    );
    const ready = new Set(s.snapshots.filter((n) => n.ready).map((n) => n.name));
    const byName = new Map(s.nodes.map((n) => [n.name, n]));
    const holders = new Set(liveHolders(s).map((h) => h.node));
    // Nodes this decision's marks give the target with the gate wait for a slot too: at the start of a
    // rollout the first `slots` of them are handed one now, and their marks are written first, instead
    // of every node's marks (1,000 patches) and then a reconcile later the hand-overs (the first start
    // came 3.5 s after the change at 1,000 nodes).
    const marked = withMarks(s.nodes, marks);
    const waiting = hold
      ? []
      : waitingForSlots({
          target: s.target.name,
          nodes: marked,
          holders,
          ready: (n) => ready.has(n),
          ...(s.order ? { order: s.order } : {}),
        });
    const handOverSlots = hold
      ? []
      : slotHandovers({
          pool: s.pool.metadata.name,
          slots: settings.slots,
          target: s.target.name,
          free: s.own.free,
          finished: s.own.held.filter((h) =>
            finishedHolder(byName.get(h.node), s.target.name, ready.has(h.node)),
          ),
          existing: new Set([...s.own.holders.map((h) => h.lease), ...s.own.free.map((f) => f.lease)]),
          waiting,
          nodes: marked,
          holders,
          ready: (node) => ready.has(node),
        });
    // Who waits after these hand-overs: the next to get a slot its holder finishes with between two
    // reconciles (SerialHandoff).
    const slotQueue = hold
      ? undefined
      : { target: s.target.name, nodes: waiting.slice(handOverSlots.length) };
    const handedNow = new Set(handOverSlots.map((h) => h.node));
    return {
      ...(s.own.release.length > 0 ? { releaseSlots: s.own.release } : {}),
      marks: [...marks.filter((m) => handedNow.has(m.node)), ...marks.filter((m) => !handedNow.has(m.node))],
      ...(handOverSlots.length > 0 ? { handOverSlots } : {}),
      ...(slotQueue ? { slotQueue } : {}),
      ...(canary?.passedNow !== undefined ? { canaryPassedAt: canary.passedNow } : {}),
      ...(canary?.wakeAt !== undefined ? { requeueAfterMs: Math.max(0, canary.wakeAt - s.now) } : {}),
    };
  },

  report(after: Snapshot) {
    const count = serialSettingsOf(after.spec.updateStrategy).slots;
    const canary = serialCanary(after);
    return strategyReport(
      {
        ...reportInput(after, 'Serial'),
        slots: { count, holders: liveHolders(after) },
        ...(canary && !canary.passed ? { canary: { size: canary.size } } : {}),
      },
      serialReport,
    );
  },

  runtime: (io) => new SerialRuntime(io),
};

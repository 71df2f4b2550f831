// The controller's Serial hand-over writes (SerialSlotWriter, with the MarksWriter as Serial's runtime
// drives it), against fakes of its caches and client:
// the Lease first (compare-and-swap, marked), then the holder's Node is told (nodeherd.io/serial-slot,
// with the mark's time); a lost race writes no Node. The marks write that value again only where the
// hand-over's own patch did not land: not when the Node carries it already, nor while it is in flight.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  SERIAL_GATE_ANNOTATION,
  SERIAL_HANDED_OVER_ANNOTATION,
  SERIAL_LEASE_NAMESPACE,
  SERIAL_POOL_LABEL,
  SERIAL_SLOT_ANNOTATION,
  serialLeaseName,
} from '../../../../src/api/node-protocol.ts';
import type { ControllerContext } from '../../../../src/controller/controller-context.ts';
import type { DecisionExecutor } from '../../../../src/controller/decision-executor.ts';
import { MarksWriter } from '../../../../src/controller/strategies/marks-writer.ts';
import type { NodeMarks } from '../../../../src/controller/strategies/node-marks.ts';
import { SerialSlotWriter } from '../../../../src/controller/strategies/serial/serial-slot-writer.ts';
import { KubeError } from '../../../../src/kube/kube-error.ts';
import type { Lease, Node } from '../../../../src/kube/types.ts';

const NOW = Date.parse('2026-01-02T03:04:05.678Z');
const MARK = '2026-01-02T03:04:05.678000Z';
const LEASE = serialLeaseName('p', 0);

function fixture(options: { conflict?: boolean; holdPatch?: Promise<void> } = {}) {
  const nodes = new Map<string, Node>();
  const leases = new Map<string, Lease>();
  const patches: { node: string; annotations: Record<string, string | null> }[] = [];
  const replaced: Lease[] = [];
  const node = (name: string, annotations: Record<string, string> = {}) =>
    nodes.set(name, { apiVersion: 'v1', kind: 'Node', metadata: { name, annotations } } as Node);
  const ctx = {
    informers: {
      nodes: { get: (name: string) => nodes.get(name), upsert: (n: Node) => nodes.set(n.metadata.name, n) },
      leases: {
        get: (name: string) => leases.get(name),
        list: () => [...leases.values()],
        upsert: (l: Lease) => leases.set(l.metadata.name, l),
      },
    },
    client: {
      replace: async (_path: string, body: Lease) => {
        if (options.conflict) throw new KubeError(409, 'Conflict', 'changed meanwhile');
        replaced.push(body);
        return { ...body, metadata: { ...body.metadata, resourceVersion: '2' } };
      },
    },
    logger: { debug: () => undefined, info: () => undefined, warn: () => undefined },
    recorder: { normal: () => undefined },
    drainer: { stop: () => undefined },
    now: () => NOW,
    writeConcurrency: 4,
  } as unknown as ControllerContext;
  const decisions = {
    patchNode: async (name: string, patch: { metadata: { annotations: Record<string, string | null> } }) => {
      patches.push({ node: name, annotations: patch.metadata.annotations });
      await options.holdPatch;
      const before = nodes.get(name)!;
      const annotations = { ...before.metadata.annotations };
      for (const [key, value] of Object.entries(patch.metadata.annotations))
        if (value === null) delete annotations[key];
        else annotations[key] = value;
      const updated = { ...before, metadata: { ...before.metadata, annotations } };
      nodes.set(name, updated);
      return updated;
    },
  } as unknown as DecisionExecutor;
  const heldBy = (name: string, holder: string) =>
    leases.set(name, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name,
        namespace: SERIAL_LEASE_NAMESPACE,
        labels: { [SERIAL_POOL_LABEL]: 'p' },
        resourceVersion: '1',
      },
      spec: { holderIdentity: holder, leaseDurationSeconds: 600 },
    });
  heldBy(LEASE, 'done');
  heldBy(serialLeaseName('p', 1), 'done-too');
  node('done');
  node('done-too');
  node('next');
  const slots = new SerialSlotWriter({ ctx, patchNode: (name, patch) => decisions.patchNode(name, patch) });
  const marks = new MarksWriter(ctx, decisions);
  const executor = {
    handOverSlots: slots.handOverSlots.bind(slots),
    handingTo: slots.handingTo.bind(slots),
    applyMarks: (pool: string, target: string, list: readonly NodeMarks[]) =>
      marks.applyMarks(pool, target, list, (mark, onNode) => slots.untold(mark, onNode)),
  };
  return { executor, patches, replaced, nodes, node };
}

const told = JSON.stringify({ lease: LEASE, handedOverAt: MARK });
const marksFor = (node: string, annotations: Record<string, string | null>): NodeMarks => ({
  node,
  annotations,
  kind: 'marks',
});

describe('Serial hand-over writes', () => {
  test('the Lease moves (marked), then its new holder is told on its Node, with the mark’s time', async () => {
    const f = fixture();
    const errors = await f.executor.handOverSlots('p', [{ lease: LEASE, node: 'next', from: 'done' }], 600);
    assert.deepEqual(errors, []);
    assert.equal(f.replaced[0]?.spec?.holderIdentity, 'next');
    assert.equal(f.replaced[0]?.metadata.annotations?.[SERIAL_HANDED_OVER_ANNOTATION], MARK);
    assert.deepEqual(f.patches, [{ node: 'next', annotations: { [SERIAL_SLOT_ANNOTATION]: told } }]);
  });

  test('a node is handed one slot, though a reconcile and the fast path both pick it at once', async () => {
    let land: () => void = () => undefined;
    const f = fixture({ holdPatch: new Promise((resolve) => (land = resolve)) });
    const fast = f.executor.handOverSlots('p', [{ lease: LEASE, node: 'next', from: 'done' }], 600);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(f.executor.handingTo('next'), true, 'in flight: SerialHandoff passes it over');
    // The reconcile's decision, from a snapshot taken before the fast path's write.
    const reconcile = f.executor.handOverSlots(
      'p',
      [{ lease: serialLeaseName('p', 1), node: 'next', from: 'done-too' }],
      600,
    );
    land();
    await Promise.all([fast, reconcile]);
    assert.deepEqual(
      f.replaced.map((l) => [l.metadata.name, l.spec?.holderIdentity]),
      [[LEASE, 'next']],
      'the second slot stays with its finished holder, for the next waiting node',
    );
    // Once the first hand-over is written, the informer shows `next` a holder: not handed another.
    await f.executor.handOverSlots(
      'p',
      [{ lease: serialLeaseName('p', 1), node: 'next', from: 'done-too' }],
      600,
    );
    assert.equal(f.replaced.length, 1);
    assert.equal(f.executor.handingTo('next'), false);
  });

  test('a lost race for the Lease tells no node', async () => {
    const f = fixture({ conflict: true });
    await f.executor.handOverSlots('p', [{ lease: LEASE, node: 'next', from: 'done' }], 600);
    assert.deepEqual(f.patches, []);
  });

  test('the marks do not tell again what the hand-over told since their snapshot', async () => {
    const f = fixture();
    await f.executor.handOverSlots('p', [{ lease: LEASE, node: 'next', from: 'done' }], 600);
    f.patches.length = 0;
    // Decided on a snapshot from before the hand-over's Node patch landed.
    await f.executor.applyMarks('p', 'r2', [
      marksFor('next', { [SERIAL_SLOT_ANNOTATION]: told }),
      marksFor('done', { [SERIAL_SLOT_ANNOTATION]: null, [SERIAL_GATE_ANNOTATION]: null }),
    ]);
    assert.deepEqual(f.patches, [
      { node: 'done', annotations: { [SERIAL_SLOT_ANNOTATION]: null, [SERIAL_GATE_ANNOTATION]: null } },
    ]);
  });

  test('nor while the hand-over’s patch is in flight; a lost one they write', async () => {
    let land: () => void = () => undefined;
    const f = fixture({ holdPatch: new Promise((resolve) => (land = resolve)) });
    const handing = f.executor.handOverSlots('p', [{ lease: LEASE, node: 'next', from: 'done' }], 600);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(f.patches.length, 1, 'the hand-over’s Node patch is under way');
    const marking = f.executor.applyMarks('p', 'r2', [marksFor('next', { [SERIAL_SLOT_ANNOTATION]: told })]);
    land();
    await Promise.all([handing, marking]);
    assert.equal(f.patches.length, 1, 'told once');

    // The Node does not carry it (the patch was lost, say): the marks write it.
    f.node('next');
    await f.executor.applyMarks('p', 'r2', [marksFor('next', { [SERIAL_SLOT_ANNOTATION]: told })]);
    assert.deepEqual(f.patches.at(-1), { node: 'next', annotations: { [SERIAL_SLOT_ANNOTATION]: told } });
  });
});

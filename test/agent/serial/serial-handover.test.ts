// A Serial slot the controller hands to a waiting node (it writes the node in as the holder of a slot
// its holder released): the node's agent takes it up at once and applies; an agent that took another
// slot at the same moment gives the extra one back. A hand-over marked as the controller's tells the
// agent the controller runs: it uses the slot without a write of its own and, done, leaves the slot for
// the controller to move on, releasing it itself only when the grace ends.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  SERIAL_HANDED_OVER_ANNOTATION,
  SERIAL_LEASE_NAMESPACE,
  SERIAL_POOL_LABEL,
  serialLeaseName,
} from '../../../src/api/node-protocol.ts';
import type { Lease } from '../../../src/kube/types.ts';
import { eventually } from '../../support/eventually.ts';
import {
  type Cluster,
  createRevision,
  demoServiceSpec,
  startCluster,
  startNode,
  waitForState,
} from '../agent-harness.ts';
import { gateSerial, LEASES } from '../serial-support.ts';

const microNow = () => new Date().toISOString().replace('Z', '000Z');

function slotLease(pool: string, slot: number, holder: string | undefined): Lease {
  const now = microNow();
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: serialLeaseName(pool, slot),
      namespace: SERIAL_LEASE_NAMESPACE,
      labels: { [SERIAL_POOL_LABEL]: pool },
    },
    spec: {
      leaseDurationSeconds: 600,
      ...(holder ? { holderIdentity: holder, acquireTime: now, renewTime: now } : {}),
    },
  };
}

/**
 * What the controller does: the Lease (free, or of a finished holder) gets `node` as its holder
 * (compare-and-swap); `marked`: with the controller's hand-over mark, as the controller writes it.
 */
async function handOver(cluster: Cluster, pool: string, slot: number, node: string, marked = false) {
  const path = `${LEASES}/${serialLeaseName(pool, slot)}`;
  const lease = await cluster.admin.get<Lease>(path);
  const now = microNow();
  await cluster.admin.update(path, {
    ...lease,
    metadata: {
      ...lease.metadata,
      ...(marked
        ? { annotations: { ...lease.metadata.annotations, [SERIAL_HANDED_OVER_ANNOTATION]: now } }
        : {}),
    },
    spec: { ...lease.spec, holderIdentity: node, acquireTime: now, renewTime: now },
  });
}

/**
 * The slot Lease updates an agent made so far (its only PUTs: reports are patches, Events creates; the
 * Leases here exist, so a take, renewal or release would be an update).
 */
const leaseWrites = (node: { agent: { stats(): { requests: { byVerb: Record<string, number> } } } }) =>
  node.agent.stats().requests.byVerb.update ?? 0;

const holderOf = async (cluster: Cluster, pool: string, slot: number) =>
  (await cluster.admin.get<Lease>(`${LEASES}/${serialLeaseName(pool, slot)}`)).spec?.holderIdentity ??
  undefined;

describe('Serial slots handed over by the controller', () => {
  let cluster: Cluster;

  before(async () => {
    cluster = await startCluster();
  });
  after(async () => {
    // Stops the nodes too.
    await cluster?.stop();
  });

  it('a waiting agent starts as soon as it is written in as a holder', async () => {
    const revision = await createRevision(cluster, 'hand', demoServiceSpec('1'));
    const gate = { pool: 'hand', slots: 1, leaseDurationSeconds: 600 };
    // The one slot is held by a node that is not done yet (no agent: it never releases).
    await cluster.admin.create(LEASES, slotLease('hand', 0, 'busy'));
    await startNode(cluster, 'hand-a');
    await gateSerial(cluster, 'hand-a', revision.metadata.name, gate);
    await eventually('hand-a waiting', async () =>
      (
        await cluster.admin.get<{ metadata: { annotations?: Record<string, string> } }>(
          '/api/v1/nodes/hand-a',
        )
      ).metadata.annotations?.['nodeherd.io/message']?.startsWith('waiting for a Serial slot')
        ? true
        : undefined,
    );
    // "busy" released and the controller wrote hand-a in, seen as one change: the agent never had
    // a free slot to take by itself.
    await handOver(cluster, 'hand', 0, 'hand-a');
    await waitForState(cluster, 'hand-a', 'Done', 30_000);
    // Done and Ready: the agent releases the slot it was handed, as it would one it took.
    await eventually('the slot released', async () =>
      (await holderOf(cluster, 'hand', 0)) === undefined ? true : undefined,
    );
  });

  it('an agent holding a slot gives back a second one it was handed', async () => {
    const revision = await createRevision(cluster, 'two', demoServiceSpec('2'));
    const gate = { pool: 'two', slots: 2, leaseDurationSeconds: 600 };
    await cluster.admin.create(LEASES, slotLease('two', 0, 'busy'));
    // A slow apply keeps the agent in its slot while the second one is handed to it.
    await startNode(cluster, 'two-a', {
      systemd: { targetDurations: { 'demo.service': { restart: 3000, start: 3000 } } },
    });
    await gateSerial(cluster, 'two-a', revision.metadata.name, gate);
    await eventually('two-a holds slot 1', async () =>
      (await holderOf(cluster, 'two', 1)) === 'two-a' ? true : undefined,
    );
    const busy = await cluster.admin.get<Lease>(`${LEASES}/${serialLeaseName('two', 0)}`);
    await cluster.admin.update(`${LEASES}/${serialLeaseName('two', 0)}`, {
      ...busy,
      spec: { leaseDurationSeconds: 600 },
    });
    await handOver(cluster, 'two', 0, 'two-a');
    await eventually('the extra slot given back', async () =>
      (await holderOf(cluster, 'two', 0)) === undefined ? true : undefined,
    );
    assert.equal(await holderOf(cluster, 'two', 1), 'two-a');
    await waitForState(cluster, 'two-a', 'Done', 30_000);
  });

  it('handed over by the controller: no write of its own; done, the controller moves the slot on', async () => {
    const revision = await createRevision(cluster, 'mark', demoServiceSpec('3'));
    const gate = { pool: 'mark', slots: 1, leaseDurationSeconds: 600 };
    await cluster.admin.create(LEASES, slotLease('mark', 0, 'busy'));
    // A long grace: the test plays the controller, and a loaded machine must not make it late. The
    // holder keeps no watch while the controller hands slots out: it reads its slot when the grace ends.
    const graceMs = 8000;
    const node = await startNode(cluster, 'mark-a', { agent: { serialControllerGraceMs: graceMs } });
    await gateSerial(cluster, 'mark-a', revision.metadata.name, gate);
    await eventually('mark-a waiting', async () =>
      (
        await cluster.admin.get<{ metadata: { annotations?: Record<string, string> } }>(
          '/api/v1/nodes/mark-a',
        )
      ).metadata.annotations?.['nodeherd.io/message']?.startsWith('waiting for a Serial slot')
        ? true
        : undefined,
    );
    const before = leaseWrites(node);
    await handOver(cluster, 'mark', 0, 'mark-a', true);
    await waitForState(cluster, 'mark-a', 'Done', 30_000);
    assert.equal(node.agent.serialSlot.watching, false, 'a holder needs no watch while the controller runs');
    // Done and Ready: the controller moves the slot straight on; the agent lets it at the grace's end.
    await handOver(cluster, 'mark', 0, 'next', true);
    await eventually(
      'mark-a lets the slot go',
      async () =>
        node.agent.serialSlot.held === undefined && !node.agent.serialSlot.watching ? true : undefined,
      graceMs + 20_000,
    );
    assert.equal(await holderOf(cluster, 'mark', 0), 'next');
    assert.equal(leaseWrites(node) - before, 0, 'the agent wrote no slot Lease');
  });

  it('handed over by the controller that then stops: done, the agent releases the slot after the grace', async () => {
    const revision = await createRevision(cluster, 'gone', demoServiceSpec('4'));
    const gate = { pool: 'gone', slots: 1, leaseDurationSeconds: 600 };
    await cluster.admin.create(LEASES, slotLease('gone', 0, 'busy'));
    await startNode(cluster, 'gone-a', { agent: { serialControllerGraceMs: 500 } });
    await gateSerial(cluster, 'gone-a', revision.metadata.name, gate);
    await eventually('gone-a watching', async () =>
      (
        await cluster.admin.get<{ metadata: { annotations?: Record<string, string> } }>(
          '/api/v1/nodes/gone-a',
        )
      ).metadata.annotations?.['nodeherd.io/message']?.startsWith('waiting for a Serial slot')
        ? true
        : undefined,
    );
    await handOver(cluster, 'gone', 0, 'gone-a', true);
    await waitForState(cluster, 'gone-a', 'Done', 30_000);
    await eventually('the slot released once the grace ended', async () =>
      (await holderOf(cluster, 'gone', 0)) === undefined ? true : undefined,
    );
    const lease = await cluster.admin.get<Lease>(`${LEASES}/${serialLeaseName('gone', 0)}`);
    assert.equal(
      lease.metadata.annotations?.[SERIAL_HANDED_OVER_ANNOTATION],
      undefined,
      'an agent release is no hand-over',
    );
  });
});

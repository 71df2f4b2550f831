// A Serial slot the controller hands to a waiting node (it writes the node in as the holder of a slot
// its holder released): the node's agent takes it up at once and applies; an agent that took another
// slot at the same moment gives the extra one back.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
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

/** What the controller does: the free Lease gets `node` as its holder (compare-and-swap). */
async function handOver(cluster: Cluster, pool: string, slot: number, node: string): Promise<void> {
  const path = `${LEASES}/${serialLeaseName(pool, slot)}`;
  const lease = await cluster.admin.get<Lease>(path);
  const now = microNow();
  await cluster.admin.update(path, {
    ...lease,
    spec: { ...lease.spec, holderIdentity: node, acquireTime: now, renewTime: now },
  });
}

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
});

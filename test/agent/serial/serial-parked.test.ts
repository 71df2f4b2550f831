// Waiting agents while the controller hands Serial slots out: a Ready waiter that finds every slot held
// and the controller live (a hand-over mark on a slot Lease within a lease duration) stops watching the
// slot Leases, so their changes cost it nothing; the controller tells it on its Node
// (nodeherd.io/serial-slot) when it made it a holder, and the agent reads that one Lease and starts. When
// the controller's liveness lapses, the agent lists the slots again and, with no newer hand-over, takes
// turns by itself. A waiter whose Node is not Ready (the controller passes it over) keeps watching. A
// Ready waiter whose gate says the controller gave it within a lease duration does not read the slot
// Leases at all.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  SERIAL_HANDED_OVER_ANNOTATION,
  SERIAL_LEASE_NAMESPACE,
  SERIAL_POOL_LABEL,
  SERIAL_SLOT_ANNOTATION,
  serialLeaseName,
} from '../../../src/api/node-protocol.ts';
import type { Lease } from '../../../src/kube/types.ts';
import { eventually } from '../../support/eventually.ts';
import {
  type Cluster,
  createRevision,
  demoServiceSpec,
  getNode,
  startCluster,
  startNode,
  type TestNode,
  waitForState,
} from '../agent-harness.ts';
import { gateSerial, LEASES, LeaseHistory, setReady } from '../serial-support.ts';

const microTime = (ms = Date.now()) => new Date(ms).toISOString().replace('Z', '000Z');

/** A slot Lease held by `holder`, written by the controller `agoMs` ago (its mark and renewTime). */
function handedLease(pool: string, slot: number, holder: string, leaseDurationSeconds: number, agoMs = 0) {
  const at = microTime(Date.now() - agoMs);
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: serialLeaseName(pool, slot),
      namespace: SERIAL_LEASE_NAMESPACE,
      labels: { [SERIAL_POOL_LABEL]: pool },
      annotations: { [SERIAL_HANDED_OVER_ANNOTATION]: at },
    },
    spec: { holderIdentity: holder, leaseDurationSeconds, acquireTime: at, renewTime: at },
  };
}

/** What the controller does: `node` becomes the holder (compare-and-swap, marked), then its Node is told. */
async function handOver(cluster: Cluster, pool: string, slot: number, node: string, tell = true) {
  const path = `${LEASES}/${serialLeaseName(pool, slot)}`;
  const lease = await cluster.admin.get<Lease>(path);
  const now = microTime();
  await cluster.admin.update(path, {
    ...lease,
    metadata: {
      ...lease.metadata,
      annotations: { ...lease.metadata.annotations, [SERIAL_HANDED_OVER_ANNOTATION]: now },
    },
    spec: { ...lease.spec, holderIdentity: node, acquireTime: now, renewTime: now },
  });
  if (tell)
    await cluster.admin.patch(`/api/v1/nodes/${node}`, {
      metadata: {
        annotations: {
          [SERIAL_SLOT_ANNOTATION]: JSON.stringify({ lease: serialLeaseName(pool, slot), handedOverAt: now }),
        },
      },
    });
}

const requests = (node: TestNode) => node.agent.stats().requests;
const watchEvents = (node: TestNode) =>
  Object.values(requests(node).watchEvents).reduce((sum, count) => sum + count, 0);

async function waiting(cluster: Cluster, node: string) {
  await eventually('waiting for a slot', async () =>
    (await getNode(cluster, node)).metadata?.annotations?.['nodeherd.io/message']?.startsWith(
      'waiting for a Serial slot',
    )
      ? true
      : undefined,
  );
}

describe('Serial waiters while the controller hands slots out', () => {
  let cluster: Cluster;

  before(async () => {
    cluster = await startCluster();
  });
  after(async () => {
    await cluster?.stop();
  });

  it('a Ready waiter stops watching the slot Leases and starts when its Node names its slot', async () => {
    const revision = await createRevision(cluster, 'park', demoServiceSpec('1'));
    const gate = { pool: 'park', slots: 2, leaseDurationSeconds: 600 };
    await cluster.admin.create(LEASES, handedLease('park', 0, 'busy-0', 600));
    await cluster.admin.create(LEASES, handedLease('park', 1, 'busy-1', 600));
    const node = await startNode(cluster, 'park-a', { agent: { serialControllerGraceMs: 60_000 } });
    await setReady(cluster, 'park-a', true);
    await gateSerial(cluster, 'park-a', revision.metadata.name, gate);
    await waiting(cluster, 'park-a');
    await eventually('park-a stops watching the slot Leases', () =>
      node.agent.serialSlot.watching ? undefined : true,
    );
    assert.equal(
      (await getNode(cluster, 'park-a')).metadata?.annotations?.['nodeherd.io/message'],
      'waiting for a Serial slot: 2 of 2 held by busy-0, busy-1',
    );

    // Turns among the others: no news for park-a, which hears nothing of them.
    const quiet = { events: watchEvents(node), requests: requests(node).requests };
    for (let i = 0; i < 5; i++) await handOver(cluster, 'park', 1, `busy-${i + 2}`, false);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(watchEvents(node) - quiet.events, 0, 'no watch event for turns among the others');
    assert.equal(requests(node).requests - quiet.requests, 0, 'no request for turns among the others');

    // Its own turn: the Lease, then its Node.
    const turn = { ...requests(node).byVerb };
    await handOver(cluster, 'park', 0, 'park-a');
    await waitForState(cluster, 'park-a', 'Done', 30_000);
    const after = requests(node).byVerb;
    assert.equal(after.update - turn.update, 0, 'no slot Lease written: the controller’s write is fresh');
    assert.equal(after.watch - turn.watch, 0, 'no slot Lease watch opened');
    assert.equal(after.list - turn.list, 0, 'no slot Lease list');
    assert.equal(after.get - turn.get, 1, 'one read: the Lease its Node names');
    assert.equal(node.agent.serialSlot.held?.slot, 0);
    assert.equal(node.agent.serialSlot.watching, false, 'a holder needs no watch either');
  });

  it('a Ready waiter given its gate lately by the controller reads no slot Lease until its Node names one', async () => {
    const revision = await createRevision(cluster, 'given', demoServiceSpec('5'));
    // More slots than the waiting message names: the start of a rollout, every slot still free.
    const gate = {
      pool: 'given',
      slots: 4,
      leaseDurationSeconds: 600,
      handedOutAt: new Date().toISOString(),
    };
    await cluster.admin.create(LEASES, handedLease('given', 0, 'someone', 600));
    const node = await startNode(cluster, 'given-a', { agent: { serialControllerGraceMs: 60_000 } });
    await setReady(cluster, 'given-a', true);
    await eventually('given-a Ready', async () =>
      (await getNode(cluster, 'given-a')).status?.conditions?.some((c) => c.status === 'True')
        ? true
        : undefined,
    );
    const start = { ...requests(node).byVerb };
    await gateSerial(cluster, 'given-a', revision.metadata.name, gate);
    await waiting(cluster, 'given-a');
    assert.equal(
      (await getNode(cluster, 'given-a')).metadata?.annotations?.['nodeherd.io/message'],
      'waiting for a Serial slot: none of 4 free for this node yet',
    );
    assert.equal(node.agent.serialSlot.watching, false, 'no slot Lease watch while waiting');

    await handOver(cluster, 'given', 0, 'given-a');
    await waitForState(cluster, 'given-a', 'Done', 30_000);
    const end = requests(node).byVerb;
    assert.equal(end.list - start.list, 0, 'no slot Lease list');
    assert.equal(end.watch - start.watch, 0, 'no slot Lease watch opened');
    assert.equal(requests(node).watchEventsByKind.Lease ?? 0, 0, 'no slot Lease change heard');
    assert.equal(node.agent.serialSlot.held?.slot, 0);
  });

  it('a gate given more than a lease duration ago proves nothing: the waiter lists the slots', async () => {
    const revision = await createRevision(cluster, 'stale', demoServiceSpec('6'));
    const gate = {
      pool: 'stale',
      slots: 4,
      leaseDurationSeconds: 10,
      handedOutAt: new Date(Date.now() - 11_000).toISOString(),
    };
    const leases = await LeaseHistory.start(cluster.admin, 'stale');
    try {
      const node = await startNode(cluster, 'stale-a', { agent: { serialControllerGraceMs: 300 } });
      await setReady(cluster, 'stale-a', true);
      await gateSerial(cluster, 'stale-a', revision.metadata.name, gate);
      // No hand-over seen in the list: the controller is not live, so the agent takes a slot itself.
      await waitForState(cluster, 'stale-a', 'Done', 30_000);
      assert.ok(requests(node).byVerb.list > 0, 'listed the slot Leases');
      assert.ok(
        leases.versions.some((v) => v.holder === 'stale-a'),
        'took a slot by itself',
      );
    } finally {
      leases.stop();
    }
  });

  it('a free slot the controller leaves alone is watched, and taken on this node’s turn after the grace', async () => {
    const revision = await createRevision(cluster, 'free', demoServiceSpec('4'));
    const gate = { pool: 'free', slots: 2, leaseDurationSeconds: 600 };
    await cluster.admin.create(LEASES, handedLease('free', 0, 'busy', 600));
    // Released by its holder: no holder, no mark.
    await cluster.admin.create(LEASES, {
      ...handedLease('free', 1, 'x', 600),
      metadata: {
        name: serialLeaseName('free', 1),
        namespace: SERIAL_LEASE_NAMESPACE,
        labels: { [SERIAL_POOL_LABEL]: 'free' },
      },
      spec: { leaseDurationSeconds: 600 },
    });
    const node = await startNode(cluster, 'free-a', { agent: { serialControllerGraceMs: 300 } });
    await setReady(cluster, 'free-a', true);
    await gateSerial(cluster, 'free-a', revision.metadata.name, gate);
    await waitForState(cluster, 'free-a', 'Done', 30_000);
    assert.equal(node.agent.serialSlot.held?.slot, 1, 'took the free slot itself');
  });

  it('a waiter whose Node is not Ready keeps watching (the controller passes such nodes over)', async () => {
    const revision = await createRevision(cluster, 'unready', demoServiceSpec('2'));
    const gate = { pool: 'unready', slots: 1, leaseDurationSeconds: 600 };
    await cluster.admin.create(LEASES, handedLease('unready', 0, 'busy', 600));
    const node = await startNode(cluster, 'unready-a');
    await gateSerial(cluster, 'unready-a', revision.metadata.name, gate);
    await waiting(cluster, 'unready-a');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(node.agent.serialSlot.watching, true);
  });

  it('the controller’s liveness lapses: the waiter lists again and takes turns by itself', async () => {
    const revision = await createRevision(cluster, 'lapse', demoServiceSpec('3'));
    // A short lease: the controller's last hand-over, and the holder it wrote (which never renews),
    // are a lease duration old a few seconds from now.
    const gate = { pool: 'lapse', slots: 1, leaseDurationSeconds: 3 };
    const leases = await LeaseHistory.start(cluster.admin, 'lapse');
    await cluster.admin.create(LEASES, handedLease('lapse', 0, 'dead', 3));
    try {
      const node = await startNode(cluster, 'lapse-a', { agent: { serialControllerGraceMs: 500 } });
      await setReady(cluster, 'lapse-a', true);
      await gateSerial(cluster, 'lapse-a', revision.metadata.name, gate);
      await eventually('lapse-a parked', () =>
        !node.agent.serialSlot.watching && node.agent.status.state === 'Waiting' ? true : undefined,
      );
      await waitForState(cluster, 'lapse-a', 'Done', 30_000);
      assert.deepEqual(
        leases.takeovers().map((t) => [t.from, t.to]),
        [['dead', 'lapse-a']],
        'the expired slot taken over by the agent itself',
      );
      // Agents alone: released at once when done.
      await eventually('slot released', () =>
        leases.versions.at(-1)?.holder === undefined ? true : undefined,
      );
    } finally {
      leases.stop();
    }
  });
});

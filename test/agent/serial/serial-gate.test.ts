// Serial on the agent side, against the embedded API server: the test sets desired revision and
// Serial gate on every Node at once, as the controller does, and no controller runs. The agents take
// slot Leases among themselves: never more applying than slots, every slot Lease version has one
// holder and changes hands only through a release, and all nodes converge.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  SERIAL_LEASE_NAMESPACE,
  STATE_REVISION_ANNOTATION,
  serialLeaseName,
} from '../../../src/api/node-protocol.ts';
import { eventually } from '../../support/eventually.ts';
import {
  type Cluster,
  createRevision,
  demoServiceSpec,
  getNode,
  startCluster,
  startNode,
  waitForState,
} from '../agent-harness.ts';
import { gateSerial, LEASES, LeaseHistory, NodeStateHistory } from '../serial-support.ts';

/** Applies take a moment (the unit starts in 150 ms), so gated nodes really overlap in time. */
const SLOW_START = { durations: { start: 150, restart: 150 } };

describe('Serial gate (agents only, no controller)', () => {
  let cluster: Cluster;

  before(async () => {
    cluster = await startCluster();
  });
  after(async () => {
    await cluster?.stop();
  });

  it('many agents racing for one slot: one applies at a time, every Lease version one holder, all converge', async () => {
    const names = Array.from({ length: 6 }, (_, i) => `race-${i}`);
    for (const name of names) await startNode(cluster, name, { systemd: SLOW_START });
    const revision = await createRevision(cluster, 'race', demoServiceSpec('1'));
    const gate = { pool: 'race', slots: 1, leaseDurationSeconds: 10 };
    const leases = await LeaseHistory.start(cluster.admin, 'race');
    const states = await NodeStateHistory.start(cluster.admin, names);
    try {
      // All at once, as the controller hands gates out.
      await Promise.all(names.map((name) => gateSerial(cluster, name, revision.metadata.name, gate)));
      for (const name of names) {
        const done = await waitForState(cluster, name, 'Done', 60_000);
        assert.equal(done.metadata?.annotations?.[STATE_REVISION_ANNOTATION], revision.metadata.name);
      }
      // Released after the last node: the Lease ends without a holder.
      await eventually('slot released', () =>
        leases.versions.at(-1)?.holder === undefined ? true : undefined,
      );
      assert.equal(states.maxApplying, 1, 'never two nodes applying with one slot');
      assert.deepEqual(leases.takeovers(), [], 'a slot changes hands only through a release');
      const holders = new Set(leases.versions.flatMap((v) => (v.holder ? [v.holder] : [])));
      assert.deepEqual([...holders].sort(), names, 'every node held the slot once');
      assert.ok(
        states.messages.some(
          (m) =>
            m.state === 'Waiting' && /^waiting for a Serial slot: 1 of 1 held by race-\d$/.test(m.message),
        ),
        `a waiting node says who holds the slot: ${JSON.stringify(states.messages.filter((m) => m.state === 'Waiting').slice(0, 3))}`,
      );
      // Settled agents watch no slot Leases any more (idle cost).
      await eventually('agents stop watching slot Leases', () =>
        [...cluster.nodes].every((n) => !n.agent.serialSlot.watching && n.agent.serialSlot.held === undefined)
          ? true
          : undefined,
      );
    } finally {
      leases.stop();
      states.stop();
    }
  });

  it('two slots: at most two apply at once; a later revision goes through the same slots', async () => {
    const names = Array.from({ length: 5 }, (_, i) => `duo-${i}`);
    for (const name of names) await startNode(cluster, name, { systemd: SLOW_START });
    const gate = { pool: 'duo', slots: 2, leaseDurationSeconds: 10 };
    const states = await NodeStateHistory.start(cluster.admin, names);
    try {
      for (const value of ['1', '2']) {
        const revision = await createRevision(cluster, 'duo', demoServiceSpec(value));
        await Promise.all(names.map((name) => gateSerial(cluster, name, revision.metadata.name, gate)));
        for (const name of names)
          await eventually(
            `${name} on ${revision.metadata.name}`,
            async () => {
              const a = (await getNode(cluster, name)).metadata?.annotations ?? {};
              return a['nodeherd.io/state'] === 'Done' &&
                a['nodeherd.io/current-revision'] === revision.metadata.name
                ? true
                : undefined;
            },
            60_000,
          );
      }
      assert.ok(states.maxApplying <= 2, `at most 2 applying, saw ${states.maxApplying}`);
      const slots = await cluster.admin.list(LEASES, { labelSelector: 'nodeherd.io/serial-pool=duo' });
      assert.deepEqual(
        slots.items.map((l) => l.metadata?.name).sort(),
        [serialLeaseName('duo', 0), serialLeaseName('duo', 1)],
        'slots are the Leases 0..slots-1 in the nodeherd namespace',
      );
      for (const lease of slots.items) assert.equal(lease.metadata?.namespace, SERIAL_LEASE_NAMESPACE);
      // The last node releases its slot after it reports Done: wait for the release, not for Done.
      await eventually('both slots released', async () => {
        const now = await cluster.admin.list(LEASES, { labelSelector: 'nodeherd.io/serial-pool=duo' });
        return now.items.every(
          (l) => (l as { spec?: { holderIdentity?: string } }).spec?.holderIdentity === undefined,
        )
          ? true
          : undefined;
      });
    } finally {
      states.stop();
    }
  });

  it('an agent without a gate opens no slot watch and takes no slot', async () => {
    const node = await startNode(cluster, 'ungated-0');
    const revision = await createRevision(cluster, 'ungated', demoServiceSpec('1'));
    await cluster.admin.patch(`/api/v1/nodes/${node.name}`, {
      metadata: { annotations: { 'nodeherd.io/desired-revision': revision.metadata.name } },
    });
    await waitForState(cluster, node.name, 'Done');
    const requests = node.agent.stats().requests;
    assert.equal(node.agent.serialSlot.watching, false);
    assert.equal(requests.byVerb.watch, 1, 'one watch, its Node (the revision is read once)');
  });
});

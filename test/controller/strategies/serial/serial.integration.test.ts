// Serial pools end to end: the controller hands every outdated node its desired revision and the
// Serial gate at once, then is STOPPED; the simulated nodes' real agents take turns through the slot
// Leases by themselves. All converge with never more than `slots` applying; a config that fails
// stops after `slots` nodes, because failed nodes keep renewing their slots.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  CURRENT_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  MESSAGE_ANNOTATION,
  SERIAL_GATE_ANNOTATION,
  SERIAL_LEASE_NAMESPACE,
  STATE_ANNOTATION,
} from '../../../../src/api/node-protocol.ts';
import type { KubeObject } from '../../../../src/kube/light/types.ts';
import { NodeStateHistory } from '../../../agent/serial-support.ts';
import {
  brokenConfig,
  ClusterHarness,
  eventually,
  kubeletConfig,
  type NodeObject,
  revisionNameFor,
} from '../../support/cluster-harness.ts';

const LEASES = `/apis/coordination.k8s.io/v1/namespaces/${SERIAL_LEASE_NAMESPACE}/leases`;

interface LeaseObject extends KubeObject {
  spec?: { holderIdentity?: string; renewTime?: string };
}

async function startSerialPool(h: ClusterHarness, pool: string, count: number, slots: number) {
  const nodes = [];
  for (let i = 0; i < count; i++)
    nodes.push(await h.fleet.create({ name: `${pool}-${i}`, zone: 'zone-a', labels: { pool } }));
  await h.fleet.startAll(nodes);
  await h.applyConfig(`${pool}-kubelet`, kubeletConfig('1'), { pool });
  await h.createPool(pool, {
    nodeSelector: { matchLabels: { pool } },
    configSelector: { matchLabels: { pool } },
    updateStrategy: { type: 'Serial', serial: { slots, leaseDurationSeconds: 10 } },
  });
  const first = revisionNameFor(pool, { [`${pool}-kubelet`]: kubeletConfig('1') });
  await allNodes(h, pool, `${pool} on its first revision`, (a) => a[CURRENT_REVISION_ANNOTATION] === first);
  return nodes.map((n) => n.name);
}

function allNodes(
  h: ClusterHarness,
  pool: string,
  what: string,
  ok: (annotations: Record<string, string>) => boolean,
  ms = 60_000,
): Promise<NodeObject[]> {
  return eventually(
    what,
    async () => {
      const nodes = await h.nodes(`pool=${pool}`);
      return nodes.length > 0 && nodes.every((n) => ok(n.metadata.annotations ?? {})) ? nodes : undefined;
    },
    ms,
  );
}

describe('Serial strategy with the controller stopped', () => {
  let h: ClusterHarness;
  before(async () => {
    // Kubelet restarts take 600 ms, so turns overlap and the controller is gone before most start.
    h = await ClusterHarness.start({
      fleet: { systemd: { targetDurations: { 'kubelet.service': { restart: 600 } } } },
    });
  });
  after(async () => {
    await h?.stop();
  });

  test('every node converges, never more than `slots` applying at once', async () => {
    const controller = await h.startController();
    const names = await startSerialPool(h, 'turns', 6, 2);
    const states = await NodeStateHistory.start(h.light, names);
    try {
      await h.applyConfig('turns-kubelet', kubeletConfig('2'), { pool: 'turns' });
      const second = revisionNameFor('turns', { 'turns-kubelet': kubeletConfig('2') });
      const handedOut = await allNodes(
        h,
        'turns',
        'desired revision and Serial gate on every node',
        (a) => a[DESIRED_REVISION_ANNOTATION] === second && a[SERIAL_GATE_ANNOTATION] !== undefined,
      );
      await h.stopController(controller);
      assert.ok(
        handedOut.some((n) => n.metadata.annotations?.[CURRENT_REVISION_ANNOTATION] !== second),
        'the controller was stopped before the rollout was over',
      );
      await allNodes(
        h,
        'turns',
        'every node on the second revision',
        (a) => a[CURRENT_REVISION_ANNOTATION] === second && a[STATE_ANNOTATION] === 'Done',
      );
      assert.ok(states.maxApplying <= 2, `at most 2 nodes applying at once, saw ${states.maxApplying}`);
      assert.ok(
        states.messages.some(
          (m) => m.state === 'Waiting' && /^waiting for a Serial slot: 2 of 2 held by /.test(m.message),
        ),
        'nodes waited for a slot',
      );
      // A slot is given back once its node is Ready again after the apply, a moment after Done.
      await eventually(
        'every slot released',
        async () => {
          const leases = await h.light.list<LeaseObject>(LEASES, {
            labelSelector: 'nodeherd.io/serial-pool=turns',
          });
          assert.ok(leases.items.length > 0 && leases.items.length <= 2);
          return leases.items.every((l) => !l.spec?.holderIdentity) ? true : undefined;
        },
        60_000,
      );
    } finally {
      states.stop();
    }
  });

  test('a failing config stops after `slots` nodes: failed nodes keep their slots', async () => {
    const controller = await h.startController();
    const names = await startSerialPool(h, 'halts', 5, 2);
    const states = await NodeStateHistory.start(h.light, names);
    try {
      await h.applyConfig('halts-kubelet', brokenConfig('bad'), { pool: 'halts' });
      const bad = revisionNameFor('halts', { 'halts-kubelet': brokenConfig('bad') });
      await allNodes(
        h,
        'halts',
        'bad revision and Serial gate on every node',
        (a) => a[DESIRED_REVISION_ANNOTATION] === bad && a[SERIAL_GATE_ANNOTATION] !== undefined,
      );
      await h.stopController(controller);
      const failed = await eventually('two nodes failed', async () => {
        const nodes = await h.nodes('pool=halts');
        const f = nodes.filter((n) => n.metadata.annotations?.[STATE_ANNOTATION] === 'Failed');
        return f.length === 2 ? f.map((n) => n.metadata.name).sort() : undefined;
      });
      // The failed holders go on renewing: each slot's renewTime moves on after the failure.
      const path = (l: LeaseObject) => `${LEASES}/${l.metadata?.name}`;
      const held = (
        await h.light.list<LeaseObject>(LEASES, { labelSelector: 'nodeherd.io/serial-pool=halts' })
      ).items;
      assert.deepEqual(held.map((l) => l.spec?.holderIdentity).sort(), failed);
      for (const lease of held)
        await eventually(
          `${lease.metadata?.name} renewed by its failed holder`,
          async () => {
            const now = await h.light.get<LeaseObject>(path(lease));
            return (
              now.spec?.renewTime !== lease.spec?.renewTime &&
              now.spec?.holderIdentity === lease.spec?.holderIdentity
            );
          },
          30_000,
        );
      const nodes = await h.nodes('pool=halts');
      const waiting = nodes.filter((n) => !failed.includes(n.metadata.name));
      for (const node of waiting) {
        const a = node.metadata.annotations ?? {};
        assert.equal(a[STATE_ANNOTATION], 'Waiting', `${node.metadata.name} did not start`);
        assert.equal(a[MESSAGE_ANNOTATION], `waiting for a Serial slot: 2 of 2 held by ${failed.join(', ')}`);
      }
      assert.deepEqual([...states.everApplying].sort(), failed, 'only the two failed nodes ever started');
    } finally {
      states.stop();
    }
  });
});

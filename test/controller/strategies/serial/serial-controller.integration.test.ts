// Serial, the controller's side: every node not on the target gets it at once with the Serial gate;
// the slot holders (Leases the agents take, created here as an agent would) show in the pool status, a
// failed holder degrades the pool, and the slot of a deleted node is freed. (Agents taking turns is
// tested with the agent.)

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  SERIAL_GATE_ANNOTATION,
  SERIAL_LEASE_NAMESPACE,
  SERIAL_POOL_LABEL,
  serialLeaseName,
} from '../../../../src/api/node-protocol.ts';
import { isKubeError } from '../../../../src/kube/kube-error.ts';
import type { Lease } from '../../../../src/kube/types.ts';
import {
  brokenConfig,
  ClusterHarness,
  condition,
  eventually,
  kubeletConfig,
  revisionNameFor,
} from '../../../support/cluster-harness.ts';
import { NodeWatch } from '../../support/node-watch.ts';

const LEASES = `/apis/coordination.k8s.io/v1/namespaces/${SERIAL_LEASE_NAMESPACE}/leases`;

describe('Serial (controller)', () => {
  let h: ClusterHarness;
  let watch: NodeWatch;
  let names: string[];
  /** The first Serial gate each node was given for revision two. */
  let gates: Map<string, string>;
  const two = revisionNameFor('ser', { 'ser-kubelet': brokenConfig('two') });

  async function holders(): Promise<string[]> {
    const list = await h.admin.list<Lease>(LEASES, { labelSelector: `${SERIAL_POOL_LABEL}=ser` });
    return list.items
      .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1))
      .map((l) => l.spec?.holderIdentity)
      .filter((x): x is string => !!x);
  }

  before(async () => {
    h = await ClusterHarness.start();
    try {
      await h.admin.create('/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: SERIAL_LEASE_NAMESPACE },
      });
    } catch (err) {
      if (!isKubeError(err, 409)) throw err;
    }
    names = await h.addNodes('ser', 3);
    await h.labelledPool('ser', 'ser-kubelet', kubeletConfig('one'), {
      updateStrategy: { type: 'Serial', serial: { slots: 2 } },
    });
    watch = await NodeWatch.started(h.adminConfig());
    gates = watch.firstAnnotations(SERIAL_GATE_ANNOTATION, two);
    await h.startController();
    await eventually(
      'bootstrap complete',
      async () => condition(await h.getPool('ser'), 'Complete')?.status === 'True',
      60_000,
    );
  });
  after(async () => {
    await watch?.stop();
    await h?.stop();
  });

  test('a new revision goes to every node at once, with the gate', async () => {
    await h.applyConfig('ser-kubelet', brokenConfig('two'), { pool: 'ser' });
    await eventually('gates on every node', () => gates.size === 3, 60_000);
    for (const gate of gates.values()) {
      const { handedOutAt, ...rest } = JSON.parse(gate) as Record<string, unknown>;
      assert.deepEqual(rest, { pool: 'ser', slots: 2, leaseDurationSeconds: 600 });
      // When the controller gave it: agents trust it to hand the slots out for a lease duration from then.
      assert.ok(Math.abs(Date.parse(String(handedOutAt)) - Date.now()) < 60_000, String(handedOutAt));
    }
  });

  test('slot holders show in the status; a failed holder degrades the pool', async () => {
    // The agents take the two slots, fail the broken revision and keep their slots: the third waits.
    const pool = await eventually(
      'holders reported',
      async () => {
        const p = await h.getPool('ser');
        // The two holders take their slots a moment apart (each tries free slots in its turn): both failed.
        const bothFailed = /2\/2 slots held: \S+ \(Failed\), \S+ \(Failed\)/.test(
          condition(p, 'Progressing')?.message ?? '',
        );
        return condition(p, 'Degraded')?.reason === 'SlotHolderFailed' && bothFailed ? p : undefined;
      },
      60_000,
    );
    const progressing = condition(pool, 'Progressing')?.message ?? '';
    assert.match(progressing, /2\/2 slots held: \S+ \(Failed\), \S+ \(Failed\)/);
    assert.match(condition(pool, 'Degraded')?.message ?? '', /a bad change stops after 2 nodes/);
    const held = await holders();
    assert.equal(held.length, 2);
    assert.ok(held.every((holder) => names.includes(holder)));
    // The third node is gated: the status counts it as waiting.
    await eventually('the gated node counted', async () => (await h.getPool('ser')).status?.waiting === 1);
  });

  test('a pause holds the waiting node; more slots rewrite its gate', async () => {
    const held = await holders();
    const waiting = names.find((name) => !held.includes(name))!;
    const annotationsOf = async () =>
      (await h.nodes('pool=ser')).find((n) => n.metadata.name === waiting)?.metadata.annotations ?? {};
    await h.patchPool('ser', { spec: { paused: true } });
    await eventually(
      'hold on the waiting node',
      async () => (await annotationsOf())['nodeherd.io/hold'] !== undefined,
    );
    for (const holder of held) {
      const a =
        (await h.nodes('pool=ser')).find((n) => n.metadata.name === holder)?.metadata.annotations ?? {};
      assert.equal(a['nodeherd.io/hold'], undefined, `${holder} holds a slot: no hold`);
    }
    await h.patchPool('ser', { spec: { updateStrategy: { serial: { slots: 3 } } } });
    await eventually('the gate rewritten', async () => {
      const gate = (await annotationsOf())[SERIAL_GATE_ANNOTATION];
      return gate !== undefined && JSON.parse(gate).slots === 3;
    });
    await h.patchPool('ser', { spec: { paused: false } });
    await eventually('hold lifted', async () => (await annotationsOf())['nodeherd.io/hold'] === undefined);
    // The waiting node takes the new slot and fails too.
    await eventually('three holders', async () => (await holders()).length === 3, 60_000);
  });

  test('the slot of a deleted node is released', async () => {
    const [gone, kept] = await holders();
    await h.fleet.remove(gone!);
    await eventually(
      'the deleted node no longer holds a slot',
      async () => !(await holders()).includes(gone!),
      30_000,
    );
    assert.ok((await holders()).includes(kept!), 'a live holder keeps its slot');
    const events = await h.events('NodeConfigPool', 'ser');
    assert.ok(
      events.some((e) => e.reason === 'SlotReleased' && e.message.includes(gone!)),
      JSON.stringify(events),
    );
  });

  test('a slot held by a node that never existed is released too', async () => {
    const leases = await h.admin.list<Lease>(LEASES, { labelSelector: `${SERIAL_POOL_LABEL}=ser` });
    const free = [0, 1, 2, 3].find(
      (i) => !leases.items.some((l) => l.metadata.name === serialLeaseName('ser', i)),
    )!;
    // Created as an agent would; its holder is no Node.
    const now = new Date().toISOString().replace('Z', '000Z');
    await h.admin.create(LEASES, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: serialLeaseName('ser', free),
        namespace: SERIAL_LEASE_NAMESPACE,
        labels: { [SERIAL_POOL_LABEL]: 'ser' },
      },
      spec: { holderIdentity: 'no-such-node', leaseDurationSeconds: 600, acquireTime: now, renewTime: now },
    });
    await eventually(
      'released',
      async () =>
        !(await h.admin.get<Lease>(`${LEASES}/${serialLeaseName('ser', free)}`)).spec?.holderIdentity,
      30_000,
    );
  });
});

// Serial exists so that kubelet restarts do not happen on many nodes at once (seed 000: a restarted
// kubelet makes its node NotReady for a moment). A node that restarted its kubelet is back in the
// pool only once it is Ready again, so it keeps its slot until then: with one slot, never two nodes
// NotReady at once. Simulated nodes with the real agent and the controller, as `nodeherd up` runs. The
// controller moves the slot straight from a finished node to the next (no release in between) and tells
// the next on its Node (nodeherd.io/serial-slot), which goes again with the gate once it is done.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  CURRENT_REVISION_ANNOTATION,
  SERIAL_SLOT_ANNOTATION,
  STATE_ANNOTATION,
} from '../../../../src/api/node-protocol.ts';
import type { WatchHandle } from '../../../../src/kube/kube-watch.ts';
import type { KubeObject } from '../../../../src/kube/light/types.ts';
import { LeaseHistory } from '../../../agent/serial-support.ts';
import {
  ClusterHarness,
  eventually,
  kubeletConfig,
  revisionNameFor,
} from '../../../support/cluster-harness.ts';

let h: ClusterHarness;
before(async () => {
  h = await ClusterHarness.start({
    // A long grace period: on a loaded machine a late heartbeat must not pass for an update's NotReady.
    graceMs: 10_000,
    fleet: {
      startupNotReadyMs: 1_500,
      systemd: { targetDurations: { 'kubelet.service': { restart: 50 } } },
    },
  });
});
after(async () => {
  await h?.stop();
});

/** Every Ready change of the pool's Nodes, and the most NotReady at once; the slots each was told of. */
async function watchReadiness(names: string[]) {
  const ready = new Map<string, boolean>();
  let maxNotReady = 0;
  const seen: string[] = [];
  const told = new Map<string, Set<string>>();
  const list = await h.light.list('/api/v1/nodes');
  const handle: WatchHandle = h.light.watch(
    '/api/v1/nodes',
    { resourceVersion: list.metadata.resourceVersion },
    {
      onEvent: (event: { object: KubeObject }) => {
        const name = event.object.metadata?.name ?? '';
        if (!names.includes(name)) return;
        const slot = event.object.metadata?.annotations?.[SERIAL_SLOT_ANNOTATION];
        if (slot) told.set(name, new Set([...(told.get(name) ?? []), slot]));
        const conditions = (event.object.status as { conditions?: { type: string; status: string }[] })
          ?.conditions;
        const isReady = conditions?.find((c) => c.type === 'Ready')?.status === 'True';
        if (ready.get(name) !== isReady) seen.push(`${name} ${isReady ? 'Ready' : 'NotReady'}`);
        ready.set(name, isReady);
        const notReady = [...ready.values()].filter((r) => !r).length;
        maxNotReady = Math.max(maxNotReady, notReady);
      },
    },
  );
  return {
    get maxNotReady() {
      return maxNotReady;
    },
    seen,
    told,
    stop: () => handle.abort(),
  };
}

test('Serial with one slot: a node keeps its slot until Ready again, so never two nodes NotReady at once', {
  timeout: 300_000,
}, async () => {
  await h.startController();
  const pool = 'calm';
  const nodes = [];
  for (let i = 0; i < 3; i++)
    nodes.push(await h.fleet.create({ name: `${pool}-${i}`, zone: 'zone-a', labels: { pool } }));
  await h.fleet.startAll(nodes);
  const names = nodes.map((n) => n.name);
  await h.applyConfig(`${pool}-kubelet`, kubeletConfig('1'), { pool });
  await h.createPool(pool, {
    nodeSelector: { matchLabels: { pool } },
    configSelector: { matchLabels: { pool } },
    updateStrategy: { type: 'Serial', serial: { slots: 1, leaseDurationSeconds: 30 } },
  });
  const onRevision = (revision: string, what: string) =>
    eventually(
      what,
      async () => {
        const list = await h.nodes(`pool=${pool}`);
        const done = list.every(
          (n) =>
            n.metadata.annotations?.[CURRENT_REVISION_ANNOTATION] === revision &&
            n.metadata.annotations?.[STATE_ANNOTATION] === 'Done' &&
            n.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True',
        );
        return list.length === 3 && done ? true : undefined;
      },
      120_000,
    );
  await onRevision(revisionNameFor(pool, { [`${pool}-kubelet`]: kubeletConfig('1') }), 'the first revision');

  const readiness = await watchReadiness(names);
  const leases = await LeaseHistory.start(h.light, pool);
  try {
    await h.applyConfig(`${pool}-kubelet`, kubeletConfig('2'), { pool });
    await onRevision(
      revisionNameFor(pool, { [`${pool}-kubelet`]: kubeletConfig('2') }),
      'every node on the second revision, Ready',
    );
    assert.ok(
      readiness.seen.filter((s) => s.endsWith(' NotReady')).length >= 3,
      `every kubelet restart showed as NotReady: ${readiness.seen.join(', ')}`,
    );
    assert.equal(
      readiness.maxNotReady,
      1,
      `one slot, one node NotReady at a time: ${readiness.seen.join(', ')}`,
    );
    // A loaded machine may make the controller miss the agents' grace now and then, not every time.
    const takeovers = leases.takeovers();
    assert.ok(
      takeovers.length >= 1,
      `the controller moved the slot from a finished node straight to the next: ${JSON.stringify(leases.versions)}`,
    );
    for (const { name, to } of takeovers)
      assert.ok(
        [...(readiness.told.get(to) ?? [])].some((text) => JSON.parse(text).lease === name),
        `${to} was told on its Node that it holds ${name}: ${JSON.stringify([...readiness.told])}`,
      );
    await eventually('the slot hand-overs gone from the Nodes with the gate', async () =>
      (await h.nodes(`pool=${pool}`)).every(
        (n) => n.metadata.annotations?.[SERIAL_SLOT_ANNOTATION] === undefined,
      )
        ? true
        : undefined,
    );
  } finally {
    readiness.stop();
    leases.stop();
  }
});

// A Serial holder whose watch of its Node runs behind: the apply restarts a unit, the Node turns
// NotReady at the server (as a restarted kubelet makes it) before the agent reports Done, and the
// watch shows that only later. The agent must keep its slot until the Node is Ready again, judging on
// the newest Node it knows (the answer to its own Done report), not on the watch's older copy, which
// still says Ready: giving the slot back then let the next node restart its kubelet beside this
// one (524 nodes NotReady on 500 slots at 5,000 nodes, issue 17).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WatchHandlers, WatchOptions, WatchQuery } from '../../../src/kube/kube-watch.ts';
import type { LightKubeClient } from '../../../src/kube/light/light-kube-client.ts';
import { eventually } from '../../support/eventually.ts';
import {
  type Cluster,
  createRevision,
  demoServiceSpec,
  startCluster,
  startNode,
  waitForState,
} from '../agent-harness.ts';
import { gateSerial, LeaseHistory, setReady } from '../serial-support.ts';

/** How far behind the agent's watch of its Node runs. */
const WATCH_DELAY_MS = 1500;

/** The node's client, with every Node watch event delivered WATCH_DELAY_MS late (order kept). */
function withLateNodeWatch(client: LightKubeClient): LightKubeClient {
  const late = Object.create(client) as LightKubeClient;
  late.watch = <T>(path: string, query: WatchQuery, handlers: WatchHandlers<T>, options?: WatchOptions) =>
    client.watch<T>(
      path,
      query,
      path === '/api/v1/nodes'
        ? { onEvent: (event) => setTimeout(() => handlers.onEvent(event), WATCH_DELAY_MS) }
        : handlers,
      options,
    );
  return late;
}

describe('a Serial holder whose Node watch runs behind', () => {
  let cluster: Cluster;

  before(async () => {
    cluster = await startCluster();
  });
  after(async () => {
    await cluster?.stop();
  });

  it('keeps its slot until its Node is Ready again, though the watch still shows it Ready', async () => {
    const name = 'late-a';
    const revision = await createRevision(cluster, 'late', demoServiceSpec('1'));
    const leases = await LeaseHistory.start(cluster.admin, 'late');
    try {
      // The unit's restart takes long enough for the NotReady to be written before the agent's Done.
      const node = await startNode(cluster, name, {
        systemd: { targetDurations: { 'demo.service': { restart: 400 } } },
      });
      await setReady(cluster, name, true);
      await node.restart({ client: withLateNodeWatch(node.client) });
      // The agent's (late) watch has shown it Ready before it is gated.
      await sleep(WATCH_DELAY_MS + 200);
      await gateSerial(cluster, name, revision.metadata.name, {
        pool: 'late',
        slots: 1,
        leaseDurationSeconds: 60,
      });
      await eventually('the node applying on the slot', () =>
        leases.versions.at(-1)?.holder === name ? true : undefined,
      );
      // What the restarted kubelet does: the Node is NotReady at the server while the unit restarts.
      await setReady(cluster, name, false);
      await waitForState(cluster, name, 'Done', 10_000);
      // The watch has not shown the NotReady yet (it is WATCH_DELAY_MS behind); the slot stays held
      // past the time it shows it, and after.
      await sleep(WATCH_DELAY_MS + 1000);
      assert.equal(
        leases.versions.at(-1)?.holder,
        name,
        `the slot was given back while the node was NotReady: ${JSON.stringify(leases.versions)}`,
      );
      await setReady(cluster, name, true);
      await eventually(
        'the slot given back once the node is Ready again',
        () => (leases.versions.at(-1)?.holder === undefined ? true : undefined),
        10_000,
      );
    } finally {
      leases.stop();
    }
  });
});

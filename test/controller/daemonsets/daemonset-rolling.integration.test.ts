// AdvancedRollingUpdate end to end: the embedded API server, a simulated fleet, the simulated
// DaemonSet controller and pod status writer, and the rollout controller (with its DaemonSet updater)
// under its least-privilege identity. An independent observer checks the budget on every change it sees.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isNodeReady } from '../../../src/controller/daemonsets/daemon-nodes.ts';
import {
  type ControllerRevision,
  currentRevisionOf,
  type DaemonPod,
  type DaemonSet,
} from '../../../src/controller/daemonsets/daemonset-types.ts';
import { Informer } from '../../../src/kube/informer.ts';
import type { Node } from '../../../src/kube/types.ts';
import { templateHash } from '../../../src/sim/simulated-daemonset-controller.ts';
import { ClusterHarness, eventually } from '../support/cluster-harness.ts';
import {
  createDaemonSet,
  daemonPods,
  NAMESPACE,
  podReady,
  setImage,
  startSimulatedWorkloads,
} from '../support/daemonsets.ts';

const NODES = 8;
const MAX_UNAVAILABLE = 2;
const hashOf = (pod: DaemonPod) => pod.metadata.labels?.['controller-revision-hash'];

/**
 * Watches the DaemonSet's pods, revisions and the nodes, and after every change counts what the
 * update has made unavailable: nodes without a live pod, pods being deleted, and pods of the current
 * revision that are not Ready. Outdated pods on NotReady nodes are not the update's doing, and neither
 * is a node that drops out on its own (a missed heartbeat on a loaded machine): such a node is left out
 * of the count from then on and named in the result.
 */
class BudgetObserver {
  readonly pods: Informer<DaemonPod>;
  readonly revisions: Informer<ControllerRevision>;
  readonly nodes: Informer<Node>;
  maxSeen = 0;
  samples = 0;
  worst: string[] = [];
  /** Nodes that went NotReady without the test taking them offline. */
  readonly unexpected = new Set<string>();
  private readonly offline: ReadonlySet<string>;
  private daemonSet: DaemonSet | undefined;

  constructor(harness: ClusterHarness, app: string, offline: readonly string[]) {
    this.offline = new Set(offline);
    const client = harness.admin;
    this.pods = new Informer<DaemonPod>(client, { path: '/api/v1/pods', labelSelector: `app=${app}` });
    this.revisions = new Informer<ControllerRevision>(client, {
      path: '/apis/apps/v1/controllerrevisions',
      labelSelector: `app=${app}`,
    });
    this.nodes = new Informer<Node>(client, { path: '/api/v1/nodes' });
    this.pods.on(() => this.sample());
    this.revisions.on(() => this.sample());
    this.nodes.on(() => this.sample());
  }

  async start(daemonSet: DaemonSet): Promise<void> {
    this.daemonSet = daemonSet;
    this.pods.start();
    this.revisions.start();
    this.nodes.start();
    await Promise.all([this.pods, this.revisions, this.nodes].map((i) => i.waitForSync()));
    this.sample();
  }

  async stop(): Promise<void> {
    await Promise.all([this.pods.stop(), this.revisions.stop(), this.nodes.stop()]);
  }

  private sample(): void {
    if (!this.daemonSet) return;
    const current = currentRevisionOf(this.daemonSet, this.revisions.list());
    if (!current) return;
    const target = current.metadata.labels?.['controller-revision-hash'];
    const unavailable: string[] = [];
    const pods = this.pods.list();
    for (const node of this.nodes.list()) {
      const name = node.metadata.name;
      if (!this.offline.has(name) && !isNodeReady(node)) this.unexpected.add(name);
      if (this.unexpected.has(name)) continue;
      const onNode = pods.filter((p) => p.spec?.nodeName === name);
      const live = onNode.find((p) => p.metadata.deletionTimestamp === undefined);
      if (!live) unavailable.push(`${name}: no live pod`);
      else if (hashOf(live) === target && !podReady(live)) unavailable.push(`${name}: new pod not Ready`);
    }
    this.samples++;
    if (unavailable.length > this.maxSeen) {
      this.maxSeen = unavailable.length;
      this.worst = unavailable;
    }
  }
}

describe('DaemonSet AdvancedRollingUpdate', () => {
  let harness: ClusterHarness;
  let workloads: Awaited<ReturnType<typeof startSimulatedWorkloads>>;
  let names: string[];

  before(async () => {
    // A grace period that a loaded machine's heartbeats keep up with (a node dropping out on its own is
    // tolerated, but makes the run check less).
    harness = await ClusterHarness.start({ graceMs: 4_000, fleet: { agent: undefined } });
    names = (await harness.fleet.add(NODES)).map((n) => n.name).sort();
    workloads = await startSimulatedWorkloads(harness.admin);
    await harness.startController();
  });
  after(async () => {
    await workloads?.stop();
    await harness?.stop();
  });

  test('updates Ready nodes within the budget, never stalls on NotReady ones, updates them when they return', async () => {
    const created = await createDaemonSet(harness.admin, 'edge-agent', {
      annotations: {
        'nodeherd.io/update-strategy': 'AdvancedRollingUpdate',
        'nodeherd.io/max-unavailable': String(MAX_UNAVAILABLE),
      },
    });
    await eventually('a Ready pod on every node', async () => {
      const pods = await daemonPods(harness.admin, 'edge-agent');
      return pods.length === NODES && pods.every(podReady);
    });
    // Two edge nodes lose their connection before the update.
    const offline = [names[1]!, names[4]!];
    for (const name of offline) harness.fleet.partition(name, Number.POSITIVE_INFINITY);
    await eventually(
      'the offline nodes NotReady and their pods not Ready',
      async () => {
        const pods = await daemonPods(harness.admin, 'edge-agent');
        return offline.every((n) => pods.some((p) => p.spec?.nodeName === n && !podReady(p)));
      },
      30_000,
    );

    const observer = new BudgetObserver(harness, 'edge-agent', offline);
    await observer.start(created);
    try {
      const changed = await setImage(harness.admin, 'edge-agent', 'registry.example/edge-agent:2');
      const target = templateHash(changed.spec!.template);

      // Every Ready node is updated while the offline ones wait: the update does not stall on them.
      const online = names.filter((n) => !offline.includes(n));
      const pods = await eventually(
        'every online node updated',
        async () => {
          const pods = await daemonPods(harness.admin, 'edge-agent');
          return (
            online.every((n) =>
              pods.some((p) => p.spec?.nodeName === n && hashOf(p) === target && podReady(p)),
            ) && pods
          );
        },
        60_000,
      );
      for (const name of offline) {
        const pod = pods.find((p) => p.spec?.nodeName === name);
        assert.notEqual(pod && hashOf(pod), target, `${name} is offline: its pod waits`);
      }
      const waiting = await eventually('an Event names the waiting nodes', async () => {
        const events = await harness.events('DaemonSet', 'edge-agent');
        return events.find(
          (e) => e.reason === 'WaitingForNodes' && offline.every((n) => e.message.includes(n)),
        );
      });
      assert.equal(waiting.type, 'Normal');

      // They come back one after the other and are updated then.
      for (const name of offline) {
        harness.fleet.heal(name);
        await eventually(
          `${name} updated after it returned`,
          async () => {
            const pods = await daemonPods(harness.admin, 'edge-agent');
            return pods.some((p) => p.spec?.nodeName === name && hashOf(p) === target && podReady(p));
          },
          60_000,
        );
      }
      const final = await daemonPods(harness.admin, 'edge-agent');
      assert.equal(final.length, NODES);
      assert.ok(
        final.every((p) => hashOf(p) === target && podReady(p)),
        'every pod updated in the end',
      );
      assert.deepEqual(final.map((p) => p.spec?.nodeName).sort(), names);
      // Events are sent in the background: wait for them, then check none is extra.
      const deletions = async () =>
        (await harness.events('DaemonSet', 'edge-agent'))
          .filter((e) => e.reason === 'UpdatingPod')
          .reduce((sum, e) => sum + e.count, 0);
      await eventually('an UpdatingPod Event per pod', async () => (await deletions()) >= NODES);
      assert.equal(await deletions(), NODES, 'each pod deleted exactly once');
    } finally {
      await observer.stop();
    }
    assert.ok(observer.samples > NODES, `the observer saw the rollout (${observer.samples} changes)`);
    assert.ok(observer.maxSeen >= 1, 'the update used its budget');
    assert.ok(
      observer.maxSeen <= MAX_UNAVAILABLE,
      `at most ${MAX_UNAVAILABLE} unavailable at any observed moment, saw ${observer.maxSeen}: ${observer.worst.join('; ')} (left out, NotReady on their own: ${[...observer.unexpected].join(', ') || 'none'})`,
    );
  });

  test('an updated pod whose node goes down is outdated by the next template and waits like any other', async () => {
    await createDaemonSet(harness.admin, 'probe', {
      annotations: {
        'nodeherd.io/update-strategy': 'AdvancedRollingUpdate',
        'nodeherd.io/max-unavailable': '1',
      },
    });
    await eventually('a Ready pod on every node', async () => {
      const pods = await daemonPods(harness.admin, 'probe');
      return pods.length === NODES && pods.every(podReady);
    });
    const first = await setImage(harness.admin, 'probe', 'registry.example/probe:2');
    const second = templateHash(first.spec!.template);
    await eventually(
      'all on the second template',
      async () => {
        const pods = await daemonPods(harness.admin, 'probe');
        return pods.length === NODES && pods.every((p) => hashOf(p) === second && podReady(p));
      },
      60_000,
    );
    // An updated pod's node goes down: its pod is current and unavailable, which uses the one slot.
    const broken = names[0]!;
    harness.fleet.partition(broken, Number.POSITIVE_INFINITY);
    await eventually(
      'the broken pod not Ready',
      async () => {
        const pods = await daemonPods(harness.admin, 'probe');
        return pods.some((p) => p.spec?.nodeName === broken && !podReady(p));
      },
      30_000,
    );
    const changed = await setImage(harness.admin, 'probe', 'registry.example/probe:3');
    const third = templateHash(changed.spec!.template);
    // Its pod is now outdated on a NotReady node: it waits and frees the slot, so the others proceed.
    await eventually(
      'the others updated to the third template',
      async () => {
        const pods = await daemonPods(harness.admin, 'probe');
        return names
          .slice(1)
          .every((n) => pods.some((p) => p.spec?.nodeName === n && hashOf(p) === third && podReady(p)));
      },
      60_000,
    );
    harness.fleet.heal(broken);
    await eventually(
      'the returned node updated',
      async () => {
        const pods = await daemonPods(harness.admin, 'probe');
        return pods.some((p) => p.spec?.nodeName === broken && hashOf(p) === third && podReady(p));
      },
      60_000,
    );
  });

  test('an annotation nodeherd cannot honour is reported once, as a Warning Event', async () => {
    await createDaemonSet(harness.admin, 'typo', { annotations: { 'nodeherd.io/update-strategy': 'Surge' } });
    const first = await eventually('a Warning about the value', async () => {
      const events = await harness.events('DaemonSet', 'typo');
      return events.find((e) => e.reason === 'UpdateStrategyIgnored');
    });
    assert.equal(first.type, 'Warning');
    assert.match(first.message, /"Surge" is not one of AdvancedRollingUpdate, OTA/);
    // Changes that do not touch the value or the generation reconcile again, but say nothing new.
    for (let i = 0; i < 3; i++) {
      await harness.admin.patch(`/apis/apps/v1/namespaces/${NAMESPACE}/daemonsets/typo`, {
        metadata: { labels: { touched: String(i) } },
      });
    }
    await harness.admin.patch(`/apis/apps/v1/namespaces/${NAMESPACE}/daemonsets/typo`, {
      metadata: { annotations: { 'nodeherd.io/update-strategy': 'Canary' } },
    });
    const events = await eventually('a Warning about the new value', async () => {
      const events = await harness.events('DaemonSet', 'typo');
      return events.some((e) => e.message.includes('"Canary"')) && events;
    });
    const aboutSurge = events.filter((e) => e.message.includes('"Surge"'));
    assert.equal(aboutSurge.length, 1);
    assert.equal(aboutSurge[0]!.count, 1, 'reported once, not once per reconcile');

    await createDaemonSet(harness.admin, 'rolling', {
      updateStrategy: 'RollingUpdate',
      annotations: { 'nodeherd.io/update-strategy': 'AdvancedRollingUpdate' },
    });
    const rolling = await eventually('a Warning about the update strategy type', async () => {
      const events = await harness.events('DaemonSet', 'rolling');
      return events.find((e) => e.reason === 'UpdateStrategyIgnored');
    });
    assert.match(rolling.message, /needs spec\.updateStrategy\.type OnDelete, but it is RollingUpdate/);
  });
});

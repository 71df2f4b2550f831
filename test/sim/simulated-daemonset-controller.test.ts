import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DaemonPod } from '../../src/controller/daemonsets/daemonset-types.ts';
import { templateHash } from '../../src/sim/simulated-daemonset-controller.ts';
import { ClusterHarness, eventually } from '../support/cluster-harness.ts';
import {
  createDaemonSet,
  daemonPods,
  getDaemonSet,
  NAMESPACE,
  podReady,
  revisionsOf,
  setImage,
  startSimulatedWorkloads,
} from '../support/daemonsets.ts';

const hashOf = (pod: DaemonPod) => pod.metadata.labels?.['controller-revision-hash'];
const byNode = (pods: DaemonPod[]) =>
  Object.fromEntries(
    pods.map((p) => [p.spec?.nodeName, hashOf(p)]).sort(([a], [b]) => String(a).localeCompare(String(b))),
  );

describe('simulated DaemonSet controller and pod status', () => {
  let harness: ClusterHarness;
  let workloads: Awaited<ReturnType<typeof startSimulatedWorkloads>>;
  let nodes: string[];

  before(async () => {
    harness = await ClusterHarness.start({ fleet: { agent: undefined } });
    const edge = await harness.fleet.add(2, { labels: { tier: 'edge' } });
    await harness.fleet.add(1, { labels: { tier: 'core' } });
    nodes = edge.map((n) => n.name);
    workloads = await startSimulatedWorkloads(harness.admin);
  });
  after(async () => {
    await workloads?.stop();
    await harness?.stop();
  });

  test('one pod per selected node, a ControllerRevision per template, and the status', async () => {
    const created = await createDaemonSet(harness.admin, 'logs', { nodeSelector: { tier: 'edge' } });
    const hash = templateHash(created.spec!.template);
    const pods = await eventually('two Ready pods on the edge nodes', async () => {
      const pods = await daemonPods(harness.admin, 'logs');
      return pods.length === 2 && pods.every(podReady) && pods;
    });
    assert.deepEqual(Object.keys(byNode(pods)), [...nodes].sort());
    for (const pod of pods) {
      assert.equal(hashOf(pod), hash);
      assert.equal(pod.metadata.labels?.['pod-template-generation'], '1');
      assert.equal(pod.status?.phase, 'Running');
      const owner = pod.metadata.ownerReferences?.[0];
      assert.deepEqual(
        { kind: owner?.kind, name: owner?.name, uid: owner?.uid, controller: owner?.controller },
        { kind: 'DaemonSet', name: 'logs', uid: created.metadata.uid, controller: true },
      );
    }
    const [revision, ...more] = await revisionsOf(harness.admin, 'logs');
    assert.equal(more.length, 0);
    assert.equal(revision?.metadata.name, `logs-${hash}`);
    assert.equal(revision?.revision, 1);
    assert.equal(revision?.metadata.labels?.['controller-revision-hash'], hash);
    assert.equal(revision?.metadata.ownerReferences?.[0]?.uid, created.metadata.uid);
    const status = await eventually('status', async () => {
      const ds = await getDaemonSet(harness.admin, 'logs');
      return ds.status?.numberReady === 2 && ds.status;
    });
    assert.deepEqual(status, {
      desiredNumberScheduled: 2,
      currentNumberScheduled: 2,
      numberMisscheduled: 0,
      numberReady: 2,
      numberAvailable: 2,
      numberUnavailable: 0,
      updatedNumberScheduled: 2,
      observedGeneration: 1,
    });
  });

  test('OnDelete: a new template leaves pods alone; a deleted pod comes back from the current one', async () => {
    const before = byNode(await daemonPods(harness.admin, 'logs'));
    const changed = await setImage(harness.admin, 'logs', 'registry.example/agent:2');
    const newHash = templateHash(changed.spec!.template);
    const revisions = await eventually('second revision', async () => {
      const list = await revisionsOf(harness.admin, 'logs');
      return list.length === 2 && list;
    });
    assert.deepEqual(
      revisions.map((r) => [r.revision, r.metadata.labels?.['controller-revision-hash']]),
      [
        [1, Object.values(before)[0]],
        [2, newHash],
      ],
    );
    await eventually('status sees no pod updated', async () => {
      const ds = await getDaemonSet(harness.admin, 'logs');
      return ds.status?.observedGeneration === 2 && ds.status.updatedNumberScheduled === 0;
    });
    assert.deepEqual(byNode(await daemonPods(harness.admin, 'logs')), before);

    const victim = (await daemonPods(harness.admin, 'logs')).find((p) => p.spec?.nodeName === nodes[0])!;
    await harness.admin.delete(`/api/v1/namespaces/${NAMESPACE}/pods/${victim.metadata.name}`);
    const after = await eventually('the pod recreated at the new revision', async () => {
      const pods = await daemonPods(harness.admin, 'logs');
      const replaced = pods.find((p) => p.spec?.nodeName === nodes[0]);
      return pods.length === 2 && replaced && hashOf(replaced) === newHash && podReady(replaced) && pods;
    });
    assert.equal(byNode(after)[nodes[1]!], before[nodes[1]!], 'the other pod is untouched');
    const fresh = after.find((p) => p.spec?.nodeName === nodes[0])!;
    assert.equal(fresh.metadata.labels?.['pod-template-generation'], '2');
    assert.equal(
      (fresh.spec as { containers?: { image?: string }[] }).containers?.[0]?.image,
      'registry.example/agent:2',
    );
  });

  test('re-applying an older template moves its ControllerRevision to the top', async () => {
    const back = await setImage(harness.admin, 'logs', 'registry.example/agent:1');
    const oldHash = templateHash(back.spec!.template);
    const revisions = await eventually('the old revision renumbered 3', async () => {
      const list = await revisionsOf(harness.admin, 'logs');
      return list.length === 2 && list.at(-1)?.revision === 3 && list;
    });
    assert.equal(revisions.at(-1)?.metadata.labels?.['controller-revision-hash'], oldHash);
  });

  test('a pod turns Ready=False while its node is NotReady and Ready again when it returns', async () => {
    const node = nodes[1]!;
    harness.fleet.partition(node, Number.POSITIVE_INFINITY);
    const down = await eventually('pod NotReady', async () => {
      const pod = (await daemonPods(harness.admin, 'logs')).find((p) => p.spec?.nodeName === node);
      return pod && !podReady(pod) && pod;
    });
    const ready = down.status?.conditions?.find((c) => c.type === 'Ready');
    assert.equal(ready?.reason, 'NodeNotReady');
    await eventually('status counts it unavailable', async () => {
      const ds = await getDaemonSet(harness.admin, 'logs');
      return ds.status?.numberUnavailable === 1 && ds.status.numberReady === 1;
    });
    harness.fleet.heal(node);
    await eventually(
      'pod Ready again',
      async () => {
        const pod = (await daemonPods(harness.admin, 'logs')).find((p) => p.spec?.nodeName === node);
        return pod && podReady(pod);
      },
      30_000,
    );
  });

  test('RollingUpdate: the controller replaces outdated pods itself', async () => {
    await createDaemonSet(harness.admin, 'metrics', { updateStrategy: 'RollingUpdate' });
    await eventually('three Ready pods', async () => {
      const pods = await daemonPods(harness.admin, 'metrics');
      return pods.length === 3 && pods.every(podReady);
    });
    const changed = await setImage(harness.admin, 'metrics', 'registry.example/metrics:2');
    const hash = templateHash(changed.spec!.template);
    await eventually(
      'every pod replaced',
      async () => {
        const pods = await daemonPods(harness.admin, 'metrics');
        return pods.length === 3 && pods.every((p) => hashOf(p) === hash && podReady(p));
      },
      30_000,
    );
  });
});

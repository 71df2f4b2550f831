// OTA DaemonSet updates end to end: the controller marks outdated pods with nodeherd.io/UpdateAvailable,
// and the agent's local API (over HTTP, with the node's own identity) lists and upgrades them.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AgentHttpServer } from '../../../src/agent/http/agent-http-server.ts';
import type { PodUpdateState } from '../../../src/agent/ota/pod-update-state.ts';
import { PodUpdatesApi } from '../../../src/agent/ota/pod-updates-api.ts';
import type { DaemonPod } from '../../../src/controller/daemonsets/daemonset-types.ts';
import { LightKubeClient } from '../../../src/kube/light/light-kube-client.ts';
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

const hashOf = (pod: DaemonPod) => pod.metadata.labels?.['controller-revision-hash'];
const updateCondition = (pod: DaemonPod | undefined) =>
  pod?.status?.conditions?.find((c) => c.type === 'nodeherd.io/UpdateAvailable');

describe('DaemonSet OTA updates', () => {
  let harness: ClusterHarness;
  let workloads: Awaited<ReturnType<typeof startSimulatedWorkloads>>;
  let names: string[];
  let agentClient: LightKubeClient;
  let http: AgentHttpServer;
  let base: string;
  let newHash: string;

  async function call(
    method: 'GET' | 'POST',
    path: string,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(`${base}${path}`, { method });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }
  const upgrade = (name: string) => call('POST', `/v1/namespaces/${NAMESPACE}/pods/${name}/upgrade`);
  const podOn = async (node: string) =>
    (await daemonPods(harness.admin, 'ota-app')).find((p) => p.spec?.nodeName === node);

  before(async () => {
    harness = await ClusterHarness.start({ fleet: { agent: undefined } });
    names = (await harness.fleet.add(3)).map((n) => n.name).sort();
    workloads = await startSimulatedWorkloads(harness.admin);
    await harness.startController();
    // The local API of the agent on the first node, with that node's own identity.
    const kubeconfig = join(harness.local.dataDir, 'ota-agent.kubeconfig');
    await harness.local.server.issueCredential('node', names[0]!, kubeconfig);
    agentClient = LightKubeClient.fromKubeconfig(kubeconfig, { requestTimeoutMs: 5_000 });
    http = new AgentHttpServer(
      { health: () => ({ healthy: true, body: {} }), renderMetrics: () => '' },
      { port: 0 },
    );
    new PodUpdatesApi({ client: agentClient, nodeName: names[0]! }).register(http);
    const address = await http.listen();
    base = `http://${address.host}:${address.port}`;
  });
  after(async () => {
    await http?.close();
    agentClient?.close();
    await workloads?.stop();
    await harness?.stop();
  });

  test('outdated pods get UpdateAvailable=True naming the target revision, and nothing is deleted', async () => {
    await createDaemonSet(harness.admin, 'ota-app', {
      annotations: { 'nodeherd.io/update-strategy': 'OTA' },
    });
    const before = await eventually('a Ready pod on every node', async () => {
      const pods = await daemonPods(harness.admin, 'ota-app');
      return pods.length === 3 && pods.every(podReady) && pods;
    });
    assert.ok(
      before.every((p) => updateCondition(p) === undefined),
      'current pods carry no condition',
    );
    const changed = await setImage(harness.admin, 'ota-app', 'registry.example/ota-app:2');
    newHash = templateHash(changed.spec!.template);
    const marked = await eventually('every pod marked', async () => {
      const pods = await daemonPods(harness.admin, 'ota-app');
      return pods.every((p) => updateCondition(p)?.status === 'True') && pods;
    });
    for (const pod of marked) {
      const condition = updateCondition(pod)!;
      assert.equal(condition.reason, 'NewRevision');
      assert.match(condition.message ?? '', new RegExp(`revision ${newHash}\\b`));
      assert.notEqual(hashOf(pod), newHash);
    }
    assert.deepEqual(
      marked.map((p) => p.metadata.uid).sort(),
      before.map((p) => p.metadata.uid).sort(),
      'OTA deletes nothing by itself',
    );
  });

  test('the agent lists the pods of its own node with their update state', async () => {
    const { status, body } = await call('GET', '/v1/pods');
    assert.equal(status, 200);
    assert.equal(body.node, names[0]);
    const pods = body.pods as PodUpdateState[];
    const mine = pods.filter((p) => p.daemonSet === 'ota-app');
    assert.equal(mine.length, 1);
    assert.deepEqual(
      {
        updateAvailable: mine[0]!.updateAvailable,
        targetRevision: mine[0]!.targetRevision,
        ready: mine[0]!.ready,
      },
      { updateAvailable: true, targetRevision: newHash, ready: true },
    );
    assert.equal(mine[0]!.name, (await podOn(names[0]!))?.metadata.name);
  });

  test('refuses an unknown pod (404) and a pod of another node (403), touching nothing', async () => {
    const missing = await upgrade('no-such-pod');
    assert.equal(missing.status, 404);
    assert.match(String(missing.body.error), /does not exist/);
    const foreign = (await podOn(names[1]!))!;
    const refused = await upgrade(foreign.metadata.name);
    assert.equal(refused.status, 403);
    assert.match(String(refused.body.error), new RegExp(`not on node ${names[0]}`));
    assert.equal((await podOn(names[1]!))?.metadata.uid, foreign.metadata.uid);
  });

  test('refuses a pod that is being deleted (403)', async () => {
    const pods = `/api/v1/namespaces/${NAMESPACE}/pods`;
    await harness.admin.create(pods, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'terminating', finalizers: ['example.com/hold'] },
      spec: { nodeName: names[0], containers: [{ name: 'main', image: 'busybox' }] },
    });
    await harness.admin.delete(`${pods}/terminating`);
    try {
      const refused = await upgrade('terminating');
      assert.equal(refused.status, 403);
      assert.match(String(refused.body.error), /being deleted/);
    } finally {
      await harness.admin.patch(`${pods}/terminating`, { metadata: { finalizers: null } });
    }
  });

  test('upgrades its own outdated pod (202): the pod comes back at the new revision; no other changes', async () => {
    const old = (await podOn(names[0]!))!;
    const others = await Promise.all(names.slice(1).map(podOn));
    const accepted = await upgrade(old.metadata.name);
    assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
    assert.equal(accepted.body.toRevision, newHash);
    const fresh = await eventually('the pod recreated at the new revision and Ready', async () => {
      const pod = await podOn(names[0]!);
      return pod && pod.metadata.uid !== old.metadata.uid && hashOf(pod) === newHash && podReady(pod) && pod;
    });
    assert.equal(updateCondition(fresh), undefined, 'a current pod needs no condition');
    for (const [i, pod] of others.entries()) {
      const now = await podOn(names[i + 1]!);
      assert.equal(now?.metadata.uid, pod?.metadata.uid, 'other nodes keep their pods');
      assert.equal(updateCondition(now)?.status, 'True');
    }
    // Now current: upgrading it again is refused.
    const again = await upgrade(fresh.metadata.name);
    assert.equal(again.status, 403);
    assert.match(String(again.body.error), /no update available/);
  });

  test('rolling the template back turns the condition False on pods that are current again', async () => {
    await setImage(harness.admin, 'ota-app', 'registry.example/agent:1');
    await eventually('conditions follow the new current revision', async () => {
      const [first, ...rest] = await Promise.all(names.map(podOn));
      return (
        updateCondition(first)?.status === 'True' &&
        rest.every((p) => updateCondition(p)?.status === 'False' && updateCondition(p)?.reason === 'UpToDate')
      );
    });
  });

  test('a DaemonSet that stops being OTA has its offers withdrawn, and the agent refuses them', async () => {
    await harness.admin.patch(`/apis/apps/v1/namespaces/${NAMESPACE}/daemonsets/ota-app`, {
      metadata: { annotations: { 'nodeherd.io/update-strategy': null } },
    });
    const pod = await eventually('the offer withdrawn', async () => {
      const pod = await podOn(names[0]!);
      return updateCondition(pod)?.status === 'False' && pod;
    });
    assert.equal(updateCondition(pod)?.reason, 'NotOverTheAir');
    const refused = await upgrade(pod.metadata.name);
    assert.equal(refused.status, 403);
    assert.equal((await podOn(names[0]!))?.metadata.uid, pod.metadata.uid);
  });

  test('answers 503 while the API server is unreachable', async () => {
    const pod = (await podOn(names[0]!))!;
    await harness.local.server.stop();
    try {
      const listed = await call('GET', '/v1/pods');
      assert.equal(listed.status, 503);
      assert.match(String(listed.body.error), /unreachable/);
      const refused = await upgrade(pod.metadata.name);
      assert.equal(refused.status, 503);
    } finally {
      await harness.local.restart();
    }
  });
});

// Ctrl-C in the middle of a rollout, a rerun later: the rollout goes on. The Nodes keep the status
// they had when the run stopped (a node restarting its kubelet: NotReady) and the time its update
// started; a controller that judged them before the nodes were back blamed the stale NotReady on the
// update ("not healthy Ns after its update started") and paused the pool by its failure policy.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { CURRENT_REVISION_ANNOTATION } from '../../src/api/node-protocol.ts';
import { UPDATE_STARTED_ANNOTATION } from '../../src/controller/annotations.ts';
import type { KubeClient } from '../../src/kube/kube-client.ts';
import { LocalCluster } from '../../src/up/local-cluster.ts';

const GROUP = '/apis/nodeherd.io/v1alpha1';
const PROGRESS_DEADLINE_SECONDS = 8;
const stateDir = mkdtempSync(join(tmpdir(), 'nodeherd-up-resume-'));
let running: LocalCluster | undefined;
after(async () => {
  await running?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

interface NodeObject {
  metadata: { name: string; annotations?: Record<string, string> };
  status?: { conditions?: { type: string; status: string }[] };
}
interface PoolObject {
  spec: { paused?: boolean };
  status?: {
    targetRevision?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 120_000,
  everyMs = 200,
) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

const ready = (node: NodeObject) =>
  node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
const pool = (client: KubeClient) => client.get<PoolObject>(`${GROUP}/nodeconfigpools/workers`);
const nodes = async (client: KubeClient) =>
  (await client.list<never>('/api/v1/nodes')).items as unknown as NodeObject[];

test('a rerun after Ctrl-C mid-rollout goes on with the rollout; the stale NotReady is not a failure', {
  timeout: 300_000,
}, async () => {
  running = await LocalCluster.start({ stateDir, nodes: 2, port: 0 });
  let client = running.admin;
  await eventually('the sample on both nodes', async () => {
    const target = (await pool(client)).status?.targetRevision;
    const list = await nodes(client);
    return target &&
      list.every((n) => ready(n) && n.metadata.annotations?.[CURRENT_REVISION_ANNOTATION] === target)
      ? true
      : undefined;
  });
  await client.patch(`${GROUP}/nodeconfigpools/workers`, {
    spec: { updateStrategy: { rollingUpdate: { progressDeadlineSeconds: PROGRESS_DEADLINE_SECONDS } } },
  });
  await client.patch(
    `${GROUP}/nodeconfigs/workers-base`,
    [
      {
        op: 'replace',
        path: '/spec/files/0/content/inline/data',
        // A valid configuration: the simulated kubelet refuses one without apiVersion, as kubelet does.
        value: 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 99\n',
      },
    ],
    'json',
  );
  // Stop while a node is NotReady from its kubelet restart, its update under way.
  const inFlight = await eventually(
    'a node NotReady during its update',
    async () =>
      (await nodes(client)).find((n) => n.metadata.annotations?.[UPDATE_STARTED_ANNOTATION] && !ready(n)),
    120_000,
    20,
  );
  const newTarget = (await pool(client)).status?.targetRevision;
  await running.stop();
  running = undefined;
  // Longer than the progress deadline: the update started long ago when the next run begins.
  await new Promise((r) => setTimeout(r, (PROGRESS_DEADLINE_SECONDS + 2) * 1000));

  running = await LocalCluster.start({ stateDir, nodes: 2, port: 0 });
  client = running.admin;
  // The sample's failure policy is Rollback: a false failure shows as RolledBack (or Paused).
  const settled = await eventually('the rollout to end', async () => {
    const p = await pool(client);
    const ended = p.status?.conditions?.some(
      (c) => ['Complete', 'Paused', 'RolledBack'].includes(c.type) && c.status === 'True',
    );
    return ended ? p : undefined;
  });
  const conditions = JSON.stringify(settled.status?.conditions);
  const failed = settled.status?.conditions?.find(
    (c) => (c.type === 'Paused' || c.type === 'RolledBack') && c.status === 'True',
  );
  assert.equal(failed, undefined, `${inFlight.metadata.name} was in flight: ${failed?.message}`);
  assert.equal(settled.spec.paused ?? false, false);
  assert.equal(settled.status?.targetRevision, newTarget, conditions);
  assert.equal(settled.status?.conditions?.find((c) => c.type === 'Complete')?.status, 'True', conditions);
});

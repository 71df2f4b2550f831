// The kubelet upgrade recipe of docs/operations.md, as a user runs it against `nodeherd up`'s cluster
// (embedded API server reporting v1.32.0, rollout controller, simulated kubeadm nodes with kubelet
// 1.31.4 installed, the sample pool), with kubectl and the files in examples/kubelet-upgrade:
// 1. kubelet-v1.31.yaml takes the kubelet package under the pool's management at the version it runs;
// 2. kubelet-v1.33.yaml (newer than the API server) is refused before any node starts it: the pool's
//    Progressing condition and a Warning Event name the package, its version and the server's version;
// 3. kubelet-v1.32.yaml switches the repository to pkgs.k8s.io's v1.32 and the package to 1.32.9-1.1:
//    every Node's nodeInfo.kubeletVersion moves to v1.32.9, the package is held;
// 4. the gate waits: a revision whose package change does not restart kubelet leaves the canary's Node
//    reporting the old version, and the canary is not counted healthy nor the rollout continued until
//    it does;
// 5. a version the repository does not have fails the canary's install (apt's words), before any other
//    node starts.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import {
  CONFIG_DRIFT_CONDITION,
  CURRENT_REVISION_ANNOTATION,
  STATE_ANNOTATION,
} from '../../src/api/node-protocol.ts';
import type { KubeClient } from '../../src/kube/kube-client.ts';
import { KUBE_YAML } from '../../src/util/kube-yaml.ts';
import { REPO_ROOT, runCli } from '../cli/support/cli-cluster.ts';
import { eventually as pollUntil } from '../support/eventually.ts';
import {
  poolCondition as condition,
  everyNodeOn,
  GROUP,
  hasKubectl,
  kubectl,
  upNodes as nodes,
  type UpPool as PoolObject,
  workersPool as pool,
  ready,
  UpRun,
  watchDesiredRevisions,
} from '../support/up-cluster.ts';

const CONFIG = `${GROUP}/nodeconfigs/workers-kubelet`;
const NODES = 3;

const up = new UpRun('nodeherd-kubelet-upgrade-');

interface EventObject {
  type?: string;
  reason?: string;
  message?: string;
  involvedObject?: { kind?: string; name?: string };
}

const kubeletVersions = async (client: KubeClient) =>
  (await nodes(client)).map((n) => n.status?.nodeInfo?.kubeletVersion).sort();

function eventually<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 180_000) {
  return pollUntil(what, check, timeoutMs, 200);
}

/** The pool's target, once every node is Ready and Done on it and the pool says Complete. */
async function complete(client: KubeClient, notTarget?: string): Promise<string | undefined> {
  const p = await pool(client);
  const target = p.status?.targetRevision;
  if (!target || target === notTarget || condition(p, 'Complete')?.status !== 'True') return undefined;
  return (await everyNodeOn(client, target, NODES)) ? target : undefined;
}

/** `kubectl apply -f <file>` as the recipe says (the API client where kubectl is absent). */
async function apply(file: string): Promise<void> {
  const c = up.cluster!;
  if (await hasKubectl()) {
    const applied = await kubectl(['apply', '-f', file], c.kubeconfigPath);
    assert.equal(applied.code, 0, applied.out);
    return;
  }
  const object = parse(readFileSync(join(REPO_ROOT, file), 'utf8'), KUBE_YAML) as Record<string, unknown>;
  try {
    await c.admin.get(CONFIG);
    await c.admin.patch(CONFIG, { spec: object.spec });
  } catch {
    await c.admin.create(`${GROUP}/nodeconfigs`, object);
  }
}

test('the kubelet upgrade recipe: under management at 1.31, a kubelet newer than the API server refused, 1.31 → 1.32 on every node, the gate waits for the reported version', {
  timeout: 600_000,
}, async () => {
  let cluster = await up.start(NODES);
  const client = cluster.admin;
  const sample = await eventually('the sample on every node', () => complete(client));
  assert.deepEqual(await kubeletVersions(client), Array(NODES).fill('v1.31.4'), 'the base image kubelet');

  // The revision each node is ever told to take, from here on.
  const { told, watch } = await watchDesiredRevisions(client);
  const startedOn = (revision: string) =>
    [...told].filter(([, revisions]) => revisions.has(revision)).map(([name]) => name);
  try {
    // 1. The kubelet package under the pool's management, at the version the nodes run.
    await apply('examples/kubelet-upgrade/kubelet-v1.31.yaml');
    const managed = await eventually('the v1.31 pin on every node', () => complete(client, sample));
    assert.deepEqual(await kubeletVersions(client), Array(NODES).fill('v1.31.4'));

    // 2. Newer than the API server (v1.32.0+nodeherd): refused before any node starts.
    if (await hasKubectl()) {
      const version = await kubectl(['version', '-o', 'json'], cluster.kubeconfigPath);
      assert.match(version.out, /"gitVersion": "v1\.32\.0\+nodeherd"/, version.out);
    }
    await apply('examples/kubelet-upgrade/kubelet-v1.33.yaml');
    const refused = await eventually('the skew refusal', async () => {
      const p = await pool(client);
      return condition(p, 'Progressing')?.reason === 'KubeletVersionSkew' ? p : undefined;
    });
    const skewed = refused.status?.targetRevision;
    assert.ok(skewed && skewed !== managed, JSON.stringify(refused.status));
    const progressing = condition(refused, 'Progressing')!;
    assert.equal(progressing.status, 'False');
    assert.match(progressing.message ?? '', /kubelet 1\.33\.5-1\.1 \(kubelet v1\.33\)/);
    assert.match(progressing.message ?? '', /newer than the API server's v1\.32\.0\+nodeherd/);
    assert.equal(condition(refused, 'Complete')?.reason, 'KubeletVersionSkew');
    const events = await eventually('the Warning Event', async () => {
      const list = (await client.list<never>('/api/v1/events')).items as EventObject[];
      const found = list.filter(
        (e) => e.reason === 'KubeletVersionSkew' && e.involvedObject?.name === 'workers',
      );
      return found.length > 0 ? found : undefined;
    });
    assert.equal(events[0]!.type, 'Warning');
    assert.match(events[0]!.message ?? '', /kubelet 1\.33\.5-1\.1.*v1\.32\.0\+nodeherd/);
    // Held, not failed: a few reconciles later still no node was given it, and nothing failed.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    assert.deepEqual(startedOn(skewed), [], 'no node starts a refused revision');
    assert.notEqual(condition(await pool(client), 'Degraded')?.status, 'True');
    assert.deepEqual(await kubeletVersions(client), Array(NODES).fill('v1.31.4'));

    // 3. The next minor: the v1.32 repository and 1.32.9-1.1; every Node reports v1.32.9.
    await apply('examples/kubelet-upgrade/kubelet-v1.32.yaml');
    const upgraded = await eventually('the v1.32 kubelet on every node', () => complete(client, skewed));
    assert.notEqual(upgraded, managed);
    assert.deepEqual(await kubeletVersions(client), Array(NODES).fill('v1.32.9'));
    assert.deepEqual(startedOn(skewed), [], 'the refused revision never reached a node');
    if (await hasKubectl()) {
      const table = await kubectl(['get', 'nodes'], cluster.kubeconfigPath);
      assert.equal(table.code, 0, table.out);
      assert.equal((table.out.match(/v1\.32\.9/g) ?? []).length, NODES, table.out);
    }

    // 4. The gate waits: without kubelet.service listing the package (and the previous revision not
    // listing it either), a package change restarts no kubelet: the canary's Node stays on v1.32.9
    // while its revision pins 1.32.8. Applied and Ready, yet not healthy, and no other node starts.
    const forgot = parse(
      readFileSync(join(REPO_ROOT, 'examples/kubelet-upgrade/kubelet-v1.32.yaml'), 'utf8'),
      KUBE_YAML,
    ) as { spec: { packages: { version: string }[]; units?: unknown } };
    delete forgot.spec.units;
    const setSpec = async (spec: unknown) =>
      client.update(CONFIG, { ...(await client.get<Record<string, unknown>>(CONFIG)), spec });
    await setSpec(forgot.spec);
    await eventually('the unit no longer lists the package', () => complete(client, upgraded));
    forgot.spec.packages[0]!.version = '1.32.8-1.1';
    await setSpec(forgot.spec);
    const waiting = await eventually('the canary waiting for its kubelet', async () => {
      const p = await pool(client);
      const message = condition(p, 'Progressing')?.message ?? '';
      return p.status?.targetRevision !== upgraded &&
        /kubelet reports v1\.32\.9; \S+ pins kubelet 1\.32\.8-1\.1/.test(message)
        ? p
        : undefined;
    });
    const unrestarted = waiting.status!.targetRevision!;
    const canaries = startedOn(unrestarted);
    assert.equal(canaries.length, 1, `started: ${canaries.join(', ')}`);
    const canary = canaries[0]!;
    const canaryNode = (await nodes(client)).find((n) => n.metadata.name === canary)!;
    assert.equal(canaryNode.metadata.annotations?.[CURRENT_REVISION_ANNOTATION], unrestarted);
    assert.equal(canaryNode.metadata.annotations?.[STATE_ANNOTATION], 'Done');
    assert.ok(ready(canaryNode));
    assert.equal(canaryNode.status?.nodeInfo?.kubeletVersion, 'v1.32.9');
    // Well past the soak (minReadySeconds 3): still one node started, not counted ready.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    assert.deepEqual(startedOn(unrestarted), [canary], 'the rollout waits on the canary');
    const still = await pool(client);
    assert.equal(still.status?.ready, 0, JSON.stringify(still.status));
    assert.notEqual(condition(still, 'Complete')?.status, 'True');
    const status = await runCli(['status', 'workers'], { env: { KUBECONFIG: cluster.kubeconfigPath } });
    assert.equal(status.code, 0, status.stderr);

    // Back to the recipe's file: the canary's kubelet restarts with 1.32.9 and every node is complete.
    await apply('examples/kubelet-upgrade/kubelet-v1.32.yaml');
    await eventually('back on the v1.32 recipe', () => complete(client, unrestarted));
    assert.deepEqual(await kubeletVersions(client), Array(NODES).fill('v1.32.9'));

    // 5. A version the repository does not have: the canary's install fails in apt's words and no
    // other node starts it (the failure policy rolls back).
    const missing = structuredClone(forgot);
    missing.spec.packages[0]!.version = '1.32.99-1.1';
    await setSpec(missing.spec);
    const failure = await eventually('the missing version to fail the canary', async () => {
      const list = (await client.list<never>('/api/v1/events')).items as EventObject[];
      return list.find(
        (e) =>
          e.reason === 'UpdateFailed' &&
          (e.message ?? '').includes("Version '1.32.99-1.1' for 'kubelet' was not found"),
      );
    });
    const rolledBack = await eventually('the rollback', async () => {
      const p = await client.get<PoolObject & { metadata: { annotations?: Record<string, string> } }>(
        `${GROUP}/nodeconfigpools/workers`,
      );
      return p.metadata.annotations?.['nodeherd.io/rollback-from'];
    });
    assert.deepEqual(startedOn(rolledBack), [failure.involvedObject?.name], 'only the canary got it');
    await eventually('every node back on the v1.32 recipe', () => complete(client, rolledBack));
    assert.deepEqual(await kubeletVersions(client), Array(NODES).fill('v1.32.9'));
  } finally {
    watch.abort();
  }

  // A second run of `nodeherd up` resumes: the machines keep their packages (packages.json), so the
  // kubelets come back at v1.32.9 and nothing drifted or rolls out again.
  const target = (await pool(cluster.admin)).status?.targetRevision;
  cluster = await up.restart(NODES);
  const resumed = cluster.admin;
  assert.equal(await eventually('the pool as it was', () => complete(resumed)), target);
  await eventually('the kubelets back at v1.32.9', async () => {
    const list = await nodes(resumed);
    return list.every((n) => ready(n) && n.status?.nodeInfo?.kubeletVersion === 'v1.32.9');
  });
  const drifted = (await nodes(resumed)).filter((n) =>
    n.status?.conditions?.some((c) => c.type === CONFIG_DRIFT_CONDITION && c.status === 'True'),
  );
  assert.deepEqual(drifted, [], 'no package drifted across the restart');
});

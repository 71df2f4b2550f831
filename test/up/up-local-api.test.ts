// The simulated nodes of `nodeherd up` serve their agents' local APIs on one local HTTP server, under
// /nodes/<node>/: a node's owner pulls an OTA update (GET/POST /v1/update) and upgrades an OTA
// DaemonSet pod (GET /v1/pods, POST …/upgrade) as on a real node, and (simulation only) makes a
// node's OS ask for a reboot (POST /v1/simulation/reboot-required). The cluster is the real one of `up`
// (API server, controller, agents), started in this process.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  AVAILABLE_REVISION_ANNOTATION,
  CURRENT_REVISION_ANNOTATION,
  DAEMONSET_STRATEGY_ANNOTATION,
  REBOOT_REQUIRED_CONDITION,
  STATE_ANNOTATION,
} from '../../src/api/node-protocol.ts';
import { LocalCluster } from '../../src/up/local-cluster.ts';
import { printIntroduction } from '../../src/up/messages.ts';
import { eventually as pollUntil } from '../support/eventually.ts';

const GROUP = '/apis/nodeherd.io/v1alpha1';
const stateDir = mkdtempSync(join(tmpdir(), 'nodeherd-up-local-api-'));
let cluster: LocalCluster;
let base = '';

before(async () => {
  cluster = await LocalCluster.start({ stateDir, nodes: 2, port: 0, nodeApiPort: 0 });
  assert.ok(cluster.nodeApi, 'simulated nodes get the node API server');
  base = cluster.nodeApi.url;
});
after(async () => {
  await cluster?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

/** `up` starts real components: give them two minutes, polling every 200 ms. */
function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  return pollUntil(what, check, timeoutMs, 200);
}

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    ...(body !== undefined
      ? { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }
      : {}),
  });
  const text = await response.text();
  return { status: response.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

interface NodeObject {
  metadata: { annotations?: Record<string, string> };
}

test('the startup text says where the node APIs are; /nodes lists them; unknown nodes and paths are 404', async () => {
  let printed = '';
  printIntroduction(
    {
      write: (chunk: string) => {
        printed += chunk;
        return true;
      },
    } as NodeJS.WritableStream,
    cluster,
    'simulated',
  );
  assert.match(base, /^http:\/\/127\.0\.0\.1:\d+\/nodes$/);
  assert.ok(printed.includes(`node APIs    ${base}/<node>/`), printed);
  assert.ok(printed.includes(`curl -X POST ${base}/sim-0001/v1/update`), printed);

  const list = await call('GET', '');
  assert.equal(list.status, 200);
  assert.deepEqual(list.json(), {
    nodes: ['sim-0001', 'sim-0002'].map((name) => ({ name, url: `${base}/${name}` })),
  });
  const health = await call('GET', '/sim-0002/healthz');
  assert.equal(health.status, 200, health.text);
  assert.equal(health.json().node, 'sim-0002', 'the node’s own agent answers');
  const unknown = await call('GET', '/sim-0099/v1/update');
  assert.equal(unknown.status, 404);
  assert.match(unknown.text, /no simulated node \\"sim-0099\\" here; nodes: sim-0001, sim-0002/);
  assert.equal((await call('GET', '/sim-0001/v1/nope')).status, 404);
  assert.equal((await call('DELETE', '/sim-0001/v1/update')).status, 405);
});

test('OTA pool: the owner of one node sees the offered revision and pulls it; the other node stays', async () => {
  const client = cluster.admin;
  // The sample first: a node still on its first apply has no revision yet, and joiners get the
  // target at once instead of an offer.
  await eventually('the sample on every node', async () => {
    const pool = await client.get<{ status?: { targetRevision?: string } }>(
      `${GROUP}/nodeconfigpools/workers`,
    );
    const nodes = (await client.list<never>('/api/v1/nodes')).items as unknown as NodeObject[];
    const done = nodes.every(
      (n) =>
        n.metadata.annotations?.[CURRENT_REVISION_ANNOTATION] === pool.status?.targetRevision &&
        n.metadata.annotations?.[STATE_ANNOTATION] === 'Done',
    );
    return nodes.length === 2 && done ? true : undefined;
  });
  const none = await call('GET', '/sim-0001/v1/update');
  assert.equal(none.status, 404, none.text);
  assert.equal(none.json().reason, 'NoUpdateAvailable');

  await client.patch(`${GROUP}/nodeconfigpools/workers`, {
    spec: { updateStrategy: { type: 'OTA', rollingUpdate: null } },
  });
  await client.patch(
    `${GROUP}/nodeconfigs/workers-base`,
    [
      {
        op: 'replace',
        path: '/spec/files/1/content/inline/data',
        value: 'MESSAGE=over the air\nINTERVAL_SECONDS=30\n',
      },
    ],
    'json',
  );
  const offered = await eventually('the OTA offer on sim-0001', async () => {
    const answer = await call('GET', '/sim-0001/v1/update');
    if (answer.status !== 200) return undefined;
    const body = answer.json() as { availableRevision: string; plan: { summary: string } };
    const pool = await client.get<{ status?: { targetRevision?: string } }>(
      `${GROUP}/nodeconfigpools/workers`,
    );
    return body.availableRevision === pool.status?.targetRevision ? body : undefined;
  });
  assert.match(offered.plan.summary, /1 file changed/);

  const mismatch = await call('POST', '/sim-0001/v1/update', { revision: 'workers-0000000000' });
  assert.equal(mismatch.status, 409, mismatch.text);
  assert.equal(mismatch.json().reason, 'RevisionMismatch');
  const accepted = await call('POST', '/sim-0001/v1/update', { revision: offered.availableRevision });
  assert.equal(accepted.status, 202, accepted.text);

  await eventually('sim-0001 to apply the pulled revision', async () => {
    const node = await client.get<NodeObject>('/api/v1/nodes/sim-0001');
    const a = node.metadata.annotations ?? {};
    return a[CURRENT_REVISION_ANNOTATION] === offered.availableRevision && a[STATE_ANNOTATION] === 'Done'
      ? true
      : undefined;
  });
  const other = await client.get<NodeObject>('/api/v1/nodes/sim-0002');
  assert.notEqual(other.metadata.annotations?.[CURRENT_REVISION_ANNOTATION], offered.availableRevision);
  assert.equal(other.metadata.annotations?.[AVAILABLE_REVISION_ANNOTATION], offered.availableRevision);
});

interface PodState {
  name: string;
  namespace: string;
  updateAvailable: boolean;
  revision?: string;
  targetRevision?: string;
}

test('OTA DaemonSet: the owner lists the node’s pods and upgrades the outdated one', async () => {
  const client = cluster.admin;
  const path = '/apis/apps/v1/namespaces/default/daemonsets';
  await client.create(path, {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {
      name: 'edge-app',
      namespace: 'default',
      annotations: { [DAEMONSET_STRATEGY_ANNOTATION]: 'OTA' },
    },
    spec: {
      selector: { matchLabels: { app: 'edge-app' } },
      updateStrategy: { type: 'OnDelete' },
      template: {
        metadata: { labels: { app: 'edge-app' } },
        spec: { containers: [{ name: 'app', image: 'example/edge-app:1' }] },
      },
    },
  });
  await eventually('the pod of sim-0002', async () => {
    const answer = (await call('GET', '/sim-0002/v1/pods')).json() as { pods: PodState[] };
    return answer.pods.length === 1 ? true : undefined;
  });
  await client.patch(
    `${path}/edge-app`,
    [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'example/edge-app:2' }],
    'json',
  );
  const outdated = await eventually('an update available for the pod of sim-0002', async () => {
    const answer = (await call('GET', '/sim-0002/v1/pods')).json() as { node: string; pods: PodState[] };
    assert.equal(answer.node, 'sim-0002');
    return answer.pods.find((p) => p.updateAvailable);
  });
  const upgraded = await call('POST', `/sim-0002/v1/namespaces/default/pods/${outdated.name}/upgrade`);
  assert.equal(upgraded.status, 202, upgraded.text);
  assert.equal(upgraded.json().toRevision, outdated.targetRevision);
  await eventually('the recreated pod at the new revision', async () => {
    const answer = (await call('GET', '/sim-0002/v1/pods')).json() as { pods: PodState[] };
    const pod = answer.pods[0];
    return answer.pods.length === 1 && pod?.name !== outdated.name && !pod?.updateAvailable
      ? true
      : undefined;
  });
  // The other node's pod is left alone: still outdated, still offered to its owner.
  await eventually('sim-0001’s pod still offered', async () => {
    const pods = ((await call('GET', '/sim-0001/v1/pods')).json() as { pods: PodState[] }).pods;
    return pods.length === 1 && pods[0]?.updateAvailable ? true : undefined;
  });
});

test("simulation: a node's OS asks for a reboot, and its agent says so on the Node at once", async () => {
  const answer = await call('POST', '/sim-0002/v1/simulation/reboot-required', {});
  assert.equal(answer.status, 202, answer.text);
  const condition = await eventually('nodeherd.io/RebootRequired on sim-0002', async () => {
    const node = await cluster.admin.get<{
      status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
    }>('/api/v1/nodes/sim-0002');
    return node.status?.conditions?.find((c) => c.type === REBOOT_REQUIRED_CONDITION && c.status === 'True');
  });
  assert.equal(condition.reason, 'SentinelFile');
  assert.match(condition.message ?? '', /packages: linux-image-amd64$/);
  const other = await cluster.admin.get<{ status?: { conditions?: { type: string }[] } }>(
    '/api/v1/nodes/sim-0001',
  );
  assert.equal(
    other.status?.conditions?.some((c) => c.type === REBOOT_REQUIRED_CONDITION),
    false,
    'the other node writes nothing',
  );
});

test('a node API port in use is a clear error before anything starts', async () => {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  const dir = mkdtempSync(join(tmpdir(), 'nodeherd-up-node-api-port-'));
  try {
    await assert.rejects(
      LocalCluster.start({ stateDir: dir, nodes: 1, port: 0, nodeApiPort: port }),
      new RegExp(`--node-api-port ${port}: the port is already in use`),
    );
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

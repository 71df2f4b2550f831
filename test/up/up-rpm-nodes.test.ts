// `nodeherd up --rpm-nodes`: the last simulated nodes are RPM nodes. Their agents report dnf, they carry
// an RPM osImage and the os-family=rpm label, and a NodeConfig with a dnf repository rolls out to them
// while the apt node of the same pool is not started on it (PackageManagerMismatch says so).

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { CURRENT_REVISION_ANNOTATION, PACKAGE_MANAGER_ANNOTATION } from '../../src/api/node-protocol.ts';
import { RPM_OS_IMAGE } from '../../src/sim/fleet.ts';
import { LocalCluster } from '../../src/up/local-cluster.ts';
import { eventually as pollUntil } from '../support/eventually.ts';

const GROUP = '/apis/nodeherd.io/v1alpha1';
const stateDir = mkdtempSync(join(tmpdir(), 'nodeherd-up-rpm-'));
let cluster: LocalCluster;

before(async () => {
  cluster = await LocalCluster.start({ stateDir, nodes: 2, rpmNodes: 1, port: 0, nodeApiPort: 0 });
});
after(async () => {
  await cluster?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  return pollUntil(what, check, timeoutMs, 200);
}

interface NodeObject {
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  status?: { nodeInfo?: { osImage?: string } };
}
interface PoolObject {
  status?: { targetRevision?: string; conditions?: { type: string; status: string; message?: string }[] };
}

test('an RPM node reports dnf and takes a dnf repository; the apt node of the pool is not started on it', async () => {
  const nodes = await eventually('both agents report their package manager', async () => {
    const list = await cluster.admin.list<NodeObject>('/api/v1/nodes');
    const items = list.items as NodeObject[];
    return items.every((n) => n.metadata.annotations?.[PACKAGE_MANAGER_ANNOTATION]) ? items : undefined;
  });
  const byName = Object.fromEntries(nodes.map((n) => [n.metadata.name, n]));
  assert.equal(byName['sim-0001']?.metadata.annotations?.[PACKAGE_MANAGER_ANNOTATION], 'apt');
  assert.equal(byName['sim-0002']?.metadata.annotations?.[PACKAGE_MANAGER_ANNOTATION], 'dnf');
  assert.equal(byName['sim-0002']?.metadata.labels?.['os-family'], 'rpm');
  assert.equal(byName['sim-0002']?.status?.nodeInfo?.osImage, RPM_OS_IMAGE);
  assert.equal(byName['sim-0001']?.metadata.labels?.['os-family'], undefined);

  const pool = (await cluster.admin.list<{ metadata: { name: string } }>(`${GROUP}/nodeconfigpools`))
    .items[0]!;
  const poolName = (pool as { metadata: { name: string } }).metadata.name;
  const config = (
    await cluster.admin.list<{ metadata: { labels?: Record<string, string> } }>(`${GROUP}/nodeconfigs`)
  ).items[0] as { metadata: { labels?: Record<string, string> } };
  await cluster.admin.create(`${GROUP}/nodeconfigs`, {
    apiVersion: 'nodeherd.io/v1alpha1',
    kind: 'NodeConfig',
    metadata: { name: 'rpm-tools', labels: config.metadata.labels },
    // A repository only: `up`'s simulated packages offer nothing to install, on either family.
    spec: {
      repositories: [{ name: 'epel', manager: 'dnf', uri: 'https://mirror.example.com/epel/9/x86_64/' }],
    },
  });
  const done = await eventually('the RPM node on the new revision, the apt node refused', async () => {
    const p = (await cluster.admin.get(`${GROUP}/nodeconfigpools/${poolName}`)) as PoolObject;
    const mismatch = p.status?.conditions?.find((c) => c.type === 'PackageManagerMismatch');
    const rpmNode = (await cluster.admin.get('/api/v1/nodes/sim-0002')) as NodeObject;
    return mismatch?.status === 'True' &&
      rpmNode.metadata.annotations?.[CURRENT_REVISION_ANNOTATION] === p.status?.targetRevision
      ? mismatch
      : undefined;
  });
  assert.match(done.message ?? '', /sim-0001 \(.*for dnf; this node's package manager is apt/);
});

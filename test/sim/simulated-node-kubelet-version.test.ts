// A simulated node's kubelet reports the version of its installed package, as a real kubelet reports
// the binary it runs: the base image's kubelet at first, a newly installed package only once kubelet
// restarts. Its packages come from pkgs.k8s.io's per-minor repositories (a small simulated catalogue):
// a version the repository does not have fails to install in apt's words, and a repository of one minor
// offers nothing of another. The packages are kept on disk across runs (`nodeherd up`).

import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { SimulatedPackages } from '../../src/agent/executors/simulated-packages.ts';
import type { RenderedRepository } from '../../src/api/types.ts';
import { DurableNodePackages } from '../../src/sim/durable-node-packages.ts';
import { Fleet } from '../../src/sim/fleet.ts';
import { kubernetesCatalogue, kubernetesRepositoryUri } from '../../src/sim/kubernetes-repositories.ts';
import { eventually } from '../support/eventually.ts';
import { GRACE_MS, type SimCluster, startSimCluster } from './sim-support.ts';

const repository = (minor: string): RenderedRepository =>
  ({
    name: 'kubernetes',
    uri: kubernetesRepositoryUri(minor),
    suites: ['/'],
    components: [],
  }) as RenderedRepository;

let cluster: SimCluster;
let fleet: Fleet;
before(async () => {
  cluster = await startSimCluster();
  fleet = new Fleet({
    clientFor: cluster.nodeClients,
    kubeletClientFor: cluster.kubeletClients,
    adminClient: cluster.admin,
    leaseDurationSeconds: GRACE_MS / 1000,
    renewIntervalMs: GRACE_MS / 4,
    startupNotReadyMs: 200,
  });
});
after(async () => {
  await fleet.close();
  await cluster.stop();
});

const reported = async (name: string) =>
  ((await cluster.getNode(name))?.status as { nodeInfo?: { kubeletVersion?: string } } | undefined)?.nodeInfo
    ?.kubeletVersion;

test('the Node reports the installed kubelet package, an upgraded one once kubelet restarts', async () => {
  const node = await fleet.create({ name: 'version-1', zone: 'zone-a' });
  await fleet.startAll([node]);
  assert.equal(await reported('version-1'), 'v1.31.4', 'the base image kubelet');
  assert.deepEqual(node.packages.installed(), { kubelet: '1.31.4-1.1' });

  await node.packages.addRepository(repository('1.32'));
  await assert.rejects(
    node.packages.install('kubelet', '1.32.9-1.1'),
    /Version '1\.32\.9-1\.1' for 'kubelet' was not found/,
    'before apt-get update the repository offers nothing',
  );
  await node.packages.update();
  await node.packages.install('kubelet', '1.32.9-1.1');
  assert.equal(await reported('version-1'), 'v1.31.4', 'the running kubelet is still the old binary');

  await node.restartKubelet();
  await eventually('the new version reported', async () => (await reported('version-1')) === 'v1.32.9');
  assert.equal(node.kubelet.version, 'v1.32.9');
});

test("a version the repository does not have fails in apt's words; another minor's repository offers none of it", async () => {
  const packages = new SimulatedPackages({ catalogueOf: kubernetesCatalogue });
  await packages.addRepository(repository('1.33'));
  await packages.update();
  await assert.rejects(
    packages.install('kubelet', '1.33.99-1.1'),
    /E: Version '1\.33\.99-1\.1' for 'kubelet' was not found/,
  );
  await assert.rejects(
    packages.install('kubelet', '1.32.9-1.1'),
    /was not found/,
    'v1.33 has no 1.32 kubelet',
  );
  await packages.install('kubelet', '1.33.5-1.1');
  await packages.install('kubeadm');
  assert.deepEqual(
    packages.installed(),
    { kubeadm: '1.33.5-1.1', kubelet: '1.33.5-1.1' },
    'unpinned: the newest',
  );
  assert.equal(
    kubernetesCatalogue({
      ...repository('1.33'),
      uri: 'https://deb.debian.org/debian',
    } as RenderedRepository),
    undefined,
  );
  assert.deepEqual(kubernetesCatalogue(repository('1.99')), {}, 'a minor the mirror lacks: an empty index');
  const rpm = kubernetesCatalogue({
    ...repository('1.33'),
    uri: kubernetesRepositoryUri('1.33', 'rpm'),
  } as RenderedRepository);
  assert.equal(rpm?.kubelet?.at(-1), '1.33.5-150500.1.1', "the RPM layout's packaging revision");
});

test('the packages are kept on disk and come back as they were (installed, held, repositories, index)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'nodeherd-packages-'));
  try {
    const file = join(dir, 'node', 'packages.json');
    const first = new SimulatedPackages({
      catalogueOf: kubernetesCatalogue,
      installed: { kubelet: '1.31.4-1.1' },
    });
    await DurableNodePackages.restore(first, file);
    await first.addRepository(repository('1.32'));
    await first.update();
    await first.install('kubelet', '1.32.9-1.1');
    await first.hold('kubelet');
    // Written before the operation returned: what the agent records as done is on disk.
    const onDisk = JSON.parse(await readFile(file, 'utf8'));
    assert.deepEqual(onDisk.installed, { kubelet: '1.32.9-1.1' });

    const second = new SimulatedPackages({
      catalogueOf: kubernetesCatalogue,
      installed: { kubelet: '1.31.4-1.1' },
    });
    await DurableNodePackages.restore(second, file);
    assert.deepEqual(second.state(), first.state());
    assert.deepEqual(second.held(), ['kubelet']);
    await second.install('kubelet', '1.32.8-1.1'); // the index came back: the repository's versions install
    assert.equal(await second.installedVersion('kubelet'), '1.32.8-1.1');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

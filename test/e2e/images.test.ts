// The controller image as a cluster would run it: built by the images script (buildah, FROM scratch),
// unpacked with umoci, and its entrypoint, user and environment from the image config run under chroot
// (these hosts have no working container runtime: docs/real-cluster.md). It talks to an embedded API
// server this test starts, whose nodes are simulated in this process; from the image, the controller
// takes the leader Lease and rolls two revisions out to every node. The agent image is built and its
// entrypoint and nsenter run the same way.

import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chownSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { CURRENT_REVISION_ANNOTATION } from '../../src/api/node-protocol.ts';
import { LEADER_LEASE_NAME, LEADER_LEASE_NAMESPACE } from '../../src/controller/controller-manager.ts';
import { AGENT_NODE_FLAGS } from '../../src/dist/build-agent.ts';
import {
  BUILDAH_STORAGE,
  type BuiltImage,
  buildImage,
  CONTROLLER_NODE_FLAGS,
  imageBuildUnavailableReason,
  imageSpecs,
  NONROOT_UID,
} from '../../src/dist/images/build-images.ts';
import {
  ClusterHarness,
  condition,
  eventually,
  kubeletConfig,
  revisionNameFor,
} from '../support/cluster-harness.ts';

const execFileAsync = promisify(execFile);
const skip =
  process.env.NODEHERD_E2E === '0'
    ? 'end-to-end tests disabled (NODEHERD_E2E=0)'
    : imageBuildUnavailableReason();
const work = mkdtempSync(join(tmpdir(), 'nodeherd-image-e2e-'));
const TAG = 'e2e-test';

interface ImageConfig {
  process: { args: string[]; env: string[]; user: { uid: number; gid: number }; cwd: string };
}

let image: BuiltImage | undefined;
let h: ClusterHarness | undefined;
let controller: ChildProcess | undefined;
let output = '';

before(async () => {
  if (skip) return;
  image = await buildImage(imageSpecs().controller, { outDir: join(work, 'oci'), tag: TAG });
  h = await ClusterHarness.start();
});

after(async () => {
  controller?.kill('SIGKILL');
  await h?.stop();
  if (image)
    await execFileAsync('buildah', [...BUILDAH_STORAGE, 'rmi', image.reference]).catch(() => undefined);
  rmSync(work, { recursive: true, force: true });
});

test('the controller image, unpacked and run in a chroot, elects itself and rolls out two revisions', {
  skip,
}, async () => {
  assert.ok(image && h);
  const bundle = join(work, 'bundle');
  await execFileAsync('umoci', ['unpack', '--image', `${image.ociLayout}:${TAG}`, bundle]);
  const config = JSON.parse(readFileSync(join(bundle, 'config.json'), 'utf8')) as ImageConfig;
  const { args, env, user } = config.process;
  assert.deepEqual(args.slice(0, 2 + CONTROLLER_NODE_FLAGS.length), [
    '/usr/local/bin/node',
    ...CONTROLLER_NODE_FLAGS,
    '/opt/nodeherd/nodeherd-controller.mjs',
  ]);
  assert.deepEqual(user, { uid: NONROOT_UID, gid: NONROOT_UID });
  const rootfs = join(bundle, 'rootfs');
  const inspected = JSON.parse(
    (await execFileAsync('buildah', [...BUILDAH_STORAGE, 'inspect', '--type', 'image', image.reference]))
      .stdout,
  ) as { OCIv1: { config: { Labels: Record<string, string> } } };
  const labels = inspected.OCIv1.config.Labels;
  assert.equal(labels['org.opencontainers.image.title'], 'nodeherd-controller');
  assert.match(labels['org.opencontainers.image.version'] ?? '', /^\d+\.\d+\.\d+/);

  // The credential, as a mounted ServiceAccount token would be: a file inside the container.
  mkdirSync(join(rootfs, 'etc/nodeherd'), { recursive: true });
  const kubeconfig = join(rootfs, 'etc/nodeherd/kubeconfig');
  copyFileSync(h.controllerKubeconfig, kubeconfig);
  chownSync(kubeconfig, user.uid, user.gid);

  // A private mount namespace (gone with the process) gets /proc and /dev; chroot drops to the image's
  // user. The image's own flags, then the test's: the kubeconfig, and a metrics port no one else uses.
  const command = [
    'mount -t proc proc "$0/proc"',
    'mount --bind /dev "$0/dev"',
    `exec chroot --userspec=${user.uid}:${user.gid} "$0" "$@"`,
  ].join(' && ');
  controller = spawn(
    'unshare',
    [
      '--mount',
      '--propagation',
      'private',
      'sh',
      '-c',
      command,
      rootfs,
      ...args,
      '--kubeconfig=/etc/nodeherd/kubeconfig',
      '--metrics-address=127.0.0.1:0',
    ],
    {
      env: Object.fromEntries(env.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)])),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
  };
  controller.stdout!.on('data', collect);
  controller.stderr!.on('data', collect);
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((done) => controller!.once('exit', (code) => done(code)));
  void exited.then((code) => {
    exitCode = code;
  });

  const identity = await eventually(
    'the controller from the image to start',
    async () => {
      if (exitCode !== undefined) throw new Error(`the controller exited (${exitCode}):\n${output}`);
      for (const line of output.split('\n')) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as { msg?: string; identity?: string };
        if (entry.msg === 'nodeherd-controller running') return entry.identity;
      }
      return undefined;
    },
    60_000,
  );
  const lease = await eventually(
    'the image controller to hold the leader Lease',
    async () => {
      const l = await h!.admin.get<{ spec?: { holderIdentity?: string } }>(
        `/apis/coordination.k8s.io/v1/namespaces/${LEADER_LEASE_NAMESPACE}/leases/${LEADER_LEASE_NAME}`,
      );
      return l.spec?.holderIdentity === identity ? l : undefined;
    },
    60_000,
  );
  assert.equal(lease.spec?.holderIdentity, identity);

  const nodes = await h.fleet.add(3, { labels: { pool: 'image' } });
  await h.applyConfig('image-kubelet', kubeletConfig('one'), { pool: 'image' });
  await h.createPool('image', {
    nodeSelector: { matchLabels: { pool: 'image' } },
    configSelector: { matchLabels: { pool: 'image' } },
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
  });
  for (const value of ['one', 'two']) {
    if (value === 'two') await h.applyConfig('image-kubelet', kubeletConfig('two'), { pool: 'image' });
    const target = revisionNameFor('image', { 'image-kubelet': kubeletConfig(value) });
    await eventually(
      `revision ${target} on every node, the pool Complete`,
      async () => {
        if (exitCode !== undefined) throw new Error(`the controller exited (${exitCode}):\n${output}`);
        const pool = await h!.getPool('image');
        if (pool.status?.targetRevision !== target || condition(pool, 'Complete')?.status !== 'True') {
          return undefined;
        }
        const onTarget = (await h!.nodes('pool=image')).filter(
          (n) => n.metadata.annotations?.[CURRENT_REVISION_ANNOTATION] === target,
        );
        return onTarget.length === nodes.length ? true : undefined;
      },
      120_000,
    );
  }

  // SIGTERM (what the kubelet sends): the controller steps down and exits cleanly.
  controller.kill('SIGTERM');
  assert.equal(await exited, 0, output);
  controller = undefined;
  const released = await h.admin.get<{ spec?: { holderIdentity?: string } }>(
    `/apis/coordination.k8s.io/v1/namespaces/${LEADER_LEASE_NAMESPACE}/leases/${LEADER_LEASE_NAME}`,
  );
  assert.notEqual(released.spec?.holderIdentity, identity, 'the Lease is released on shutdown');
});

test('the agent image runs its entrypoint and carries nsenter for DaemonSet mode', { skip }, async () => {
  const agent = await buildImage(imageSpecs().agent, { outDir: join(work, 'oci'), tag: TAG });
  try {
    const bundle = join(work, 'agent-bundle');
    await execFileAsync('umoci', ['unpack', '--image', `${agent.ociLayout}:${TAG}`, bundle]);
    const config = JSON.parse(readFileSync(join(bundle, 'config.json'), 'utf8')) as ImageConfig;
    assert.deepEqual(config.process.args, [
      '/usr/local/bin/node',
      ...AGENT_NODE_FLAGS,
      '/opt/nodeherd/nodeherd-agent.mjs',
    ]);
    assert.deepEqual(config.process.user, { uid: 0, gid: 0 });
    const rootfs = join(bundle, 'rootfs');
    const help = await execFileAsync('chroot', [rootfs, ...config.process.args, '--help']);
    assert.match(help.stdout, /--kubeconfig/);
    const nsenter = await execFileAsync('chroot', [rootfs, '/usr/bin/nsenter', '--version']);
    assert.match(nsenter.stdout, /util-linux/);
    const packages = readFileSync(join(rootfs, 'usr/share/doc/nodeherd/debian-packages.txt'), 'utf8');
    assert.match(packages, /^util-linux /m);
    assert.match(packages, /^libc6 /m);
  } finally {
    await execFileAsync('buildah', [...BUILDAH_STORAGE, 'rmi', agent.reference]).catch(() => undefined);
  }
});

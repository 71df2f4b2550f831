// A simulated node's kubelet against a real API server, reading its configuration files: a bad
// drop-in fails kubelet.service on restart with kubelet's message in the journal, the kubelet stops
// renewing and the Node goes Unknown; fixing the file and restarting brings it back; a node that boots
// with the bad file never comes up; a drop-in pointing ExecStart at a missing program is 203/EXEC.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Fleet } from '../../src/sim/fleet.ts';
import { KUBELET_CONFIG_PATH } from '../../src/sim/kubelet-systemd.ts';
import { eventually } from '../support/eventually.ts';
import { GRACE_MS, readyStatus, type SimCluster, startSimCluster } from './sim-support.ts';

const DROP_IN_DIR = '/etc/kubernetes/kubelet.conf.d';
const DROP_IN = `${DROP_IN_DIR}/50-nodeherd.conf`;
const HEAD = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
const CONFIG_DIR_UNIT = `[Service]\nEnvironment="KUBELET_CONFIG_DIR_ARGS=--config-dir=${DROP_IN_DIR}"\n`;

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

const serverReady = async (name: string) => readyStatus(await cluster.getNode(name));

test('a bad drop-in fails the kubelet on restart, naming the field; fixed, it comes back', async () => {
  const node = await fleet.create({ name: 'config-1', zone: 'zone-a' });
  await fleet.startAll([node]);
  await eventually('Ready', async () => (await serverReady('config-1')) === 'True');
  const kubeadm = await node.files.read(KUBELET_CONFIG_PATH);
  assert.match(kubeadm?.content.toString() ?? '', /kind: KubeletConfiguration/, "kubeadm's config is there");

  await node.files.write(DROP_IN, Buffer.from(`${HEAD}maxPods: -1\n`), { mode: 0o644 });
  await node.systemd.writeDropIn('kubelet.service', '20-nodeherd.conf', CONFIG_DIR_UNIT);
  await node.systemd.daemonReload();
  await node.restartKubelet();
  assert.equal(await node.systemd.isFailed('kubelet.service'), true);
  assert.equal(node.kubelet.process, 'failed');
  const expected =
    'failed to validate kubelet configuration, error: invalid configuration: maxPods (--max-pods) -1 must not be a negative number';
  assert.equal(node.snapshot().kubeletFailure, expected);
  assert.deepEqual(node.systemd.journalLines('kubelet.service'), [
    `"command failed" err="${expected}"`,
    'kubelet.service: Main process exited, code=exited, status=1/FAILURE',
    "kubelet.service: Failed with result 'exit-code'.",
  ]);
  await eventually(
    'Unknown once the Lease expires',
    async () => (await serverReady('config-1')) === 'Unknown',
    15_000,
  );

  await node.files.write(DROP_IN, Buffer.from(`${HEAD}maxPods: 50\n`), { mode: 0o644 });
  await node.restartKubelet();
  assert.equal(await node.systemd.isActive('kubelet.service'), true);
  assert.equal(node.snapshot().kubeletFailure, undefined);
  await eventually('Ready again', async () => (await serverReady('config-1')) === 'True');
});

test('a machine that boots with a configuration kubelet refuses stays down; the unit is failed', async () => {
  const node = await fleet.create({ name: 'config-2', zone: 'zone-a' });
  await node.files.write(
    KUBELET_CONFIG_PATH,
    Buffer.from('apiVersion: kubelet.config.k8s.io/v1\nkind: KubeletConfiguration\n'),
    {
      mode: 0o644,
    },
  );
  await fleet.startAll([node]);
  assert.equal(await node.systemd.isFailed('kubelet.service'), true);
  assert.match(
    node.snapshot().kubeletFailure ?? '',
    /^failed to load kubelet config file, path: \/var\/lib\/kubelet\/config.yaml, error: failed to decode: no kind "KubeletConfiguration" is registered for version "kubelet.config.k8s.io\/v1"/,
  );
  assert.equal(await cluster.getNode('config-2'), undefined, 'never registered');
});

test('a drop-in whose ExecStart names a missing kubelet binary: 203/EXEC, the kubelet is down', async () => {
  const node = await fleet.create({ name: 'config-3', zone: 'zone-a' });
  await fleet.startAll([node]);
  await eventually('Ready', async () => (await serverReady('config-3')) === 'True');
  await node.systemd.writeDropIn(
    'kubelet.service',
    '30-path.conf',
    '[Service]\nExecStart=\nExecStart=/opt/kubernetes/bin/kubelet --config=/var/lib/kubelet/config.yaml\n',
  );
  await node.systemd.daemonReload();
  await node.restartKubelet();
  assert.equal(await node.systemd.isFailed('kubelet.service'), true);
  assert.match(node.snapshot().kubeletFailure ?? '', /status=203\/EXEC/);
  assert.ok(
    node.systemd
      .journalLines('kubelet.service')
      .includes('kubelet.service: Main process exited, code=exited, status=203/EXEC'),
  );
});

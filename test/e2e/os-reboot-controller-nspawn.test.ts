// An OS-requested reboot as a rollout, on real systemd with the controller: a Debian container booted
// with systemd-nspawn and bootstrapped by nodeherd-init is the one node of a pool whose policy is
// Reboot. When Debian's /var/run/reboot-required appears, the controller starts a reboot round:
// it cordons and drains the node, asks it to reboot (nodeherd.io/reboot-requested), the agent runs
// `systemctl reboot`, systemd-nspawn exits 133 and the harness boots the container again on the same
// root (as systemd-nspawn@.service does); the node comes back with a new boot id, answers, is
// uncordoned, and the round completes — one reboot. The container runs no kubelet: the test keeps the
// Node Ready, as `nodeherd up --nspawn`'s kubelet stand-in does. Skips where nspawn cannot run.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  CURRENT_REVISION_ANNOTATION,
  REBOOT_REQUESTED_ANNOTATION,
  REBOOT_REQUIRED_CONDITION,
  REBOOTED_ANNOTATION,
  STATE_ANNOTATION,
} from '../../src/api/node-protocol.ts';
import type { NodeConfigSpec } from '../../src/api/types.ts';
import { CORDONED_BY_ANNOTATION } from '../../src/controller/annotations.ts';
import { ControllerManager } from '../../src/controller/controller-manager.ts';
import { loadKubeConfig } from '../../src/kube/kube-config.ts';
import type { Container } from '../../src/nspawn/container.ts';
import { waitFor } from '../../src/nspawn/host.ts';
import { agentJournal, bootstrappedNode } from './support/bootstrapped-node.ts';
import { ControlPlane, type NodeObject } from './support/control-plane.ts';
import { e2eSkipReason } from './support/host.ts';
import { serviceUnit } from './support/units.ts';

const skip = e2eSkipReason();
if (skip) process.stderr.write(`OS reboot round e2e skipped: ${skip}\n`);

const POOL = 'osreboot-round';
const GROUP = '/apis/nodeherd.io/v1alpha1';

const SPEC: NodeConfigSpec = {
  files: [{ path: '/etc/os-reboot-round/app.conf', content: { inline: { data: 'value=1\n' } } }],
  units: [
    {
      name: 'round-app.service',
      content: serviceUnit('os reboot round app'),
      filePaths: ['/etc/os-reboot-round/app.conf'],
    },
  ],
};

interface PoolObject {
  status?: {
    targetRevision?: string;
    rebootRequired?: number;
    conditions?: { type: string; status: string; reason?: string }[];
  };
}

describe('an OS-requested reboot as a rollout, on real systemd with the controller', {
  skip,
  timeout: 480_000,
}, () => {
  let cp: ControlPlane;
  let manager: ControllerManager | undefined;
  let node: Container | undefined;
  /** Every state of the Node seen while the round ran: cordoned, requested, answered. */
  const seen = { cordoned: false, unschedulable: false, requests: new Set<string>() };
  let watching = true;
  let watcher: Promise<void> | undefined;

  /** Keeps the Node Ready, as a kubelet would (the container runs none). */
  async function markReady(name: string): Promise<void> {
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    await cp.admin.patch(
      `/api/v1/nodes/${name}/status`,
      {
        status: {
          conditions: [
            {
              type: 'Ready',
              status: 'True',
              reason: 'KubeletReady',
              message: 'kubelet is posting ready status (the test stands in for it)',
              lastHeartbeatTime: now,
              lastTransitionTime: now,
            },
          ],
        },
      },
      'strategic',
    );
  }

  before(async () => {
    cp = await ControlPlane.start();
    manager = new ControllerManager({
      kubeConfig: loadKubeConfig({ kubeconfig: cp.api.kubeconfigPath }),
      leaderElect: false,
    });
    await manager.start();
    node = await bootstrappedNode(cp, 'nh-osround', {
      restartOnReboot: true,
      agentEnv: ['NODEHERD_UNIT_TIMEOUT_SECONDS=30', 'NODEHERD_REBOOT_CHECK_INTERVAL_SECONDS=1'],
      registered: async (registered) => {
        await cp.admin.patch(`/api/v1/nodes/${registered.name}`, { metadata: { labels: { pool: POOL } } });
        await markReady(registered.name);
      },
    });
    await cp.admin.create(`${GROUP}/nodeconfigs`, {
      apiVersion: 'nodeherd.io/v1alpha1',
      kind: 'NodeConfig',
      metadata: { name: 'round-app', labels: { 'nodeherd.io/pool': POOL } },
      spec: SPEC,
    });
    await cp.admin.create(`${GROUP}/nodeconfigpools`, {
      apiVersion: 'nodeherd.io/v1alpha1',
      kind: 'NodeConfigPool',
      metadata: { name: POOL },
      spec: {
        nodeSelector: { matchLabels: { pool: POOL } },
        configSelector: { matchLabels: { 'nodeherd.io/pool': POOL } },
        updateStrategy: {
          type: 'RollingUpdate',
          rollingUpdate: { maxUnavailable: 1, minReadySeconds: 1, progressDeadlineSeconds: 300 },
        },
        reboots: { osRequested: { policy: 'Reboot' } },
      },
    });
    await waitFor(
      'the pool’s first revision applied',
      async () => {
        const n = await cp.getNode(node!.name);
        const a = n.metadata?.annotations ?? {};
        return a[STATE_ANNOTATION] === 'Done' && a[CURRENT_REVISION_ANNOTATION] ? n : undefined;
      },
      180_000,
      250,
    );
    watcher = (async () => {
      while (watching) {
        const n = await cp.getNode(node!.name).catch(() => undefined);
        if (n) {
          const a = n.metadata?.annotations ?? {};
          if (a[CORDONED_BY_ANNOTATION] !== undefined) seen.cordoned = true;
          if ((n as { spec?: { unschedulable?: boolean } }).spec?.unschedulable) seen.unschedulable = true;
          if (a[REBOOT_REQUESTED_ANNOTATION]) seen.requests.add(a[REBOOT_REQUESTED_ANNOTATION]);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
  });

  after(async () => {
    watching = false;
    await watcher;
    await node?.stop();
    await manager?.stop();
    await cp?.stop();
  });

  test('the sentinel starts a round: cordon, drain, `systemctl reboot`, back with a new boot id, uncordoned, Complete', async () => {
    const bootBefore = (await node!.execChecked(['cat', '/proc/sys/kernel/random/boot_id'])).trim();
    await node!.execChecked([
      'sh',
      '-c',
      'echo "*** System restart required ***" > /var/run/reboot-required && echo linux-image-6.1.0-18-amd64 > /var/run/reboot-required.pkgs',
    ]);
    try {
      await node!.waitForBoots(2, 240_000);
    } catch (error) {
      const n = await cp.getNode(node!.name);
      throw new Error(
        `${(error as Error).message}\nNode: ${JSON.stringify(n.metadata?.annotations)}\n${await agentJournal(node!, 40)}`,
      );
    }
    assert.notEqual(
      (await node!.execChecked(['cat', '/proc/sys/kernel/random/boot_id'])).trim(),
      bootBefore,
      'a new boot id',
    );
    await markReady(node!.name);
    const back = await waitFor(
      'the request answered and the node uncordoned',
      async () => {
        const n = (await cp.getNode(node!.name)) as NodeObject & { spec?: { unschedulable?: boolean } };
        const a = n.metadata?.annotations ?? {};
        const request = a[REBOOT_REQUESTED_ANNOTATION];
        return request !== undefined &&
          a[REBOOTED_ANNOTATION] === request &&
          a[CORDONED_BY_ANNOTATION] === undefined &&
          !n.spec?.unschedulable
          ? n
          : undefined;
      },
      120_000,
      250,
    );
    const condition = back.status?.conditions?.find((c) => c.type === REBOOT_REQUIRED_CONDITION);
    assert.equal(condition?.status, 'False');
    assert.ok(seen.cordoned && seen.unschedulable, 'the node was cordoned before its reboot');
    assert.equal(seen.requests.size, 1, 'asked once');
    assert.equal(node!.boots, 2, 'rebooted once');
    const pool = await waitFor(
      'the round complete',
      async () => {
        const p = await cp.admin.get<PoolObject>(`${GROUP}/nodeconfigpools/${POOL}`);
        const ready = p.status?.conditions?.find((c) => c.type === 'Ready');
        return ready?.status === 'True' && !p.status?.rebootRequired ? p : undefined;
      },
      120_000,
      250,
    );
    assert.equal(pool.status?.rebootRequired ?? 0, 0);
    assert.equal((await node!.exec(['systemctl', 'is-active', 'round-app.service'])).stdout.trim(), 'active');
  });
});

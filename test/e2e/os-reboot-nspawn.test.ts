// An OS-requested reboot on real systemd: a Debian container booted with systemd-nspawn, bootstrapped
// by nodeherd-init, gets Debian's /var/run/reboot-required (with its .pkgs list, as update-notifier's
// hook writes it after a kernel upgrade); its agent says so on the Node (nodeherd.io/RebootRequired).
// Asked to reboot (nodeherd.io/reboot-requested), the agent runs `systemctl reboot`: systemd-nspawn
// exits 133 and the harness boots the container again on the same root, as systemd-nspawn@.service
// does. It comes back with a new boot id, /run is empty, and the agent answers the request and clears
// the condition. Skips where nspawn cannot run (see support/host.ts).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  NODE_CONFIG_READY_CONDITION,
  REBOOT_REQUESTED_ANNOTATION,
  REBOOT_REQUIRED_CONDITION,
  REBOOTED_ANNOTATION,
  STATE_ANNOTATION,
} from '../../src/api/node-protocol.ts';
import type { NodeConfigSpec } from '../../src/api/types.ts';
import type { Container } from '../../src/nspawn/container.ts';
import { AGENT_UNIT, bootstrappedNode, waitWithJournal } from './support/bootstrapped-node.ts';
import { ControlPlane, type NodeObject } from './support/control-plane.ts';
import { e2eSkipReason } from './support/host.ts';
import { serviceUnit } from './support/units.ts';

const skip = e2eSkipReason();
if (skip) process.stderr.write(`OS reboot e2e skipped: ${skip}\n`);

const SPEC: NodeConfigSpec = {
  files: [{ path: '/etc/os-reboot-e2e/app.conf', content: { inline: { data: 'value=1\n' } } }],
  units: [
    {
      name: 'e2e-app.service',
      content: serviceUnit('os reboot app'),
      filePaths: ['/etc/os-reboot-e2e/app.conf'],
    },
  ],
};

describe('OS-requested reboot on real systemd', { skip, timeout: 420_000 }, () => {
  let cp: ControlPlane;
  let node: Container | undefined;

  before(async () => {
    cp = await ControlPlane.start();
    node = await bootstrappedNode(cp, 'nh-osreboot', {
      restartOnReboot: true,
      agentEnv: ['NODEHERD_UNIT_TIMEOUT_SECONDS=30', 'NODEHERD_REBOOT_CHECK_INTERVAL_SECONDS=1'],
    });
    await cp.apply([node.name], 'osreboot', SPEC);
  });

  after(async () => {
    await node?.stop();
    await cp?.stop();
  });

  const bootId = async () => (await node!.execChecked(['cat', '/proc/sys/kernel/random/boot_id'])).trim();

  /** Waits for the Node to satisfy `check`, with the agent's log (of this boot) in the error. */
  const nodeUntil = <T>(what: string, check: (n: NodeObject) => T | undefined, timeoutMs = 30_000) =>
    waitWithJournal(node!, what, async () => check(await cp.getNode(node!.name)), timeoutMs, 200, {
      thisBoot: true,
    });

  const rebootCondition = (n: NodeObject) =>
    n.status?.conditions?.find((c) => c.type === REBOOT_REQUIRED_CONDITION);

  test('the sentinel is reported, `systemctl reboot` brings the container back with a new boot id, and the condition clears', async () => {
    assert.equal(rebootCondition(await cp.getNode(node!.name)), undefined, 'no condition before the OS asks');
    const bootBefore = await bootId();

    // What update-notifier-common's hook writes after a kernel upgrade (/var/run is a link to /run).
    await node!.execChecked([
      'sh',
      '-c',
      'echo "*** System restart required ***" > /var/run/reboot-required && printf "linux-image-6.1.0-18-amd64\\nlibc6\\n" > /var/run/reboot-required.pkgs',
    ]);
    const required = await nodeUntil('RebootRequired True', (n) => {
      const c = rebootCondition(n);
      return c?.status === 'True' ? c : undefined;
    });
    assert.equal(required.reason, 'SentinelFile');
    assert.match(required.message ?? '', /packages: linux-image-6\.1\.0-18-amd64, libc6$/);

    const started = performance.now();
    await cp.admin.patch(`/api/v1/nodes/${node!.name}`, {
      metadata: { annotations: { [REBOOT_REQUESTED_ANNOTATION]: 'e2e-reboot-1' } },
    });
    await node!.waitForBoots(2, 180_000);
    const bootAfter = await bootId();
    assert.notEqual(bootAfter, bootBefore, 'a new boot id after the reboot');

    const answered = await nodeUntil(
      'the request answered',
      (n) => (n.metadata?.annotations?.[REBOOTED_ANNOTATION] === 'e2e-reboot-1' ? n : undefined),
      60_000,
    );
    const seconds = (performance.now() - started) / 1000;
    process.stderr.write(`real systemd: reboot requested → answered after ${seconds.toFixed(1)} s\n`);
    const cleared = await nodeUntil('RebootRequired False', (n) => {
      const c = rebootCondition(n);
      return c?.status === 'False' ? c : undefined;
    });
    assert.equal(cleared.reason, 'Rebooted');
    assert.match(
      cleared.message ?? '',
      new RegExp(`boot id ${bootAfter}`),
      'the agent saw the same new boot',
    );
    // /run is a tmpfs: the sentinel went with the old boot.
    assert.notEqual((await node!.exec(['test', '-e', '/var/run/reboot-required'])).code, 0);
    // The node is as it was: its revision applied, its unit running again, the agent active.
    assert.equal(answered.metadata?.annotations?.[STATE_ANNOTATION], 'Done');
    const ready = answered.status?.conditions?.find((c) => c.type === NODE_CONFIG_READY_CONDITION);
    assert.equal(ready?.status, 'True');
    assert.equal((await node!.exec(['systemctl', 'is-active', 'e2e-app.service'])).stdout.trim(), 'active');
    assert.equal((await node!.exec(['systemctl', 'is-active', AGENT_UNIT])).stdout.trim(), 'active');
    const events = (
      await cp.admin.list<{ reason?: string; message?: string; involvedObject?: { name?: string } }>(
        '/api/v1/namespaces/default/events',
      )
    ).items.filter((e) => e.involvedObject?.name === node!.name);
    assert.equal(events.filter((e) => e.reason === 'Rebooted').length, 1, 'one reboot');
    assert.equal(node!.boots, 2);
  });
});

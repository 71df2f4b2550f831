// Continuous drift on real systemd: a Debian container booted with systemd-nspawn, bootstrapped by
// nodeherd-init, its agent with a short periodic check. Someone on the node replaces a managed file
// and a drop-in (seen by inotify within seconds) and disables a unit (seen by the periodic check);
// the agent repairs each, restarting only the unit that depends on what drifted, and says so on
// its Node (ConfigDrift condition, DriftRepaired Events) and in its metrics. Skips where nspawn
// cannot run (see support/host.ts).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CONFIG_DRIFT_CONDITION } from '../../src/api/node-protocol.ts';
import type { NodeConfigSpec } from '../../src/api/types.ts';
import type { Container } from '../../src/nspawn/container.ts';
import { freePort } from '../../src/nspawn/ports.ts';
import { bootstrappedNode, waitWithJournal } from './support/bootstrapped-node.ts';
import { ControlPlane } from './support/control-plane.ts';
import { e2eSkipReason } from './support/host.ts';
import { serviceUnit, unitState } from './support/units.ts';

const skip = e2eSkipReason();
if (skip) process.stderr.write(`drift e2e skipped: ${skip}\n`);

const DRIFT_INTERVAL_SECONDS = 3;

const SPEC: NodeConfigSpec = {
  files: [{ path: '/etc/drift-e2e/app.conf', content: { inline: { data: 'value=1\n' } } }],
  units: [
    {
      name: 'e2e-app.service',
      content: serviceUnit('drift app'),
      filePaths: ['/etc/drift-e2e/app.conf'],
      dropIns: [{ name: '10-env.conf', content: '[Service]\nEnvironment=DRIFT=1\n' }],
    },
    { name: 'e2e-side.service', content: serviceUnit('drift bystander') },
  ],
};

describe('drift on real systemd: detected within seconds and repaired', { skip, timeout: 300_000 }, () => {
  let cp: ControlPlane;
  let node: Container | undefined;
  let metricsUrl: string;

  before(async () => {
    cp = await ControlPlane.start();
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    node = await bootstrappedNode(cp, 'nh-drift', {
      agentEnv: [
        `NODEHERD_METRICS_ADDRESS=127.0.0.1:${port}`,
        'NODEHERD_UNIT_TIMEOUT_SECONDS=30',
        `NODEHERD_DRIFT_INTERVAL_SECONDS=${DRIFT_INTERVAL_SECONDS}`,
      ],
    });
    await cp.apply([node.name], 'drift', SPEC);
  });

  after(async () => {
    await node?.stop();
    await cp?.stop();
  });

  const sh = (script: string) => node!.execChecked(['sh', '-c', script]);

  async function isEnabled(unit: string): Promise<string> {
    return (await node!.exec(['systemctl', 'is-enabled', unit])).stdout.trim();
  }

  async function checks(trigger: string): Promise<number> {
    const text = await (await fetch(metricsUrl)).text();
    const match = new RegExp(
      `^nodeherd_agent_drift_checks_total\\{trigger="${trigger}"\\} (\\d+)$`,
      'm',
    ).exec(text);
    return Number(match?.[1] ?? 0);
  }

  /** Waits for `what`, with the agent's log in the error. */
  const repaired = <T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 15_000) =>
    waitWithJournal(node!, what, check, timeoutMs, 100);

  test('a managed file replaced on the node: seen by inotify, written back, only its unit restarted', async () => {
    const app = await unitState(node!, 'e2e-app.service');
    const side = await unitState(node!, 'e2e-side.service');
    const fileChecks = await checks('file');
    const started = performance.now();
    // As an editor saves: a new file renamed over the old one.
    await sh(
      'printf "value=hacked\\n" > /etc/drift-e2e/.app.conf.new && mv /etc/drift-e2e/.app.conf.new /etc/drift-e2e/app.conf',
    );
    await repaired('app.conf written back', async () =>
      (await sh('cat /etc/drift-e2e/app.conf')) === 'value=1\n' ? true : undefined,
    );
    const seconds = (performance.now() - started) / 1000;
    process.stderr.write(`real systemd: a replaced file repaired after ${seconds.toFixed(2)} s\n`);
    // The counter moves when a check starts: one already running may have done the repair.
    await repaired(
      'an inotify-triggered check',
      async () => ((await checks('file')) > fileChecks ? true : undefined),
      5000,
    );
    const appAfter = await repaired('e2e-app restarted', async () => {
      const state = await unitState(node!, 'e2e-app.service');
      return state.invocationId !== app.invocationId && state.active === 'active' ? state : undefined;
    });
    assert.equal(appAfter.active, 'active');
    assert.equal(
      (await unitState(node!, 'e2e-side.service')).invocationId,
      side.invocationId,
      'bystander untouched',
    );
    const condition = await repaired('ConfigDrift DriftRepaired', async () => {
      const object = await cp.getNode(node!.name);
      const c = object.status?.conditions?.find((x) => x.type === CONFIG_DRIFT_CONDITION);
      return c?.reason === 'DriftRepaired' ? c : undefined;
    });
    assert.equal(condition.status, 'False');
  });

  test('a drop-in edited on the node: seen by inotify, written back, systemd reloaded and the unit restarted', async () => {
    const app = await unitState(node!, 'e2e-app.service');
    const side = await unitState(node!, 'e2e-side.service');
    const fileChecks = await checks('file');
    await sh(
      'printf "[Service]\\nEnvironment=DRIFT=hacked\\n" > /etc/systemd/system/e2e-app.service.d/10-env.conf && systemctl daemon-reload && systemctl restart e2e-app.service',
    );
    await repaired('the drop-in written back and loaded', async () => {
      const shown = await node!.show('e2e-app.service', ['Environment', 'NeedDaemonReload', 'ActiveState']);
      return shown.Environment === 'DRIFT=1' &&
        shown.NeedDaemonReload === 'no' &&
        shown.ActiveState === 'active'
        ? shown
        : undefined;
    });
    // The counter moves when a check starts: one already running may have done the repair.
    await repaired(
      'an inotify-triggered check',
      async () => ((await checks('file')) > fileChecks ? true : undefined),
      5000,
    );
    assert.notEqual((await unitState(node!, 'e2e-app.service')).invocationId, app.invocationId);
    assert.equal(
      (await unitState(node!, 'e2e-side.service')).invocationId,
      side.invocationId,
      'bystander untouched',
    );
  });

  test("a unit's enablement changed on the node: seen by the periodic check, enabled again, nothing restarted", async () => {
    const app = await unitState(node!, 'e2e-app.service');
    const side = await unitState(node!, 'e2e-side.service');
    const intervalChecks = await checks('interval');
    // No look at the disabled state in between: a periodic check every 3 s can enable it again before
    // a second command reaches the container (CI saw exactly that). The DriftRepaired Event below,
    // which names 'disabled, expected enabled', is the proof that the disable took and was repaired.
    await sh('systemctl disable e2e-side.service');
    const started = performance.now();
    await repaired(
      'e2e-side enabled again',
      // is-enabled reads the links on disk; systemctl show's UnitFileState waits for a daemon-reload.
      async () => ((await isEnabled('e2e-side.service')) === 'enabled' ? true : undefined),
      DRIFT_INTERVAL_SECONDS * 1000 * 3 + 10_000,
    );
    const seconds = (performance.now() - started) / 1000;
    process.stderr.write(`real systemd: a disabled unit enabled again after ${seconds.toFixed(2)} s\n`);
    await repaired(
      'a periodic check',
      async () => ((await checks('interval')) > intervalChecks ? true : undefined),
      DRIFT_INTERVAL_SECONDS * 1000 * 2 + 5000,
    );
    assert.equal(
      (await unitState(node!, 'e2e-side.service')).invocationId,
      side.invocationId,
      'not restarted',
    );
    assert.equal((await unitState(node!, 'e2e-app.service')).invocationId, app.invocationId, 'not restarted');
    const driftRepairs = async () =>
      (
        await cp.admin.list<{
          reason?: string;
          message?: string;
          involvedObject?: { name?: string };
        }>('/api/v1/namespaces/default/events')
      ).items.filter((e) => e.involvedObject?.name === node!.name && e.reason === 'DriftRepaired');
    // The Event is posted after the repair, which the test saw on disk first.
    const enabledAgain = /e2e-side\.service: disabled, expected enabled/;
    let repairs = await driftRepairs();
    await repaired(
      'a DriftRepaired Event for the enablement',
      async () => {
        repairs = await driftRepairs();
        return repairs.some((e) => enabledAgain.test(e.message ?? '')) ? true : undefined;
      },
      10_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; the Events: ${repairs.map((e) => e.message).join('\n')}`);
    });
    assert.ok(repairs.some((e) => /app\.conf/.test(e.message ?? '')));
    assert.ok(repairs.some((e) => /10-env\.conf/.test(e.message ?? '')));
  });
});

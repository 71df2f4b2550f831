import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ProbeRunner } from '../../../src/agent/apply/health-probe.ts';
import { UNIT_SETTLE_MS, verifyConfig } from '../../../src/agent/apply/verify.ts';
import type { SystemdExecutor, UnitStatus } from '../../../src/agent/executors/types.ts';
import type { RenderedConfig } from '../../../src/api/types.ts';
import { monotonicMs } from '../../../src/util/monotonic.ts';

// verifyConfig reads only status(): each call answers the next of the given statuses (the last one
// from then on), as `systemctl show` would at that moment, with ActiveEnterTimestampMonotonic on the
// process's own clock.
function systemdShowing(statuses: Array<(nowUs: number) => UnitStatus>): {
  systemd: SystemdExecutor;
  calls: () => number;
} {
  let calls = 0;
  const systemd = {
    status: async () => statuses[Math.min(calls++, statuses.length - 1)]!(monotonicMs() * 1000),
  } as unknown as SystemdExecutor;
  return { systemd, calls: () => calls };
}

const config = {
  files: [],
  units: [{ name: 'app.service', content: '[Service]\nExecStart=/bin/true\n', state: 'running' }],
  packages: [],
} as unknown as RenderedConfig;
const probes: ProbeRunner = { run: async () => ({ ok: true, detail: '' }) } as unknown as ProbeRunner;
const options = { probes, unitTimeoutMs: 5_000, intervalMs: 50, settleMs: 300 };

test('a unit active for longer than the settle time passes at the first look', async () => {
  const { systemd, calls } = systemdShowing([
    (now) => ({ activeState: 'active', subState: 'running', activeEnterMonotonicUs: now - 10_000_000 }),
  ]);
  assert.deepEqual(await verifyConfig(config, { ...options, systemd }), { ok: true, checked: 1 });
  assert.equal(calls(), 1);
});

test('a unit that has just become active is looked at again, and fails the apply if it exited since', async () => {
  // What a Type=simple service whose process exits at once on a bad flag shows: active, then failed.
  const { systemd, calls } = systemdShowing([
    (now) => ({ activeState: 'active', subState: 'running', activeEnterMonotonicUs: now - 1_000 }),
    () => ({ activeState: 'failed', subState: 'failed' }),
  ]);
  assert.deepEqual(await verifyConfig(config, { ...options, systemd }), {
    ok: false,
    reason: 'unit app.service failed (failed)',
    evidence: { unit: 'app.service' },
  });
  assert.equal(calls(), 2);
});

test('a unit that has just become active passes once it has stayed up for the settle time', async () => {
  let since: number | undefined;
  const { systemd } = systemdShowing([
    (now) => {
      since ??= now;
      return { activeState: 'active', subState: 'running', activeEnterMonotonicUs: since };
    },
  ]);
  const started = monotonicMs();
  assert.deepEqual(await verifyConfig(config, { ...options, systemd }), { ok: true, checked: 1 });
  assert.ok(monotonicMs() - started >= 300 - 5, 'waited for the settle time');
});

test('a unit restarted by systemd over and over never settles and fails at the deadline', async () => {
  const { systemd } = systemdShowing([
    (now) => ({
      activeState: 'active',
      subState: 'running',
      nRestarts: 7,
      activeEnterMonotonicUs: now - 1_000,
    }),
  ]);
  assert.deepEqual(await verifyConfig(config, { ...options, unitTimeoutMs: 400, systemd }), {
    ok: false,
    reason: 'unit app.service did not stay active for 300 ms within 400 ms, 7 automatic restarts',
    evidence: { unit: 'app.service' },
  });
});

test('without a timestamp (a backend that does not know it) or on another clock, active is enough', async () => {
  for (const activeEnterMonotonicUs of [undefined, Number.MAX_SAFE_INTEGER]) {
    const { systemd, calls } = systemdShowing([
      () => ({
        activeState: 'active',
        subState: 'running',
        ...(activeEnterMonotonicUs ? { activeEnterMonotonicUs } : {}),
      }),
    ]);
    assert.deepEqual(await verifyConfig(config, { ...options, systemd }), { ok: true, checked: 1 });
    assert.equal(calls(), 1);
  }
  assert.equal(UNIT_SETTLE_MS, 1000);
});

// runPlan with in-memory executors: journaling, resuming after a failure, tolerated failures, and
// the reboot marker (a reboot counts as done only once the boot id changed).

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { type ApplyRunContext, runPlan } from '../../../src/agent/apply/apply-runner.ts';
import { RestartMarkerStore } from '../../../src/agent/apply/restart-marker.ts';
import { MemoryFileExecutor } from '../../../src/agent/executors/memory-file-executor.ts';
import { SimulatedPackages } from '../../../src/agent/executors/simulated-packages.ts';
import { SimulatedSystemd } from '../../../src/agent/executors/simulated-systemd.ts';
import { SimulatedHost } from '../../../src/agent/host/simulated-host.ts';
import { silentLogger } from '../../../src/agent/logger.ts';
import { AgentMetrics } from '../../../src/agent/metrics/agent-metrics.ts';
import { ApplyJournal } from '../../../src/agent/state/apply-journal.ts';
import { plan } from '../../../src/plan/plan.ts';
import { rendered } from '../../support/nodeherd-objects.ts';

const dirs: string[] = [];
after(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function context(): Promise<
  ApplyRunContext & { systemd: SimulatedSystemd; host: SimulatedHost; files: MemoryFileExecutor }
> {
  const dir = await mkdtemp(join(tmpdir(), 'apply-runner-'));
  dirs.push(dir);
  const files = new MemoryFileExecutor();
  const systemd = new SimulatedSystemd();
  const host = new SimulatedHost();
  return {
    files,
    systemd,
    host,
    executors: { files, systemd, packages: new SimulatedPackages() },
    journal: new ApplyJournal(dir),
    markers: new RestartMarkerStore(dir),
    clock: { now: () => Date.now() },
    logger: silentLogger,
    metrics: new AgentMetrics(),
    selfUnit: 'nodeherd-agent.service',
  };
}

const config = rendered({
  files: [
    { path: '/etc/one.conf', content: { inline: { data: '1' } } },
    { path: '/etc/two.conf', content: { inline: { data: '2' } } },
  ],
  units: [
    { name: 'one.service', content: '[Service]\nExecStart=/bin/one\n', filePaths: ['/etc/one.conf'] },
    { name: 'two.service', content: '[Service]\nExecStart=/bin/two\n', filePaths: ['/etc/two.conf'] },
  ],
});
const target = { name: 'pool-1', hash: 'a'.repeat(64) };

describe('runPlan', () => {
  it('journals every action, in order, with hooks around each', async () => {
    const ctx = await context();
    const steps = plan(undefined, { config });
    const seen: string[] = [];
    ctx.hooks = {
      beforeAction: (id) => seen.push(`before ${id}`),
      afterExecute: (id) => seen.push(`executed ${id}`),
      afterJournal: (id) => seen.push(`journaled ${id}`),
    };
    const result = await runPlan(steps, target, ctx);
    assert.equal(result.outcome, 'done');
    assert.equal(seen.length, steps.actions.length * 3);
    assert.deepEqual(
      seen.slice(0, 3),
      steps.actions.slice(0, 1).flatMap((a) => [`before ${a.id}`, `executed ${a.id}`, `journaled ${a.id}`]),
    );
    assert.deepEqual(
      ctx.journal.snapshot()?.completed,
      steps.actions.map((a) => a.id),
    );
    assert.equal((await ctx.files.read('/etc/two.conf'))?.content.toString(), '2');
  });

  it('stops at a failing action and resumes after it, skipping what was done', async () => {
    const ctx = await context();
    ctx.systemd.fail('start', 'two.service', { times: 1 });
    const steps = plan(undefined, { config });
    const failed = await runPlan(steps, target, ctx);
    assert.equal(failed.outcome, 'failed');
    assert.equal(failed.outcome === 'failed' && failed.action.id, 'start-unit:two.service');
    const writes = ctx.systemd.recorder.count('writeUnit');

    const resumed = await runPlan(steps, target, ctx);
    assert.equal(resumed.outcome, 'done');
    assert.equal(resumed.outcome === 'done' && resumed.resumed, true);
    assert.equal(resumed.executed, 1, 'only the failed start runs again');
    assert.equal(ctx.systemd.recorder.count('writeUnit'), writes);
    assert.equal(ctx.metrics.actionsSkipped.get(), steps.actions.length - 1);
  });

  it('passes over failures the caller tolerates', async () => {
    const ctx = await context();
    ctx.systemd.fail('enable', 'one.service', { times: 1 });
    const result = await runPlan(plan(undefined, { config }), target, ctx, {
      tolerate: (action) => action.kind === 'enable-unit',
    });
    assert.equal(result.outcome, 'done');
    assert.equal(ctx.metrics.actions.get({ kind: 'enable-unit', result: 'failure' }), 1);
    assert.ok(
      ctx.journal.snapshot()?.completed.includes('enable-unit:one.service'),
      'journaled as passed over',
    );
  });

  it('records a reboot request and counts it done only after the boot id changed', async () => {
    const ctx = await context();
    const withReboot = rendered({
      files: [{ path: '/etc/kernel.conf', content: { inline: { data: 'k' } } }],
      disruptionPolicies: { files: [{ path: '/etc/kernel.conf', action: 'Reboot' }] },
    });
    const steps = plan(undefined, { config: withReboot });
    assert.equal(steps.actions.at(-1)?.kind, 'reboot');
    const first = await runPlan(steps, target, ctx);
    assert.deepEqual(first.outcome === 'restarting' && first.kind, 'reboot');
    assert.equal(ctx.host.reboots, 1);
    assert.ok(!ctx.journal.snapshot()?.completed.includes('reboot'));
    assert.equal((await ctx.markers.read())?.actionId, 'reboot');

    const second = await runPlan(steps, target, ctx);
    assert.equal(second.outcome, 'done');
    assert.equal(ctx.host.reboots, 1, 'the boot id changed: not rebooted again');
    assert.equal(await ctx.markers.read(), undefined);
  });
});

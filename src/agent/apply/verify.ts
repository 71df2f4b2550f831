// After applying: every unit that should run is active, and every declared health probe passes,
// each within its time limit. Units that are still starting get until the deadline; a unit that
// fails (activeState failed) fails verification at once. A unit must also have stayed active for
// UNIT_SETTLE_MS: a Type=simple service is active as soon as its process is forked, so one that
// exits at once on a bad flag looked active to a check made before the exit (seen under load in
// the real-systemd suite) and its apply was reported Done. Longer-lived failures are what health
// probes are for.

import { isTemplateUnit } from '../../api/config-rules.ts';
import type { RenderedConfig, RenderedUnit } from '../../api/types.ts';
import { monotonicMs } from '../../util/monotonic.ts';
import { sleep } from '../../util/sleep.ts';
import type { SystemdExecutor, UnitStatus } from '../executors/types.ts';
import type { FailureEvidence } from './failure-excerpt.ts';
import type { ProbeRunner } from './health-probe.ts';

export interface VerifyOptions {
  systemd: SystemdExecutor;
  probes: ProbeRunner;
  /** How long units may take to become active (ms). */
  unitTimeoutMs: number;
  /** Pause between checks (ms). */
  intervalMs: number;
  /** How long a unit must have been active to count (ms); default UNIT_SETTLE_MS. */
  settleMs?: number;
}

/** How long a unit must have stayed active before verification counts it as started. */
export const UNIT_SETTLE_MS = 1000;

export type VerifyResult =
  | { ok: true; checked: number }
  | { ok: false; reason: string; evidence: FailureEvidence };

export async function verifyConfig(config: RenderedConfig, options: VerifyOptions): Promise<VerifyResult> {
  const running = config.units.filter((u) => u.state === 'running' && !isTemplateUnit(u.name));
  for (const unit of running) {
    const problem = await waitActive(unit, options);
    if (problem) return { ok: false, reason: problem, evidence: { unit: unit.name } };
  }
  const probed = config.units.filter(
    (u) => u.healthProbe && u.state !== 'stopped' && !isTemplateUnit(u.name),
  );
  for (const unit of probed) {
    const problem = await probeUntilHealthy(unit, options);
    if (problem) {
      const output =
        problem.output !== undefined ? { output: problem.output, outputTitle: 'probe output' } : {};
      return { ok: false, reason: problem.reason, evidence: { unit: unit.name, ...output } };
    }
  }
  return { ok: true, checked: running.length + probed.length };
}

async function waitActive(unit: RenderedUnit, options: VerifyOptions): Promise<string | undefined> {
  const deadline = monotonicMs() + options.unitTimeoutMs;
  const settleMs = options.settleMs ?? UNIT_SETTLE_MS;
  for (;;) {
    const status = await options.systemd.status(unit.name);
    let waitMs = options.intervalMs;
    let settling = false;
    if (status.activeState === 'active' || status.activeState === 'reloading') {
      const activeMs = activeForMs(status);
      if (activeMs >= settleMs) return undefined;
      // Look again once it has been up for settleMs (or sooner, to see a failure early).
      settling = true;
      waitMs = Math.min(options.intervalMs, settleMs - activeMs);
    }
    if (status.activeState === 'failed') return `unit ${unit.name} failed (${status.subState})`;
    if (monotonicMs() >= deadline) {
      if (settling) {
        const restarts = status.nRestarts ? `, ${status.nRestarts} automatic restarts` : '';
        return `unit ${unit.name} did not stay active for ${settleMs} ms within ${options.unitTimeoutMs} ms${restarts}`;
      }
      return `unit ${unit.name} is ${status.activeState} (${status.subState}), not active after ${options.unitTimeoutMs} ms`;
    }
    await sleep(waitMs);
  }
}

/**
 * How long the unit has been active, by systemd's clock, which is this process's (CLOCK_MONOTONIC);
 * Infinity where the backend does not say, or where the two clocks disagree (a time namespace).
 */
function activeForMs(status: UnitStatus): number {
  if (status.activeEnterMonotonicUs === undefined) return Infinity;
  const activeMs = monotonicMs() - status.activeEnterMonotonicUs / 1000;
  return activeMs >= 0 ? activeMs : Infinity;
}

/** An attempt gets at least this long: a sliver of time left over would only report its own timeout. */
const MIN_PROBE_ATTEMPT_MS = 200;

async function probeUntilHealthy(
  unit: RenderedUnit,
  options: VerifyOptions,
): Promise<{ reason: string; output?: string } | undefined> {
  const probe = unit.healthProbe!;
  const limitMs = (probe.timeoutSeconds ?? 10) * 1000;
  const deadline = monotonicMs() + limitMs;
  for (;;) {
    const result = await options.probes.run(probe, Math.max(MIN_PROBE_ATTEMPT_MS, deadline - monotonicMs()));
    if (result.ok) return undefined;
    if (deadline - monotonicMs() < options.intervalMs + MIN_PROBE_ATTEMPT_MS) {
      const reason = `health probe of ${unit.name} failed within ${limitMs / 1000} s: ${result.detail}`;
      return { reason, ...(result.output !== undefined ? { output: result.output } : {}) };
    }
    await sleep(options.intervalMs);
  }
}

// One drift check: observe the node against the revision it last applied, plan the repair, and per
// the pool's policy either run that plan (Repair) or only say so (Report). Reports on the Node's
// ConfigDrift condition (True while drift stays in place), with Events (DriftDetected, DriftRepaired,
// DriftRepairFailed) and metrics. The agent runs checks one at a time, never during an apply.

import { CONFIG_DRIFT_CONDITION, type DriftPolicy } from '../../api/node-protocol.ts';
import type { Action, Plan } from '../../plan/types.ts';
import { type ActionExecutors, executeAction, executeCountedAction } from '../apply/action-executor.ts';
import { configOf, type RevisionRef } from '../apply/revision-ref.ts';
import type { Logger } from '../logger.ts';
import type { AgentMetrics } from '../metrics/agent-metrics.ts';
import { EVENT_REASONS } from '../report/node-event.ts';
import type { NodeReporter } from '../report/node-reporter.ts';
import { DRIFT_KINDS, type DriftItem, driftPlan, repairNeeds } from './drift-plan.ts';
import { observeConfig } from './observed-config.ts';
import type { DriftPolicySource } from './pool-drift-policy.ts';

/** ConfigDrift condition reasons. */
const DRIFT_REASONS = {
  none: 'NoDrift',
  repaired: 'DriftRepaired',
  detected: 'DriftDetected',
  repairFailed: 'RepairFailed',
  needsDrain: 'RepairNeedsDrain',
  needsReboot: 'RepairNeedsReboot',
} as const;

export interface DriftCheckerOptions {
  executors: ActionExecutors;
  reporter: NodeReporter;
  metrics: AgentMetrics;
  logger: Logger;
  policy: DriftPolicySource;
  /** The agent's own unit: restarted last, after the report (the restart ends this process). */
  selfUnit?: string;
}

export interface DriftCheckResult {
  /** What the check found. */
  found: DriftItem[];
  /** Of which repaired. */
  repaired: DriftItem[];
  /** Drift left in place (Report, a repair that needs a drain or reboot, or failed). */
  remaining: DriftItem[];
  policy?: DriftPolicy;
}

export class DriftChecker {
  private readonly options: DriftCheckerOptions;
  /** Ids found and not repaired since: each is counted (and its Event sent) once. */
  private readonly known = new Set<string>();
  private lastReported = '';

  constructor(options: DriftCheckerOptions) {
    this.options = options;
  }

  async check(base: RevisionRef): Promise<DriftCheckResult> {
    const { logger, metrics, reporter } = this.options;
    const found = await this.observe(base);
    if (found.items.length === 0) {
      this.known.clear();
      this.lastReported = '';
      this.setRemaining([]);
      // A repaired node keeps saying so (False, DriftRepaired) until drift is found again; the
      // message names no revision, as it is not rewritten when the next revision finds none either.
      // A node that never drifted gets no condition: one Node write per agent start saved (5,000 at
      // 5,000 nodes), and a fleet at rest keeps its Nodes unwritten (test/sim/fleet.test.ts).
      await reporter.condition(CONFIG_DRIFT_CONDITION, {
        status: 'False',
        reason: DRIFT_REASONS.none,
        message: 'the node is as its applied revision says',
        keepSameStatus: true,
        onlyIfPresent: true,
      });
      return { found: [], repaired: [], remaining: [] };
    }
    for (const item of found.items) {
      if (this.known.has(item.id)) continue;
      this.known.add(item.id);
      metrics.driftDetected.inc({ kind: item.kind });
    }
    const policy = await this.options.policy(base);
    const needs = repairNeeds(found.repair);
    logger.warn(
      { revision: base.name, policy, drifted: found.items.map((i) => i.detail), needs },
      'the node drifted from its applied revision',
    );
    if (policy === 'Report' || needs) {
      const reason =
        policy === 'Report'
          ? DRIFT_REASONS.detected
          : needs === 'Drain'
            ? DRIFT_REASONS.needsDrain
            : DRIFT_REASONS.needsReboot;
      const why =
        policy === 'Report'
          ? 'policy Report'
          : `not repaired: the repair needs a ${needs === 'Drain' ? 'drain' : 'reboot'} (the disruption policies say so), left to the next rollout`;
      await this.reportRemaining(base, found.items, reason, EVENT_REASONS.driftDetected, why);
      return { found: found.items, repaired: [], remaining: found.items, policy };
    }
    const { selfRestart, error } = await this.repair(found.repair);
    const after = await this.observe(base);
    const remaining = after.items;
    const repaired = found.items.filter((item) => !remaining.some((r) => r.id === item.id));
    for (const item of repaired) {
      metrics.driftRepaired.inc({ kind: item.kind });
      this.known.delete(item.id);
    }
    if (remaining.length > 0 || error) {
      // A failed step (a restart, say) may leave nothing visible on disk: the items found still say what.
      const why = `repair failed${error ? `: ${error}` : ''}`;
      await this.reportRemaining(
        base,
        remaining.length > 0 ? remaining : found.items,
        DRIFT_REASONS.repairFailed,
        EVENT_REASONS.driftRepairFailed,
        why,
      );
    } else {
      this.lastReported = '';
      this.setRemaining([]);
      const restarted = unitsDisrupted(found.repair);
      const effects = restarted.length > 0 ? `; restarted or reloaded ${restarted.join(', ')}` : '';
      await reporter.event(
        'Warning',
        EVENT_REASONS.driftRepaired,
        `${count(found.items)} from revision ${base.name} repaired: ${details(found.items)}${effects}`,
      );
      await reporter.condition(CONFIG_DRIFT_CONDITION, {
        status: 'False',
        reason: DRIFT_REASONS.repaired,
        message: `${count(found.items)} from revision ${base.name} repaired (${summary(found.items)})`,
      });
      logger.info({ revision: base.name, repaired: repaired.length, restarted }, 'drift repaired');
    }
    if (selfRestart) await executeAction(selfRestart, this.options.executors);
    return { found: found.items, repaired, remaining, policy: 'Repair' };
  }

  private async observe(base: RevisionRef) {
    const config = configOf(base);
    const observation = await observeConfig(config, this.options.executors);
    return driftPlan(observation, config, this.options.selfUnit ? { selfUnit: this.options.selfUnit } : {});
  }

  /** Runs the repair plan up to its first failure; the agent's own restart is handed back for last. */
  private async repair(repair: Plan): Promise<{ selfRestart?: Action; error?: string }> {
    const { executors, metrics, logger, selfUnit } = this.options;
    let selfRestart: Action | undefined;
    for (const action of repair.actions) {
      if (action.kind === 'restart-unit' && action.name === selfUnit) {
        selfRestart = action;
        continue;
      }
      try {
        await executeCountedAction(action, executors, metrics);
      } catch (error) {
        logger.error({ action: action.id, error: error as Error }, 'drift repair failed');
        return { error: `${action.id}: ${(error as Error).message}` };
      }
    }
    return selfRestart ? { selfRestart } : {};
  }

  private async reportRemaining(
    base: RevisionRef,
    items: DriftItem[],
    reason: string,
    eventReason: string,
    why: string,
  ): Promise<void> {
    this.setRemaining(items);
    const key = `${reason}|${items.map((i) => i.detail).join('|')}`;
    if (key !== this.lastReported) {
      // Once per distinct finding: a drift left in place is not announced again at every check.
      this.lastReported = key;
      await this.options.reporter.event(
        'Warning',
        eventReason,
        `${count(items)} from revision ${base.name} (${why}): ${details(items)}`,
      );
    }
    await this.options.reporter.condition(CONFIG_DRIFT_CONDITION, {
      status: 'True',
      reason,
      message: `${count(items)} from revision ${base.name} (${why}): ${details(items)}`,
    });
  }

  private setRemaining(items: DriftItem[]): void {
    for (const kind of DRIFT_KINDS)
      this.options.metrics.driftItems.set({ kind }, items.filter((i) => i.kind === kind).length);
  }
}

function count(items: DriftItem[]): string {
  return `${items.length} drift${items.length === 1 ? '' : 's'}`;
}

function details(items: DriftItem[]): string {
  return items.map((i) => i.detail).join('; ');
}

/** e.g. "2 file, 1 enablement": stable, so the condition does not change with every detail. */
function summary(items: DriftItem[]): string {
  return DRIFT_KINDS.map((kind) => [kind, items.filter((i) => i.kind === kind).length] as const)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${n} ${kind}`)
    .join(', ');
}

function unitsDisrupted(repair: Plan): string[] {
  return repair.actions.flatMap((a) =>
    a.kind === 'restart-unit' || a.kind === 'reload-unit' ? [a.name] : [],
  );
}

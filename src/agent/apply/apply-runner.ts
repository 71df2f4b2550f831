// Executes a plan in order, journaling each completed action so that a crash at any point resumes
// with the first action not yet journaled (never redoing one that was). A reboot and a restart of
// the agent's own unit come last in a plan; they are recorded in a restart marker before they are
// requested and count as done on the next run (restart-marker.ts explains why not in the journal).

import type { Action, Plan } from '../../plan/types.ts';
import type { Clock } from '../clock.ts';
import type { HostControl } from '../host/host-control.ts';
import type { Logger } from '../logger.ts';
import type { AgentMetrics } from '../metrics/agent-metrics.ts';
import type { ApplyJournal } from '../state/apply-journal.ts';
import { type ActionExecutors, executeAction, executeCountedAction } from './action-executor.ts';
import type { RestartMarkerStore } from './restart-marker.ts';

/** Observation points, e.g. for the crash test to kill the process at an exact step. */
export interface ApplyHooks {
  /** The action is about to run. */
  beforeAction?(id: string, index: number): void;
  /** The action ran; not journaled yet. */
  afterExecute?(id: string, index: number): void;
  /** The action is journaled done. */
  afterJournal?(id: string, index: number): void;
}

export interface ApplyRunContext {
  executors: ActionExecutors;
  host: HostControl;
  journal: ApplyJournal;
  markers: RestartMarkerStore;
  clock: Clock;
  logger: Logger;
  metrics: AgentMetrics;
  /** The agent's own unit: restarting it ends this process. */
  selfUnit: string | undefined;
  hooks?: ApplyHooks;
}

export interface ApplyTarget {
  name: string;
  hash: string;
}

export type ApplyRunResult =
  | { outcome: 'done'; executed: number; skipped: number; resumed: boolean }
  /** A reboot or self-restart was requested; the run continues after it (run again to finish). */
  | { outcome: 'restarting'; kind: 'reboot' | 'self'; executed: number; skipped: number }
  | { outcome: 'failed'; action: Action; error: Error; executed: number; skipped: number };

export interface ApplyRunOptions {
  /** An action whose failure is logged and passed over instead of failing the run. */
  tolerate?(action: Action, error: Error): boolean;
  /**
   * A write that must be durable before the first action runs (the in-flight record): it runs beside
   * the journal's start, so the two writes and their fsyncs overlap instead of following each other.
   */
  before?: Promise<void>;
}

export async function runPlan(
  plan: Plan,
  target: ApplyTarget,
  context: ApplyRunContext,
  options: ApplyRunOptions = {},
): Promise<ApplyRunResult> {
  const { journal, markers, logger, metrics, hooks } = context;
  const ids = plan.actions.map((a) => a.id);
  const [{ resumed, completed }] = await Promise.all([
    journal.beginJournal(target.hash, target.name, ids),
    options.before,
  ]);
  if (resumed) logger.info({ revision: target.name, done: completed.size }, 'resuming an interrupted apply');
  let executed = 0;
  let skipped = 0;
  for (const [index, action] of plan.actions.entries()) {
    if (completed.has(action.id)) {
      skipped++;
      metrics.actionsSkipped.inc();
      continue;
    }
    const restartKind = restartKindOf(action, context.selfUnit);
    if (restartKind) {
      const marker = await markers.read();
      if (marker && marker.revisionHash === target.hash && marker.actionId === action.id) {
        const bootId = await context.host.bootId();
        if (restartKind === 'self' || marker.bootId !== bootId) {
          await journal.markDone(action.id);
          await markers.clear();
          logger.info(
            {
              action: action.id,
            },
            restartKind === 'self' ? 'restarted after self-update' : 'rebooted',
          );
          continue;
        }
        logger.warn({ action: action.id }, 'the requested reboot did not happen: asking again');
      }
      hooks?.beforeAction?.(action.id, index);
      await markers.write({
        revisionHash: target.hash,
        actionId: action.id,
        kind: restartKind,
        bootId: await context.host.bootId(),
        requestedAt: context.clock.now(),
      });
      try {
        if (restartKind === 'reboot') await context.host.reboot();
        else await executeAction(action, context.executors);
      } catch (error) {
        await markers.clear();
        metrics.actions.inc({ kind: action.kind, result: 'failure' });
        return { outcome: 'failed', action, error: error as Error, executed, skipped };
      }
      metrics.actions.inc({ kind: action.kind, result: 'success' });
      if (restartKind === 'self') metrics.unitRestarts.inc({ unit: context.selfUnit! });
      logger.info(
        {
          action: action.id,
          reason: action.reason,
        },
        restartKind === 'reboot' ? 'reboot requested' : 'restarting the agent itself',
      );
      return { outcome: 'restarting', kind: restartKind, executed: executed + 1, skipped };
    }
    hooks?.beforeAction?.(action.id, index);
    logger.debug({ action: action.id, reason: action.reason }, 'action');
    try {
      await executeCountedAction(action, context.executors, metrics);
    } catch (error) {
      if (!options.tolerate?.(action, error as Error)) {
        return { outcome: 'failed', action, error: error as Error, executed, skipped };
      }
      logger.warn({ action: action.id, error: error as Error }, 'action failed; passed over');
    }
    executed++;
    hooks?.afterExecute?.(action.id, index);
    await journal.markDone(action.id);
    hooks?.afterJournal?.(action.id, index);
  }
  return { outcome: 'done', executed, skipped, resumed };
}

function restartKindOf(action: Action, selfUnit: string | undefined): 'reboot' | 'self' | undefined {
  if (action.kind === 'reboot') return 'reboot';
  if (action.kind === 'restart-unit' && selfUnit !== undefined && action.name === selfUnit) return 'self';
  return undefined;
}

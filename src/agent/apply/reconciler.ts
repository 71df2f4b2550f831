// The agent's decisions: given what the cluster wants (its Node's desired revision) and what the
// node has (last applied, unfinished applies, the last failure), do nothing, apply, retry, or roll
// back, and say so on the Node. Data flows one way: revision → plan → execute → verify → record →
// report. One reconcile runs at a time (the agent serialises them).

import { hashConfig, isKnownHashAlgorithm } from '../../api/hash.ts';
import {
  CURRENT_REVISION_ANNOTATION,
  STATE_ANNOTATION,
  STATE_REVISION_ANNOTATION,
} from '../../api/node-protocol.ts';
import type { RevisionSpec } from '../../api/types.ts';
import { readyCondition } from '../../kube/conditions.ts';
import { plan } from '../../plan/plan.ts';
import type { Action, Plan } from '../../plan/types.ts';
import type { Clock } from '../clock.ts';
import { type ApplyGate, openGate } from '../gate/start-gate.ts';
import type { HostControl } from '../host/host-control.ts';
import type { Logger } from '../logger.ts';
import type { AgentMetrics } from '../metrics/agent-metrics.ts';
import { EVENT_REASONS } from '../report/node-event.ts';
import type { NodeReporter, StatusReport } from '../report/node-reporter.ts';
import { ApplyJournal } from '../state/apply-journal.ts';
import { CorruptStateError, LastAppliedStore } from '../state/last-applied.ts';
import type { DesiredSnapshot } from '../watch/desired-revision-watcher.ts';
import { laterNode, type NodeObject, type RevisionObject } from '../watch/kube-objects.ts';
import type { ActionExecutors } from './action-executor.ts';
import { type ApplyHooks, type ApplyRunResult, runPlan } from './apply-runner.ts';
import { type FailureEvidence, gatherExcerpt, unitOfAction } from './failure-excerpt.ts';
import { type FailureRecord, FailureStore } from './failure-record.ts';
import { failedConditionMessage, failureMessage } from './failure-report.ts';
import type { ProbeRunner } from './health-probe.ts';
import { InFlightStore } from './in-flight-record.ts';
import type { RollbackPolicy } from './pool-rollback-policy.ts';
import { recoveryBase } from './recovery-base.ts';
import { RestartMarkerStore } from './restart-marker.ts';
import { configOf, type RevisionRef, revisionRef, sameRevision } from './revision-ref.ts';
import { restartAfterRollback, unitsRestartedBy } from './rollback-restarts.ts';
import { sweepTemporaryFiles } from './temporary-file-sweep.ts';
import { verifyConfig } from './verify.ts';

/** After a reboot or self-restart was requested: keep going in this process, or stop and wait to die. */
export type RestartDecision = 'continue' | 'halt';

export interface ReconcilerOptions {
  stateDir: string;
  executors: ActionExecutors;
  host: HostControl;
  probes: ProbeRunner;
  reporter: NodeReporter;
  metrics: AgentMetrics;
  clock: Clock;
  logger: Logger;
  rollbackPolicy: RollbackPolicy;
  onHostRestart(kind: 'reboot' | 'self'): Promise<RestartDecision>;
  selfUnit?: string;
  /** Units get this long to become active after an apply (ms). */
  unitTimeoutMs: number;
  verifyIntervalMs: number;
  /** Retries of a failed apply back off from initialMs to maxMs. */
  retry: { initialMs: number; maxMs: number };
  hooks?: ApplyHooks;
  /** Hold, Spread and Serial gates before a new apply starts (default: never gated). */
  gate?: ApplyGate;
}

export interface ReconcileResult {
  /** Epoch ms at which to reconcile again even if nothing changes (a retry). */
  retryAt?: number;
}

/** What the agent is doing, for /healthz and tests. */
export interface AgentStatus {
  state: 'Idle' | 'Applying' | 'Verifying' | 'Done' | 'Failed' | 'Starting' | 'Waiting';
  message: string;
  currentRevision: string | undefined;
  halted: boolean;
}

export class Reconciler {
  private readonly options: ReconcilerOptions;
  private readonly journal: ApplyJournal;
  private readonly lastAppliedStore: LastAppliedStore;
  private readonly inFlight: InFlightStore;
  private readonly failures: FailureStore;
  private readonly markers: RestartMarkerStore;
  private readonly gate: ApplyGate;
  private lastApplied: RevisionRef | undefined;
  private halted = false;
  /** A failed revision is retried once at once after the agent starts (its journal resumes). */
  private retriedSinceStart = false;
  /**
   * The last apply began on a Ready node: what the gate gave it (a Serial slot) is given back only
   * once the node is Ready again. A restarted kubelet leaves its node NotReady for a moment after the
   * apply is done; releasing at Done let the next nodes restart theirs meanwhile, and Serial with one
   * slot had every node NotReady at once, the very thing it exists to prevent.
   */
  private settleWhenReady = false;
  private current: AgentStatus = {
    state: 'Starting',
    message: '',
    currentRevision: undefined,
    halted: false,
  };

  constructor(options: ReconcilerOptions) {
    this.options = options;
    this.journal = new ApplyJournal(options.stateDir);
    this.lastAppliedStore = new LastAppliedStore(options.stateDir);
    this.inFlight = new InFlightStore(options.stateDir);
    this.failures = new FailureStore(options.stateDir);
    this.markers = new RestartMarkerStore(options.stateDir);
    this.gate = options.gate ?? openGate;
  }

  /** The revision the node last applied completely (for the OTA plan). */
  get lastAppliedRevision(): RevisionRef | undefined {
    return this.lastApplied;
  }

  get status(): AgentStatus {
    return { ...this.current, halted: this.halted };
  }

  /** Releases the journal file (an unfinished apply resumes on the next start). */
  async close(): Promise<void> {
    await this.journal.close();
  }

  /** Reads the state directory; removes temporary files a crash left beside managed files. */
  async load(): Promise<void> {
    const { logger, metrics } = this.options;
    try {
      const record = await this.lastAppliedStore.read();
      if (record && isRevisionSpec(record.spec)) {
        this.lastApplied = { name: record.revisionName, hash: record.revisionHash, spec: record.spec };
      }
    } catch (error) {
      if (!(error instanceof CorruptStateError)) throw error;
      // Planning from nothing rewrites every file: safe, if disruptive; forgetting silently is not.
      logger.error({ error }, 'last applied revision unreadable: the next apply counts everything as new');
    }
    const inFlight = await this.inFlight.load();
    await this.failures.load();
    if (this.lastApplied) metrics.setCurrentRevision(this.lastApplied.name, this.lastApplied.hash);
    const paths = [this.lastApplied, ...inFlight].flatMap((r) =>
      r ? configOf(r).files.map((f) => f.path) : [],
    );
    await sweepTemporaryFiles(this.options.executors.files, paths);
    this.current.currentRevision = this.lastApplied?.name;
  }

  /**
   * The revision to check the node against for drift: the last applied one, while the node is
   * settled on it (not applying, not failed, no unfinished apply whose files are meant to differ).
   */
  driftBase(): RevisionRef | undefined {
    if (!this.lastApplied || this.halted || this.inFlight.list().length > 0 || this.failures.current)
      return undefined;
    return ['Starting', 'Done', 'Waiting'].includes(this.current.state) ? this.lastApplied : undefined;
  }

  /**
   * Whether the node may reboot for a request that is not a revision's (the OS asked): it is on its
   * revision (or has none) with nothing unfinished, failed or waiting, and no reboot is under way.
   */
  settledForReboot(desired: DesiredSnapshot): boolean {
    if (this.halted || this.inFlight.list().length > 0 || this.failures.current) return false;
    // A revision to apply goes first (its own reboot, if any, answers the request).
    if (!desired.nodeSynced || desired.revisionName !== this.lastApplied?.name) return false;
    return this.current.state === 'Done' || this.current.state === 'Idle';
  }

  /** A reboot was asked for outside an apply and this process must stop working (it dies soon). */
  haltForReboot(): void {
    this.halted = true;
  }

  async reconcile(desired: DesiredSnapshot): Promise<ReconcileResult> {
    if (this.halted || !desired.nodeSynced || !desired.node) return {};
    const name = desired.revisionName;
    if (name === undefined) {
      await this.reportIdle(desired);
      this.settleWhenReady = false;
      await this.gate.settle();
      return {};
    }
    if (!desired.revisionSynced) return {};
    const object = desired.revision;
    if (!object)
      return this.reportUnusable(name, 'RevisionNotFound', `NodeConfigRevision ${name} does not exist`);
    const problem = revisionProblem(object);
    if (problem)
      return this.reportUnusable(name, 'InvalidRevision', `NodeConfigRevision ${name} refused: ${problem}`);
    const target = revisionRef(object);

    let failure = this.failures.current;
    if (failure && !sameRevision({ name: failure.revisionName, hash: failure.revisionHash }, target)) {
      // The cluster moved on: the failed attempt no longer decides anything (pointing the node back
      // at that revision later is a deliberate retry). What it left on disk is in in-flight.
      await this.failures.clear();
      failure = undefined;
    }
    if (failure) {
      if (failure.rollback === 'in-progress') {
        await this.gate.admit(desired.node, true);
        return this.rollBack(target, failure, this.options.clock.now());
      }
      if (failure.rollback === 'done' || failure.rollback === 'failed') {
        // A failed node keeps its Serial slot (also after a restart), so a bad change stops there.
        await this.gate.admit(desired.node, true);
        await this.report(this.failedReport(failure));
        return {};
      }
      const retryAt = failure.failedAt + this.backoff(failure.attempts);
      if (this.retriedSinceStart && this.options.clock.now() < retryAt) {
        await this.gate.admit(desired.node, true);
        await this.report(this.failedReport(failure));
        return { retryAt };
      }
    }
    this.retriedSinceStart = true;
    if (sameRevision(this.lastApplied, target) && this.inFlight.list().length === 0) {
      await this.reportUpToDate(desired, target);
      // The Node's Ready change is a watch event: the next reconcile settles. Judged on the newest
      // Node known, not the watch's alone: the watch may not yet show the NotReady of the kubelet this
      // apply restarted, which the answer to the Done report already does; settling on the older copy
      // gave a Serial slot back while the node was still NotReady, and the next node restarted its
      // kubelet beside it (524 NotReady on 500 slots at 5,000 nodes, issue 17).
      if (this.settleWhenReady && readiness(this.newestNode(desired.node)) === 'NotReady') return {};
      this.settleWhenReady = false;
      await this.gate.settle();
      return {};
    }
    // Only a new start is gated: an apply that began (journaled, interrupted, failed) goes on.
    const resuming = this.inFlight.list().length > 0 || failure !== undefined;
    const admission = await this.gate.admit(desired.node, resuming);
    if (!admission.open) {
      await this.report({
        state: 'Waiting',
        message: admission.message,
        stateRevision: target.name,
        currentRevision: this.lastApplied?.name,
      });
      return admission.retryAt !== undefined ? { retryAt: admission.retryAt } : {};
    }
    return this.apply(target, readiness(this.newestNode(desired.node)) !== 'NotReady');
  }

  /** `startedReady`: the node was Ready (or reports no readiness) when the apply began. */
  private async apply(target: RevisionRef, startedReady: boolean): Promise<ReconcileResult> {
    const { clock, logger, reporter, metrics } = this.options;
    const started = clock.now();
    const { plan: steps, recovering } = this.planTo(target);
    logger.info({ revision: target.name, summary: steps.summary, actions: steps.actions.length }, 'applying');
    // Passing states are reported without waiting: the reporter delivers in order, and the node's
    // work does not depend on them (this keeps two round trips off the path to Done).
    const passing: Promise<void>[] = [
      this.report({
        state: 'Applying',
        message: `applying ${target.name}: ${steps.summary}`,
        stateRevision: target.name,
        currentRevision: this.lastApplied?.name,
        condition: { status: 'False', reason: 'Applying', message: `applying ${target.name}` },
      }),
    ];
    // Recorded before any action runs (runPlan waits for it beside the journal's start).
    const recorded = this.inFlight.add(target);
    recorded.catch(() => {}); // its failure fails runPlan; this only keeps it from counting as unhandled
    const run = await this.execute(steps, target, recovering, recorded);
    if (run === 'halted') return {};
    if (run.outcome === 'failed') return this.fail(target, actionFailure(run), started);
    passing.push(
      this.report({
        state: 'Verifying',
        message: `verifying ${target.name}`,
        stateRevision: target.name,
        currentRevision: this.lastApplied?.name,
      }),
    );
    const verified = await this.verify(target);
    if (!verified.ok) return this.fail(target, verified, started);
    const cleanup = await this.commit(target);
    metrics.observeApply('success', (clock.now() - started) / 1000);
    logger.info({ revision: target.name, executed: run.executed, resumed: run.skipped }, 'applied');
    const message = `revision ${target.name} applied: ${steps.summary}`;
    await reporter.event('Normal', EVENT_REASONS.applied, message);
    await this.report({
      state: 'Done',
      message,
      stateRevision: target.name,
      currentRevision: target.name,
      condition: { status: 'True', reason: 'Applied', message: `revision ${target.name} applied` },
    });
    await Promise.all([...passing, cleanup]);
    if (startedReady) {
      // Settled by the next reconcile (at once), once the node is Ready again.
      this.settleWhenReady = true;
      return { retryAt: clock.now() };
    }
    // A node NotReady before its turn never holds the others back.
    await this.gate.settle();
    return {};
  }

  /** The watch's Node, or the reporter's copy when that is newer (the answer to the agent's own write). */
  private newestNode(watched: NodeObject | undefined): NodeObject | undefined {
    const known = this.options.reporter.latestNode;
    if (!watched || !known || known.metadata?.name !== watched.metadata?.name) return watched;
    return laterNode(watched, known);
  }

  /** The plan to `target` from what the node has: last-applied, unless unfinished applies muddied it. */
  private planTo(target: RevisionRef): { plan: Plan; recovering: boolean } {
    const unfinished = this.inFlight
      .list()
      .filter((r) => r.hash !== target.hash)
      .map(configOf);
    const base = recoveryBase(this.lastApplied && configOf(this.lastApplied), unfinished, configOf(target));
    const options = this.options.selfUnit !== undefined ? { selfUnit: this.options.selfUnit } : {};
    return {
      plan: plan(base ? { config: base } : undefined, { config: configOf(target) }, options),
      recovering: unfinished.length > 0,
    };
  }

  /** Runs the plan to the end, through reboots and self-restarts that let this process live. */
  private async execute(
    steps: Plan,
    target: RevisionRef,
    recovering: boolean,
    before?: Promise<void>,
  ): Promise<ApplyRunResult | 'halted'> {
    const targetUnits = new Set(configOf(target).units.map((u) => u.name));
    const tolerate = recovering
      ? (action: Action) => isRetirementOfUnknownUnit(action, targetUnits)
      : undefined;
    const context = {
      executors: this.options.executors,
      host: this.options.host,
      journal: this.journal,
      markers: this.markers,
      clock: this.options.clock,
      logger: this.options.logger,
      metrics: this.options.metrics,
      selfUnit: this.options.selfUnit,
      ...(this.options.hooks ? { hooks: this.options.hooks } : {}),
    };
    for (let first = true; ; first = false) {
      const run = await runPlan(steps, target, context, {
        ...(tolerate ? { tolerate } : {}),
        ...(first && before ? { before } : {}),
      });
      if (run.outcome !== 'restarting') return run;
      const decision = await this.options.onHostRestart(run.kind);
      if (decision === 'halt') {
        this.halted = true;
        await this.report({
          state: 'Applying',
          message: `${run.kind === 'reboot' ? 'rebooting' : 'restarting the agent'} to apply ${target.name}`,
          stateRevision: target.name,
          currentRevision: this.lastApplied?.name,
        });
        return 'halted';
      }
    }
  }

  private async verify(target: RevisionRef) {
    return verifyConfig(configOf(target), {
      systemd: this.options.executors.systemd,
      probes: this.options.probes,
      unitTimeoutMs: this.options.unitTimeoutMs,
      intervalMs: this.options.verifyIntervalMs,
    });
  }

  /**
   * The node now is `target`, completely: records it durably, and returns the forgetting of the
   * unfinished work, which may overlap with reporting (after a crash in between, the next start
   * finds last-applied equal to the target and an empty plan).
   */
  private async commit(target: RevisionRef): Promise<Promise<void>> {
    await this.lastAppliedStore.write({
      revisionName: target.name,
      revisionHash: target.hash,
      spec: target.spec,
    });
    this.lastApplied = target;
    this.options.metrics.setCurrentRevision(target.name, target.hash);
    this.current.currentRevision = target.name;
    return Promise.all([
      this.journal.finish(),
      this.markers.clear(),
      this.inFlight.clear(),
      this.failures.clear(),
    ]).then(() => undefined);
  }

  private async fail(
    target: RevisionRef,
    failure: { reason: string; evidence: FailureEvidence },
    started: number,
  ): Promise<ReconcileResult> {
    const { clock, logger, metrics, reporter } = this.options;
    metrics.applyFailures.inc();
    metrics.observeApply('failure', (clock.now() - started) / 1000);
    // Now, while the node's files still hold the failed revision's Secret values (to redact them).
    const configs = [configOf(target), this.lastApplied && configOf(this.lastApplied)];
    const { reason, cause, text } = await gatherExcerpt(
      failure.reason,
      failure.evidence,
      this.options.executors,
      configs,
    );
    const previous = this.failures.current;
    const attempts =
      previous && sameRevision({ name: previous.revisionName, hash: previous.revisionHash }, target)
        ? previous.attempts + 1
        : 1;
    const last = this.lastApplied;
    const rollBack =
      last !== undefined && last.hash !== target.hash && (await this.options.rollbackPolicy(target));
    const record: FailureRecord = {
      revisionName: target.name,
      revisionHash: target.hash,
      reason,
      failedAt: clock.now(),
      attempts,
      rollback: rollBack ? 'in-progress' : 'none',
      ...(cause !== undefined ? { cause } : {}),
      ...(text !== '' ? { excerpt: text } : {}),
    };
    await this.failures.write(record);
    logger.error({ revision: target.name, reason, cause, attempts, rollBack }, 'apply failed');
    await reporter.event('Warning', EVENT_REASONS.failed, failureMessage(record, ''));
    if (rollBack) return this.rollBack(target, record, started);
    await this.report(this.failedReport(record));
    return { retryAt: record.failedAt + this.backoff(attempts) };
  }

  /** Restores the last applied revision after `failed` failed (or resumes doing so). */
  private async rollBack(
    failed: RevisionRef,
    record: FailureRecord,
    started: number,
  ): Promise<ReconcileResult> {
    const { clock, logger, metrics, reporter } = this.options;
    const last = this.lastApplied;
    if (!last) {
      // Only possible when last-applied became unreadable after the rollback began.
      const record2: FailureRecord = {
        ...record,
        rollback: 'failed',
        reason: `${record.reason}; nothing to roll back to`,
      };
      await this.failures.write(record2);
      await this.report(this.failedReport(record2));
      return {};
    }
    await this.inFlight.add(failed);
    await this.report({
      state: 'Failed',
      message: failureMessage(record, `; rolling back to ${last.name}`),
      stateRevision: failed.name,
      currentRevision: last.name,
      condition: {
        status: 'False',
        reason: 'RollingBack',
        message: failedConditionMessage(record, `; rolling back to ${last.name}`),
      },
    });
    const { plan: restore, recovering } = this.planTo(last);
    // planTo(failed) is the failed apply's own plan (it is the one unfinished revision left out).
    const steps = restartAfterRollback(restore, unitsRestartedBy(this.planTo(failed).plan));
    logger.warn({ from: failed.name, to: last.name, summary: steps.summary }, 'rolling back');
    const run = await this.execute(steps, last, recovering);
    if (run === 'halted') return {};
    const problem = run.outcome === 'failed' ? `${run.action.id}: ${run.error.message}` : undefined;
    const verified = problem === undefined ? await this.verify(last) : undefined;
    if (problem !== undefined || (verified && !verified.ok)) {
      const why = problem ?? (verified as { reason: string }).reason;
      const failedRecord: FailureRecord = {
        ...record,
        rollback: 'failed',
        reason: `${record.reason}; rollback failed: ${why}`,
      };
      await this.failures.write(failedRecord);
      logger.error({ revision: last.name, reason: why }, 'rollback failed');
      await reporter.event('Warning', EVENT_REASONS.failed, `rollback to ${last.name} failed: ${why}`);
      await this.report(this.failedReport(failedRecord));
      return {};
    }
    await this.commit(last);
    const done: FailureRecord = { ...record, rollback: 'done', rolledBackTo: last.name };
    await this.failures.write(done);
    metrics.rollbacks.inc();
    metrics.observeApply('rollback', (clock.now() - started) / 1000);
    logger.warn({ from: failed.name, to: last.name }, 'rolled back');
    const cause = record.cause !== undefined ? `: ${record.cause}` : '';
    await reporter.event(
      'Warning',
      EVENT_REASONS.rolledBack,
      `revision ${failed.name} failed (${record.reason}${cause}); restored ${last.name}: ${steps.summary}`,
    );
    await this.report(this.failedReport(done));
    return {};
  }

  private failedReport(record: FailureRecord): StatusReport {
    const rolledBack = record.rollback === 'done' ? `; rolled back to ${record.rolledBackTo}` : '';
    return {
      state: 'Failed',
      message: failureMessage(record, rolledBack),
      stateRevision: record.revisionName,
      currentRevision: this.lastApplied?.name,
      condition: {
        status: 'False',
        reason:
          record.rollback === 'done'
            ? 'RolledBack'
            : record.rollback === 'failed'
              ? 'RollbackFailed'
              : 'ApplyFailed',
        message: failedConditionMessage(record, rolledBack),
      },
    };
  }

  private async reportIdle(desired: DesiredSnapshot): Promise<void> {
    const annotations = desired.node?.metadata?.annotations ?? {};
    const last = this.lastApplied?.name;
    if (
      annotations[STATE_ANNOTATION] === 'Idle' &&
      annotations[CURRENT_REVISION_ANNOTATION] === last &&
      annotations[STATE_REVISION_ANNOTATION] === undefined
    ) {
      // Already said: nothing to write, but this process is Idle too (not Starting).
      this.current = { ...this.current, state: 'Idle', currentRevision: last };
      return;
    }
    await this.report({
      state: 'Idle',
      message: 'no desired revision',
      stateRevision: null,
      currentRevision: last,
    });
  }

  private async reportUpToDate(desired: DesiredSnapshot, target: RevisionRef): Promise<void> {
    const annotations = desired.node?.metadata?.annotations ?? {};
    const quiet =
      annotations[STATE_ANNOTATION] === 'Done' &&
      annotations[CURRENT_REVISION_ANNOTATION] === target.name &&
      annotations[STATE_REVISION_ANNOTATION] === target.name;
    if (quiet && !this.options.reporter.pending) {
      this.current = { ...this.current, state: 'Done', currentRevision: target.name };
      return;
    }
    await this.report({
      state: 'Done',
      message: `revision ${target.name} applied`,
      stateRevision: target.name,
      currentRevision: target.name,
      condition: { status: 'True', reason: 'Applied', message: `revision ${target.name} applied` },
    });
  }

  private async reportUnusable(name: string, reason: string, message: string): Promise<ReconcileResult> {
    this.options.logger.warn({ revision: name, reason }, 'desired revision unusable');
    await this.report({
      state: 'Failed',
      message,
      stateRevision: name,
      currentRevision: this.lastApplied?.name,
      condition: { status: 'False', reason, message },
    });
    return {};
  }

  private async report(report: StatusReport): Promise<void> {
    this.current = {
      ...this.current,
      state: report.state,
      message: report.message,
      currentRevision: this.lastApplied?.name,
    };
    this.options.metrics.setState(report.state);
    await this.options.reporter.report(report);
  }

  private backoff(attempts: number): number {
    const { initialMs, maxMs } = this.options.retry;
    return Math.min(maxMs, initialMs * 2 ** Math.max(0, attempts - 1));
  }
}

/** Why a revision must not be applied, or undefined. */
export function revisionProblem(object: RevisionObject): string | undefined {
  const spec = object.spec;
  if (!isRevisionSpec(spec)) return 'spec.config is missing';
  if (!isKnownHashAlgorithm(spec.hashAlgorithm))
    return `unknown hash algorithm ${JSON.stringify(spec.hashAlgorithm)}`;
  // Revisions are immutable by convention only on a real cluster: refuse one whose config is not
  // what its hash (and name) promise.
  if (hashConfig(spec.config, spec.hashAlgorithm) !== spec.hash)
    return 'spec.config does not match spec.hash';
  return undefined;
}

function isRevisionSpec(spec: unknown): spec is RevisionSpec {
  const s = spec as Partial<RevisionSpec> | undefined;
  return (
    typeof s === 'object' &&
    s !== null &&
    typeof s.hash === 'string' &&
    typeof s.hashAlgorithm === 'string' &&
    typeof s.config === 'object' &&
    s.config !== null &&
    Array.isArray(s.config.files) &&
    Array.isArray(s.config.units)
  );
}

/** A failed plan action as a failure: its error, and the unit it acted on (whose journal explains it). */
function actionFailure(run: Extract<ApplyRunResult, { outcome: 'failed' }>): {
  reason: string;
  evidence: FailureEvidence;
} {
  const unit = unitOfAction(run.action as { kind: string; name?: string });
  const message = run.error.message;
  // The command's own output (systemctl's, apt's) is the error's text after its first line.
  const output = message.includes('\n') ? { output: message, outputTitle: 'command output' } : {};
  return {
    reason: `${run.action.id}: ${message.split('\n')[0]}`,
    evidence: { ...(unit !== undefined ? { unit } : {}), ...output },
  };
}

// A recovery plan retires units an unfinished apply may never have created: stopping or disabling
// one that does not exist is no failure.
function isRetirementOfUnknownUnit(action: Action, targetUnits: Set<string>): boolean {
  return (action.kind === 'stop-unit' || action.kind === 'disable-unit') && !targetUnits.has(action.name);
}

/** The Node's Ready condition (Unknown counts as NotReady); Unreported when it has none. */
function readiness(node: NodeObject | undefined): 'Ready' | 'NotReady' | 'Unreported' {
  const ready = readyCondition(node);
  if (!ready) return 'Unreported';
  return ready.status === 'True' ? 'Ready' : 'NotReady';
}

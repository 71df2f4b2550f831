// Reboots the OS asks for, on the node's side: the agent checks the sentinel (reboot-sentinel.ts) and
// says what it found on its Node's nodeherd.io/RebootRequired condition; it reboots only when the
// controller asks (nodeherd.io/reboot-requested), through the host's one reboot (HostControl.reboot,
// the same `systemctl reboot` a revision's disruption Reboot makes, and the same wait-to-die decision),
// and once the boot id has changed it answers the request (nodeherd.io/rebooted) and checks again.
//
// A request is recorded durably (os-reboot.json) with the boot id of the moment the agent first saw it,
// before anything else happens: any reboot after that moment answers it, a revision's own reboot too,
// so a node asked for both reboots once. A restart of the agent without a reboot (same boot id) asks
// again, as an apply's reboot marker does.

import {
  REBOOT_REQUESTED_ANNOTATION,
  REBOOT_REQUIRED_CONDITION,
  REBOOT_REQUIRED_REASONS,
  REBOOTED_ANNOTATION,
} from '../../api/node-protocol.ts';
import { JsonRecordFile, recordOf } from '../apply/json-record-file.ts';
import type { RestartDecision } from '../apply/reconciler.ts';
import type { Clock } from '../clock.ts';
import type { CommandRunner } from '../executors/command-runner.ts';
import type { FileExecutor } from '../executors/types.ts';
import type { HostControl } from '../host/host-control.ts';
import type { Logger } from '../logger.ts';
import type { AgentMetrics } from '../metrics/agent-metrics.ts';
import { EVENT_REASONS } from '../report/node-event.ts';
import type { NodeReporter } from '../report/node-reporter.ts';
import type { NodeObject } from '../watch/kube-objects.ts';
import type { RebootSettingsSource } from './pool-reboot-settings.ts';
import { checkRebootSentinel, type SentinelVerdict } from './reboot-sentinel.ts';

const OS_REBOOT_RECORD_FILE = 'os-reboot.json';

/** A reboot request the agent has seen and not yet seen answered on its Node. */
interface RequestRecord {
  /** The REBOOT_REQUESTED_ANNOTATION value. */
  request: string;
  /** The boot when the agent first saw the request: a different one answers it. */
  bootId: string;
  /** Epoch ms. */
  seenAt: number;
  /** The agent asked the host to reboot for it (at least once). */
  asked: boolean;
  /** The reboot happened and was reported (annotation, Event): kept until the Node shows the answer. */
  answered: boolean;
}

const isRequestRecord = recordOf<RequestRecord>({
  request: 'string',
  bootId: 'string',
  seenAt: 'number',
  asked: 'boolean',
  answered: 'boolean',
});

export interface OsRebootsOptions {
  stateDir: string;
  host: HostControl;
  files: FileExecutor;
  commands: CommandRunner | undefined;
  settings: RebootSettingsSource;
  reporter: NodeReporter;
  metrics: AgentMetrics;
  clock: Clock;
  logger: Logger;
  /** After the reboot was asked for: keep going, or stop and wait to die (the agent's one decision). */
  onHostRestart(kind: 'reboot'): Promise<RestartDecision>;
}

export type RebootStep = 'none' | 'halt';

export class OsReboots {
  private readonly options: OsRebootsOptions;
  private readonly store: JsonRecordFile<RequestRecord>;
  private record: RequestRecord | undefined;
  /** This boot follows a reboot made for a request: the next check says Rebooted, not NotRequired. */
  private rebootedFor: { request: string; bootId: string } | undefined;
  private lastVerdict: string | undefined;
  /** The applied revision the last check was given (the settings' cache follows it). */
  private lastRevision: string | undefined;
  /**
   * The request this process asked a reboot for: not asked again by the same process (a queued reboot
   * keeps the old boot id until it happens); a new process with the same boot id asks again.
   */
  private askedHere: string | undefined;

  constructor(options: OsRebootsOptions) {
    this.options = options;
    this.store = new JsonRecordFile(options.stateDir, OS_REBOOT_RECORD_FILE, isRequestRecord);
  }

  /** Reads the request record; notices a reboot that answered it. */
  async load(): Promise<void> {
    this.record = await this.store.read();
    const record = this.record;
    if (record && !record.answered) {
      const bootId = await this.options.host.bootId();
      if (bootId !== record.bootId) this.rebootedFor = { request: record.request, bootId };
    }
  }

  /** Whether a reboot request waits for this agent (asked and not answered). */
  get pending(): boolean {
    return this.record !== undefined && !this.record.answered;
  }

  /**
   * Records a request the first time it is seen, with the boot id of now, before the agent does
   * anything else (an apply's reboot included), so that reboot can answer it.
   */
  async observe(node: NodeObject | undefined): Promise<void> {
    const request = requestOf(node);
    if (request === undefined || request === this.record?.request) return;
    // Answered before (the record went once the Node showed the answer): not a new request.
    if (request === node?.metadata?.annotations?.[REBOOTED_ANNOTATION]) return;
    this.record = {
      request,
      bootId: await this.options.host.bootId(),
      seenAt: this.options.clock.now(),
      asked: false,
      answered: false,
    };
    this.rebootedFor = undefined;
    await this.store.write(this.record);
    this.options.logger.info({ request }, 'reboot request seen');
  }

  /**
   * Answers a request whose reboot happened, or reboots for it when the node is `settled` (not
   * applying, nothing unfinished or failed: an apply goes first, and its own reboot answers the
   * request). 'halt': the reboot was asked for and this process must stop working.
   */
  async step(node: NodeObject | undefined, settled: boolean, pool: string | undefined): Promise<RebootStep> {
    const { host, reporter, logger } = this.options;
    const request = requestOf(node);
    const answered = node?.metadata?.annotations?.[REBOOTED_ANNOTATION];
    const record = this.record;
    if (!record) return 'none';
    if (request === undefined || (record.answered && answered === record.request)) {
      // Withdrawn, or answered and seen on the Node: nothing left to remember.
      if (request === undefined || answered === request) {
        this.record = undefined;
        await this.store.remove();
      }
      return 'none';
    }
    if (record.request !== request) return 'none'; // observe() runs first and records the new one
    if (record.answered) return 'none'; // the annotation is on its way (the reporter retries)
    const bootId = await host.bootId();
    if (bootId !== record.bootId) {
      this.record = { ...record, answered: true };
      await this.store.write(this.record);
      this.rebootedFor = { request, bootId };
      logger.info({ request, bootId }, 'rebooted for the request');
      await reporter.event(
        'Normal',
        EVENT_REASONS.rebooted,
        `rebooted for the request ${request}: boot id ${bootId} (was ${record.bootId})`,
      );
      await reporter.annotate(REBOOTED_ANNOTATION, request);
      await this.check(pool, this.lastRevision);
      return 'none';
    }
    if (!settled || this.askedHere === request) return 'none';
    if (record.asked) logger.warn({ request }, 'the requested reboot did not happen: asking again');
    this.record = { ...record, asked: true };
    await this.store.write(this.record);
    this.askedHere = request;
    await reporter.condition(REBOOT_REQUIRED_CONDITION, {
      status: 'True',
      reason: REBOOT_REQUIRED_REASONS.rebooting,
      message: `rebooting for the request ${request} (boot id ${bootId})`,
    });
    await reporter.event('Normal', EVENT_REASONS.rebooting, `rebooting for the request ${request}`);
    try {
      await host.reboot();
    } catch (error) {
      logger.error({ request, error: error as Error }, 'the reboot could not be requested');
      await reporter.event(
        'Warning',
        EVENT_REASONS.rebootFailed,
        `the reboot for the request ${request} could not be requested: ${(error as Error).message}`,
      );
      this.askedHere = undefined; // asked again at the next reconcile
      this.lastVerdict = undefined;
      await this.check(pool, this.lastRevision);
      return 'none';
    }
    logger.info({ request }, 'rebooting for the request');
    return (await this.options.onHostRestart('reboot')) === 'halt' ? 'halt' : 'none';
  }

  /**
   * Checks the sentinel and says on the Node what it found; `mayRead`: the pool's settings may be read
   * (the periodic check), else those read before serve.
   */
  async check(pool: string | undefined, revision?: string, mayRead = false): Promise<SentinelVerdict> {
    const { reporter, logger } = this.options;
    this.lastRevision = revision;
    const settings = await this.options.settings(pool, revision, mayRead);
    const verdict = await checkRebootSentinel(settings, {
      files: this.options.files,
      commands: this.options.commands,
    });
    this.options.metrics.rebootRequired.set(
      {},
      verdict.required === undefined ? -1 : verdict.required ? 1 : 0,
    );
    const key = `${verdict.reason}|${verdict.message}`;
    if (key !== this.lastVerdict) {
      this.lastVerdict = key;
      if (verdict.required === true) {
        logger.info({ reason: verdict.reason, packages: verdict.packages }, 'the OS asks for a reboot');
        await reporter.event('Normal', EVENT_REASONS.rebootRequired, verdict.message);
      } else if (verdict.required === undefined) {
        logger.warn({ message: verdict.message }, 'could not tell whether the OS asks for a reboot');
      }
    }
    if (verdict.required === true) {
      this.rebootedFor = undefined;
      await reporter.condition(REBOOT_REQUIRED_CONDITION, {
        status: 'True',
        reason: verdict.reason,
        message: verdict.message,
      });
    } else if (verdict.required === undefined) {
      await reporter.condition(REBOOT_REQUIRED_CONDITION, {
        status: 'Unknown',
        reason: verdict.reason,
        message: verdict.message,
      });
    } else if (this.rebootedFor) {
      // Said even on a Node without the condition: the controller that asked waits for it.
      await reporter.condition(REBOOT_REQUIRED_CONDITION, {
        status: 'False',
        reason: REBOOT_REQUIRED_REASONS.rebooted,
        message: `rebooted for the request ${this.rebootedFor.request} (boot id ${this.rebootedFor.bootId}); ${verdict.message}`,
        keepSameStatus: true,
      });
    } else {
      // A node that never needed a reboot writes nothing (a fleet at rest keeps its Nodes unwritten).
      await reporter.condition(REBOOT_REQUIRED_CONDITION, {
        status: 'False',
        reason: verdict.reason,
        message: verdict.message,
        keepSameStatus: true,
        onlyIfPresent: true,
      });
    }
    return verdict;
  }
}

function requestOf(node: NodeObject | undefined): string | undefined {
  return node?.metadata?.annotations?.[REBOOT_REQUESTED_ANNOTATION] || undefined;
}

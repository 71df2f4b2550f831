// Tells the cluster what the agent is doing: the protocol annotations on its Node (merge patch),
// the NodeConfigReady and ConfigDrift conditions (strategic merge patch of /status: conditions merge
// by type, so kubelet's own conditions are untouched), and Events about the Node. Every write is skipped when
// the Node already says the same, so a quiet node writes nothing. A report that cannot be
// delivered is kept and retried by the agent (retry()).

import {
  CURRENT_REVISION_ANNOTATION,
  MESSAGE_ANNOTATION,
  NODE_CONFIG_READY_CONDITION,
  type NodeState,
  STATE_ANNOTATION,
  STATE_REVISION_ANNOTATION,
} from '../../api/node-protocol.ts';
import { resourcePath } from '../../kube/light/api-paths.ts';
import type { LightKubeClient } from '../../kube/light/light-kube-client.ts';
import { truncateUtf8 } from '../../util/truncate-utf8.ts';
import { type Clock, kubeTime } from '../clock.ts';
import type { Logger } from '../logger.ts';
import {
  type ConditionStatus,
  laterNode,
  type NodeCondition,
  type NodeObject,
} from '../watch/kube-objects.ts';
import { buildNodeEvent, type EventType } from './node-event.ts';

/** Annotation values stay readable in `kubectl describe`; the full story is in the agent's log. */
const MAX_MESSAGE_BYTES = 1024;
/**
 * A condition's message carries a failure's excerpt (the journal lines, failure-excerpt.ts): the API
 * server takes up to 32 KiB (metav1.Condition's maxLength); nodeherd keeps it to 8 KiB.
 */
export const MAX_CONDITION_MESSAGE_BYTES = 8192;
/** Undelivered events kept for retry; older ones are dropped first. */
const MAX_PENDING_EVENTS = 20;

export interface StatusReport {
  state: NodeState;
  message: string;
  /** Leave undefined to keep what the Node says. */
  currentRevision?: string;
  /** The revision the state refers to (written as STATE_REVISION_ANNOTATION); null removes it. */
  stateRevision: string | null;
  condition?: { status: ConditionStatus; reason: string; message: string };
}

export interface NodeReporterOptions {
  client: LightKubeClient;
  nodeName: string;
  clock: Clock;
  logger: Logger;
  /** Where Events go (default 'default'). */
  eventNamespace?: string;
}

/** A condition besides NodeConfigReady (ConfigDrift), set apart from the state reports. */
export interface ConditionReport {
  status: ConditionStatus;
  reason: string;
  message: string;
  /** Leave the condition as it is when it already has this status (whatever its reason). */
  keepSameStatus?: boolean;
  /** Write it only over a condition the Node has: an all-clear that need not be said first. */
  onlyIfPresent?: boolean;
}

interface PendingEvent {
  type: EventType;
  reason: string;
  message: string;
  at: number;
}

export class NodeReporter {
  private readonly client: LightKubeClient;
  private readonly nodeName: string;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly eventNamespace: string;
  private node: NodeObject | undefined;
  private wanted: StatusReport | undefined;
  private delivered = true;
  private readonly conditions = new Map<string, ConditionReport>();
  /** Agent annotations besides the state report's (REBOOTED_ANNOTATION), waiting to be written. */
  private readonly annotations = new Map<string, string>();
  private readonly events: PendingEvent[] = [];
  /** Deliveries run one at a time, so an event is never created twice. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: NodeReporterOptions) {
    this.client = options.client;
    this.nodeName = options.nodeName;
    this.clock = options.clock;
    this.logger = options.logger;
    this.eventNamespace = options.eventNamespace ?? 'default';
  }

  /** The Node as last seen (from the watch, or returned by a patch). */
  observe(node: NodeObject | undefined): void {
    if (!node) {
      this.node = undefined;
      return;
    }
    // A watch event may be older than the answer to our own patch; keep the newer.
    this.node = this.node ? laterNode(this.node, node) : node;
  }

  /**
   * The newest Node this agent knows: what its watch delivered or what the API server answered to its
   * own last write, whichever is later. The answer can be ahead of the watch: a report written after
   * the kubelet's NotReady status carries it, while the watch event with it may still be on its way.
   */
  get latestNode(): NodeObject | undefined {
    return this.node;
  }

  /** Whether something is waiting to be delivered. */
  get pending(): boolean {
    return !this.delivered || this.events.length > 0 || this.conditions.size > 0 || this.annotations.size > 0;
  }

  /** Sets a condition of the agent's other than NodeConfigReady; resolves false if the write failed. */
  async condition(type: string, report: ConditionReport): Promise<boolean> {
    this.conditions.set(type, { ...report, message: truncateCondition(report.message) });
    return this.retry();
  }

  /** Sets an agent annotation outside the state report (skipped when the Node has it already). */
  async annotate(key: string, value: string): Promise<boolean> {
    this.annotations.set(key, value);
    return this.retry();
  }

  /** Sets what the Node should say and writes what differs. Resolves false if a write failed. */
  async report(report: StatusReport): Promise<boolean> {
    this.wanted = { ...report, message: truncate(report.message) };
    this.delivered = false;
    return this.retry();
  }

  /** Records an Event about the Node; resolves false if it could not be created yet. */
  async event(type: EventType, reason: string, message: string): Promise<boolean> {
    this.events.push({ type, reason, message: truncate(message), at: this.clock.now() });
    if (this.events.length > MAX_PENDING_EVENTS) this.events.shift();
    return this.retry();
  }

  /** Delivers pending events and the wanted status. */
  retry(): Promise<boolean> {
    const run = this.queue.then(() => this.deliver());
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async deliver(): Promise<boolean> {
    // Events wait for the Node: they carry its uid (and a node that does not exist yet has no story).
    if (!this.node) return false;
    let ok = true;
    while (this.events.length > 0) {
      const event = this.events[0]!;
      try {
        await this.createEvent(event);
        this.events.shift();
      } catch (error) {
        this.logger.warn({ reason: event.reason, error: error as Error }, 'could not create an event');
        ok = false;
        break;
      }
    }
    for (const [type, wanted] of [...this.conditions]) {
      try {
        await this.writeCondition(type, wanted);
        if (this.conditions.get(type) === wanted) this.conditions.delete(type);
      } catch (error) {
        this.logger.warn({ condition: type, error: error as Error }, 'could not report a condition');
        ok = false;
      }
    }
    for (const [key, value] of [...this.annotations]) {
      try {
        if (this.node?.metadata?.annotations?.[key] !== value) {
          const path = resourcePath({ apiVersion: 'v1', resource: 'nodes', name: this.nodeName });
          const body = { metadata: { annotations: { [key]: value } } };
          this.observe(await this.client.patch<NodeObject>(path, body, 'merge'));
        }
        if (this.annotations.get(key) === value) this.annotations.delete(key);
      } catch (error) {
        this.logger.warn({ annotation: key, error: error as Error }, 'could not annotate the Node');
        ok = false;
      }
    }
    const wanted = this.wanted;
    if (!this.delivered && wanted) {
      try {
        await this.writeStatus(wanted);
        // A report that came in while this one was on the wire is still to be delivered.
        if (this.wanted === wanted) this.delivered = true;
      } catch (error) {
        this.logger.warn({ state: wanted.state, error: error as Error }, 'could not report to the Node');
        ok = false;
      }
    }
    return ok;
  }

  private async writeStatus(report: StatusReport): Promise<void> {
    if (!this.node) throw new Error(`Node ${this.nodeName} not seen yet`);
    const annotations = this.node.metadata?.annotations ?? {};
    const patch: Record<string, string | null> = {};
    if (annotations[STATE_ANNOTATION] !== report.state) patch[STATE_ANNOTATION] = report.state;
    if (annotations[MESSAGE_ANNOTATION] !== report.message) patch[MESSAGE_ANNOTATION] = report.message;
    if (
      report.currentRevision !== undefined &&
      annotations[CURRENT_REVISION_ANNOTATION] !== report.currentRevision
    )
      patch[CURRENT_REVISION_ANNOTATION] = report.currentRevision;
    if ((annotations[STATE_REVISION_ANNOTATION] ?? null) !== report.stateRevision)
      patch[STATE_REVISION_ANNOTATION] = report.stateRevision;
    const path = resourcePath({ apiVersion: 'v1', resource: 'nodes', name: this.nodeName });
    const condition = report.condition
      ? this.conditionUpdate(NODE_CONFIG_READY_CONDITION, report.condition)
      : undefined;
    const writeCondition = async () => {
      if (!condition) return;
      const body = { status: { conditions: [condition] } };
      this.observe(await this.client.patch<NodeObject>(`${path}/status`, body, 'strategic'));
    };
    const writeAnnotations = async () => {
      if (Object.keys(patch).length === 0) return;
      this.observe(await this.client.patch<NodeObject>(path, { metadata: { annotations: patch } }, 'merge'));
    };
    if (report.state === 'Applying') {
      // A passing state: both at once, it is on the way from the annotation to Done.
      await Promise.all([writeCondition(), writeAnnotations()]);
      return;
    }
    // An outcome: the condition first, so whoever sees the state annotation sees the condition too.
    await writeCondition();
    await writeAnnotations();
  }

  private async writeCondition(type: string, wanted: ConditionReport): Promise<void> {
    if (!this.node) throw new Error(`Node ${this.nodeName} not seen yet`);
    const current = this.node.status?.conditions?.find((c) => c.type === type);
    if (wanted.keepSameStatus && current?.status === wanted.status) return;
    if (wanted.onlyIfPresent && !current) return;
    const condition = this.conditionUpdate(type, wanted);
    if (!condition) return;
    const path = resourcePath({ apiVersion: 'v1', resource: 'nodes', name: this.nodeName });
    const body = { status: { conditions: [condition] } };
    this.observe(await this.client.patch<NodeObject>(`${path}/status`, body, 'strategic'));
  }

  /** The condition to write, or undefined when the Node already has it. */
  private conditionUpdate(
    type: string,
    wanted: { status: ConditionStatus; reason: string; message: string },
  ): NodeCondition | undefined {
    const current = this.node?.status?.conditions?.find((c) => c.type === type);
    const message = truncateCondition(wanted.message);
    if (
      current &&
      current.status === wanted.status &&
      current.reason === wanted.reason &&
      current.message === message
    )
      return undefined;
    const now = kubeTime(this.clock.now());
    const transition = current && current.status === wanted.status ? current.lastTransitionTime : undefined;
    return {
      type,
      status: wanted.status,
      reason: wanted.reason,
      message,
      lastTransitionTime: transition ?? now,
      lastHeartbeatTime: now,
    };
  }

  private async createEvent(event: PendingEvent): Promise<void> {
    const body = buildNodeEvent({
      nodeName: this.nodeName,
      nodeUid: this.node?.metadata?.uid,
      namespace: this.eventNamespace,
      type: event.type,
      reason: event.reason,
      message: event.message,
      time: kubeTime(event.at),
    });
    await this.client.create(
      resourcePath({ apiVersion: 'v1', resource: 'events', namespace: this.eventNamespace }),
      body,
    );
  }
}

/** The API server refuses Event messages over 1,024 bytes (kube's NoteLengthLimit). */
function truncate(message: string): string {
  return truncateUtf8(message, MAX_MESSAGE_BYTES);
}

function truncateCondition(message: string): string {
  return truncateUtf8(message, MAX_CONDITION_MESSAGE_BYTES);
}

// What a Node object says of the agent's work, read one way for the controller's snapshot,
// `nodeherd plan` and `nodeherd status`: the annotations and conditions node-protocol.ts names.
// Typed by shape so that src/api stays free of the client's Node type.

import {
  CURRENT_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  MESSAGE_ANNOTATION,
  PRESTAGE_REVISION_ANNOTATION,
  PRESTAGED_ANNOTATION,
  parsePrestageReport,
  REBOOT_REQUESTED_ANNOTATION,
  REBOOT_REQUIRED_CONDITION,
  REBOOT_REQUIRED_REASONS,
  REBOOTED_ANNOTATION,
  STATE_ANNOTATION,
} from './node-protocol.ts';

export interface ReportedCondition {
  type: string;
  status?: string | undefined;
  reason?: string | undefined;
  message?: string | undefined;
}

export interface ReportingNode {
  metadata: { annotations?: Readonly<Record<string, string>> | undefined };
  status?: { conditions?: readonly ReportedCondition[] | undefined } | undefined;
}

/** The agent's own annotations, as written (an empty value stays empty: callers decide what it means). */
export interface AgentReport {
  /** nodeherd.io/state: Idle, Waiting, Applying, Verifying, Done or Failed. */
  state: string | undefined;
  /** nodeherd.io/current-revision: the revision applied completely. */
  currentRevision: string | undefined;
  /** nodeherd.io/desired-revision: the revision the agent was given. */
  desiredRevision: string | undefined;
  /** nodeherd.io/message: what it is doing, or why it failed. */
  message: string | undefined;
}

export function readAgentReport(node: ReportingNode): AgentReport {
  const a = node.metadata.annotations ?? {};
  return {
    state: a[STATE_ANNOTATION],
    currentRevision: a[CURRENT_REVISION_ANNOTATION],
    desiredRevision: a[DESIRED_REVISION_ANNOTATION],
    message: a[MESSAGE_ANNOTATION],
  };
}

/**
 * The RebootRequired condition when the OS asks for a reboot: True, and not because the agent is
 * rebooting for a request already.
 */
export function osRebootRequest(node: ReportingNode): ReportedCondition | undefined {
  const c = node.status?.conditions?.find((x) => x.type === REBOOT_REQUIRED_CONDITION);
  return c?.status === 'True' && c.reason !== REBOOT_REQUIRED_REASONS.rebooting ? c : undefined;
}

/**
 * The OS asks for a reboot (osRebootRequest) and no reboot asked of the node is unanswered: it waits
 * for the controller to ask one.
 */
export function waitingOsReboot(node: ReportingNode): ReportedCondition | undefined {
  const c = osRebootRequest(node);
  if (!c) return undefined;
  const a = node.metadata.annotations ?? {};
  const requested = a[REBOOT_REQUESTED_ANNOTATION];
  return requested === undefined || a[REBOOTED_ANNOTATION] === requested ? c : undefined;
}

export interface PrestageProgress {
  /** The revision the node is told to pre-stage. */
  revision: string;
  /** Its report is not for that revision yet; or it is, and the download succeeded or failed. */
  state: 'downloading' | 'downloaded' | 'failed';
  /** The agent's words for a finished pre-stage. */
  message?: string;
}

/** How far the node got pre-staging the revision it is told to pre-stage (undefined when it is not told to). */
export function prestageProgress(node: ReportingNode): PrestageProgress | undefined {
  const a = node.metadata.annotations ?? {};
  const revision = a[PRESTAGE_REVISION_ANNOTATION];
  if (!revision) return undefined;
  const report = parsePrestageReport(a[PRESTAGED_ANNOTATION]);
  if (report?.revision !== revision) return { revision, state: 'downloading' };
  return {
    revision,
    state: report.outcome === 'Downloaded' ? 'downloaded' : 'failed',
    ...(report.message !== undefined ? { message: report.message } : {}),
  };
}

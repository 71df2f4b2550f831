// The controller↔agent protocol on Node objects, and the labels nodeherd puts on its own objects.

import { NAMESPACE } from './group.ts';

/** Written by the controller: the NodeConfigRevision the node should apply. */
export const DESIRED_REVISION_ANNOTATION = 'nodeherd.io/desired-revision';
/** Written by the agent: the revision last applied successfully. */
export const CURRENT_REVISION_ANNOTATION = 'nodeherd.io/current-revision';
/** Written by the agent: one of NODE_STATES. */
export const STATE_ANNOTATION = 'nodeherd.io/state';
/** Written by the agent: human-readable detail of the state. */
export const MESSAGE_ANNOTATION = 'nodeherd.io/message';

// Waiting: the agent has a desired revision but its gate (Spread time, Serial slot) is not passed yet.
export const NODE_STATES = ['Idle', 'Waiting', 'Applying', 'Verifying', 'Done', 'Failed'] as const;
export type NodeState = (typeof NODE_STATES)[number];

/** Node condition the agent maintains. */
export const NODE_CONFIG_READY_CONDITION = 'NodeConfigReady';
/**
 * Node condition the agent maintains: True while the node differs from its last applied revision
 * (drift found and not repaired: policy Report, or the repair failed); False when it does not.
 */
export const CONFIG_DRIFT_CONDITION = 'ConfigDrift';
/**
 * Node condition the agent maintains: True while the OS asks for a reboot (Debian's
 * /var/run/reboot-required, the pool's sentinel file or command) or the agent is rebooting the node;
 * False once it no longer does (written only over a condition the Node has, or after a reboot the
 * agent made). Prefixed: plain `RebootRequired` is what node-problem-detector plugins commonly set, and
 * two writers of one condition would overwrite each other.
 */
export const REBOOT_REQUIRED_CONDITION = 'nodeherd.io/RebootRequired';
/** Reasons of REBOOT_REQUIRED_CONDITION. */
export const REBOOT_REQUIRED_REASONS = {
  /** True: the sentinel file exists (its `.pkgs` list, if any, is in the message). */
  sentinelFile: 'SentinelFile',
  /** True: the sentinel command exited 1. */
  sentinelCommand: 'SentinelCommand',
  /** True: the agent asked systemd to reboot for REBOOT_REQUESTED_ANNOTATION. */
  rebooting: 'Rebooting',
  /** False: the node rebooted for a request (the message names the new boot id). */
  rebooted: 'Rebooted',
  /** False: neither the file nor the command asks for a reboot. */
  notRequired: 'NotRequired',
  /** Unknown: the command failed (not 0 or 1), timed out or could not run, and the file is absent. */
  checkFailed: 'CheckFailed',
} as const;
/** The Node conditions an agent may write (node-restriction and deploy/agent's policy allow no others). */
export const AGENT_CONDITIONS: readonly string[] = [
  NODE_CONFIG_READY_CONDITION,
  CONFIG_DRIFT_CONDITION,
  REBOOT_REQUIRED_CONDITION,
];
/** Where Debian and Ubuntu (update-notifier-common, unattended-upgrades) ask for a reboot. */
export const DEFAULT_REBOOT_SENTINEL_FILE = '/var/run/reboot-required';
/** What the controller does with nodes whose OS asks for a reboot: only report it, or reboot them. */
export const OS_REBOOT_POLICIES = ['Report', 'Reboot'] as const;
export type OsRebootPolicy = (typeof OS_REBOOT_POLICIES)[number];
/**
 * Written by the controller (agents may not): reboot this node once. The value is an opaque request id
 * (RFC 3339 time of the request, say); a new value is a new request. The agent reboots when it is
 * settled (not applying, no unfinished or failed apply), through the same reboot as a revision's
 * disruption Reboot, and afterwards writes the id to REBOOTED_ANNOTATION. Any reboot after the agent
 * first saw the request (a revision's own reboot among them) answers it: one reboot for both.
 */
export const REBOOT_REQUESTED_ANNOTATION = 'nodeherd.io/reboot-requested';
/** Written by the agent: the REBOOT_REQUESTED_ANNOTATION value its node has rebooted for. */
export const REBOOTED_ANNOTATION = 'nodeherd.io/rebooted';
/**
 * Written by the agent at start: the package manager its node has (`apt`, `dnf`, or `dnf5`, which
 * nodeherd does not drive: docs/operations.md). The controller starts no revision whose repositories or
 * packages are another manager's on the node (absent: `apt`, what every agent before managers were
 * detected ran). Grants nothing: it only narrows what the node is given.
 */
export const PACKAGE_MANAGER_ANNOTATION = 'nodeherd.io/package-manager';
/**
 * Written by the controller (agents may not): the NodeConfigRevision this node is next in line for,
 * so its agent downloads what the revision's packages need before the node's turn (apt-get
 * --download-only), installing nothing and changing none of the node's repositories. It grants no
 * Secret reads (src/profile/referenced-secrets.ts reads only the desired, available and current
 * revisions): a download needs the revision's packages and repositories only. The controller removes it
 * when the node's turn comes, and when the rollout pauses, rolls back or its target changes.
 */
export const PRESTAGE_REVISION_ANNOTATION = 'nodeherd.io/prestage-revision';
/**
 * Written by the controller (agents may not) beside PRESTAGE_REVISION_ANNOTATION, in the same patch:
 * when it asked (RFC 3339), so spec.prestage.timeoutSeconds counts from the ask across controller
 * restarts. Kept while the ask stands; removed with it. An agent that could write it could hold its
 * node's turn back forever, hence the controller's alone.
 */
export const PRESTAGE_ASKED_AT_ANNOTATION = 'nodeherd.io/prestage-asked-at';
/** Written by the agent: JSON of PrestageReport, its answer to PRESTAGE_REVISION_ANNOTATION. */
export const PRESTAGED_ANNOTATION = 'nodeherd.io/prestaged';
/** The outcomes of a pre-stage: everything downloaded (or nothing to download), or the download failed. */
export const PRESTAGE_OUTCOMES = ['Downloaded', 'Failed'] as const;
export type PrestageOutcome = (typeof PRESTAGE_OUTCOMES)[number];
export interface PrestageReport {
  /** The revision the agent pre-staged (PRESTAGE_REVISION_ANNOTATION's value then). */
  revision: string;
  outcome: PrestageOutcome;
  /** What was downloaded, or why it failed (the package manager's words, bounded). */
  message?: string;
}
/** A PRESTAGED_ANNOTATION value read back; undefined when it is not one (never trusted further). */
export function parsePrestageReport(value: string | undefined): PrestageReport | undefined {
  if (!value) return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { revision, outcome, message } = parsed as Record<string, unknown>;
    if (typeof revision !== 'string' || !(PRESTAGE_OUTCOMES as readonly unknown[]).includes(outcome))
      return undefined;
    return {
      revision,
      outcome: outcome as PrestageOutcome,
      ...(typeof message === 'string' ? { message } : {}),
    };
  } catch {
    return undefined;
  }
}
/** What the agent does about drift: write the revision's state back, or only report it. */
export const DRIFT_POLICIES = ['Repair', 'Report'] as const;
export type DriftPolicy = (typeof DRIFT_POLICIES)[number];

/** On NodeConfigRevisions (and nodes): the pool they belong to. */
export const POOL_LABEL = 'nodeherd.io/pool';
/** On NodeConfigRevisions: the revision number, for sorting and selecting. */
export const REVISION_LABEL = 'nodeherd.io/revision';

// ---- Update strategies other than RollingUpdate (issue 7). The controller hands a node its desired
// revision together with a gate; the agent passes the gate before it starts applying. Gates live on the
// Node, so agents keep going while the controller is down.

/** Written by the agent: the revision `nodeherd.io/state` refers to (the state alone is ambiguous). */
export const STATE_REVISION_ANNOTATION = 'nodeherd.io/state-revision';

/** Spread: RFC 3339 time before which the agent must not start applying the desired revision. */
export const NOT_BEFORE_ANNOTATION = 'nodeherd.io/not-before';

/** Serial: JSON of SerialGate; the agent holds a slot Lease while it applies. */
export const SERIAL_GATE_ANNOTATION = 'nodeherd.io/serial-gate';
export interface SerialGate {
  pool: string;
  slots: number;
  leaseDurationSeconds: number;
  /**
   * When the controller gave the node this gate (RFC 3339, the controller's clock; kept while the gate's
   * pool, slots and duration stay the same). The controller that writes it hands the pool's slots out
   * itself, so for a lease duration from then a Ready waiter need not read the slot Leases at all: it
   * waits for its Node to name the slot it was handed (SERIAL_SLOT_ANNOTATION). Absent (an older
   * controller, or a test): the agent lists the slots to learn whether the controller is live.
   */
  handedOutAt?: string;
}
/** Serial slot Leases live in this namespace, carry SERIAL_POOL_LABEL and are named serialLeaseName(). */
export const SERIAL_LEASE_NAMESPACE = NAMESPACE;
export const SERIAL_POOL_LABEL = 'nodeherd.io/serial-pool';
/**
 * On a slot Lease: the controller wrote its holder (a hand-over, RFC 3339 time). Agents that saw one
 * lately leave free slots to the controller for a grace before taking one themselves; their own writes
 * drop it.
 */
export const SERIAL_HANDED_OVER_ANNOTATION = 'nodeherd.io/serial-handed-over';
/**
 * Serial, on a Node: written by the controller right after it made the node the holder of a slot Lease
 * (a move from a finished holder, a free slot, or a slot it created), JSON of SerialSlotHandover. The
 * node's agent watches its Node anyway: it reads that one Lease and starts, so waiting agents need not
 * watch the pool's slot Leases while the controller hands them out. `handedOverAt` is the Lease's
 * SERIAL_HANDED_OVER_ANNOTATION, so the value differs at every hand-over (the same slot again later is
 * news too). A controller annotation: agents may not write it; a forged one is harmless anyway, the agent
 * starts only if the Lease names it as the holder. Removed once the node is on the pool's target (with
 * the gate), and by every other strategy.
 */
export const SERIAL_SLOT_ANNOTATION = 'nodeherd.io/serial-slot';
export interface SerialSlotHandover {
  /** The slot Lease's name (namespace SERIAL_LEASE_NAMESPACE). */
  lease: string;
  /** The hand-over's time, as in the Lease's SERIAL_HANDED_OVER_ANNOTATION. */
  handedOverAt: string;
}
export function serialLeaseName(pool: string, slot: number): string {
  return `nodeherd-serial-${pool}-${slot}`;
}

/** OTA: the revision the node's owner may pull; the agent's local API applies it by setting desired-revision. */
export const AVAILABLE_REVISION_ANNOTATION = 'nodeherd.io/available-revision';

/** OnDelete: on a Node, `nodeherd upgrade node` asks for it to move to the pool's target (value: RFC 3339 time). */
export const UPGRADE_REQUESTED_ANNOTATION = 'nodeherd.io/upgrade-requested';
/**
 * The annotations of its Node an agent reports and may therefore write (the embedded server's
 * node-restriction.ts and deploy/agent's admission policy allow no others). DESIRED_REVISION_ANNOTATION
 * is the controller's: an agent may only copy AVAILABLE_REVISION_ANNOTATION into it (OTA pull).
 */
export const AGENT_ANNOTATIONS: readonly string[] = [
  CURRENT_REVISION_ANNOTATION,
  STATE_ANNOTATION,
  STATE_REVISION_ANNOTATION,
  MESSAGE_ANNOTATION,
  REBOOTED_ANNOTATION,
  PACKAGE_MANAGER_ANNOTATION,
  PRESTAGED_ANNOTATION,
];

/** OnDelete: on a NodeConfigPool, `nodeherd upgrade revision` asks for every node of this revision number to move. */
export const UPGRADE_REVISION_ANNOTATION = 'nodeherd.io/upgrade-revision';
/** OnDelete: taint on nodes whose revision is not the pool's target (effect from onDelete.outdatedTaint). */
export const OUTDATED_TAINT_KEY = 'nodeherd.io/outdated-revision';

// ---- DaemonSets (seed 004).

/** On a DaemonSet with updateStrategy OnDelete: AdvancedRollingUpdate or OTA. */
export const DAEMONSET_STRATEGY_ANNOTATION = 'nodeherd.io/update-strategy';
export const DAEMONSET_STRATEGIES = ['AdvancedRollingUpdate', 'OTA'] as const;
/** On such a DaemonSet: pods (or % of desired pods) unavailable at once; default 10%. */
export const DAEMONSET_MAX_UNAVAILABLE_ANNOTATION = 'nodeherd.io/max-unavailable';
/** Pod condition on outdated pods of an OTA DaemonSet; its message names the target revision. */
export const POD_UPDATE_AVAILABLE_CONDITION = 'nodeherd.io/UpdateAvailable';

/**
 * Gated strategies (Serial, Spread): while present (value: why), the agent does not START applying a
 * new desired revision; an apply already running finishes. The controller sets it on nodes that have
 * not started when a pool is paused or its failure policy trips.
 */
export const HOLD_ANNOTATION = 'nodeherd.io/hold';

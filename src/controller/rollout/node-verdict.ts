// Where one node stands in the rollout of the target revision: the rules of issue 5 for one node,
// free of any I/O. The decision function combines the verdicts of all nodes.

import type {
  FailureReason,
  NodePhase,
  NodeSnapshot,
  NodeVerdict,
  RolloutInput,
  UncordonReason,
} from './types.ts';

/** States in which the agent has nothing left to do. */
const SETTLED_STATES = new Set(['Done', 'Idle']);
const WORKING_STATES = new Set(['Applying', 'Verifying']);

/** The controller asked the node to reboot and the agent has not answered yet. */
export function rebootPending(node: NodeSnapshot): boolean {
  return node.rebootRequested !== undefined && node.rebooted !== node.rebootRequested;
}

/**
 * Healthy on the revision it was given: Ready, agent settled on it, NodeConfigReady, health-gate pods,
 * its Node reporting the kubelet version the revision pins, and no reboot asked of it still unanswered.
 */
export function isHealthy(node: NodeSnapshot): boolean {
  const wanted = node.desiredRevision ?? node.currentRevision;
  return (
    !rebootPending(node) &&
    node.ready &&
    !node.deleting &&
    node.currentRevision !== undefined &&
    node.currentRevision === wanted &&
    SETTLED_STATES.has(node.agentState ?? '') &&
    node.configReady &&
    node.podsReady &&
    node.kubeletWaiting === undefined
  );
}

/** Why a node is not healthy, for messages. */
function unhealthyDetail(node: NodeSnapshot): string {
  if (node.deleting) return 'being deleted';
  if (!node.ready) return node.notReadyReason ? `NotReady (${node.notReadyReason})` : 'NotReady';
  if (node.agentState === 'Failed') return `agent failed${node.agentMessage ? `: ${node.agentMessage}` : ''}`;
  const wanted = node.desiredRevision ?? node.currentRevision;
  if (node.currentRevision !== wanted) return `applying ${wanted}`;
  if (rebootPending(node)) return `rebooting (requested ${node.rebootRequested})`;
  if (!SETTLED_STATES.has(node.agentState ?? '')) return `agent ${node.agentState ?? 'not reporting'}`;
  if (!node.configReady) return 'NodeConfigReady is not True';
  if (!node.podsReady) return 'health-gate pods not Ready';
  if (node.kubeletWaiting !== undefined) return node.kubeletWaiting;
  return 'healthy';
}

/** The node's pre-stage of the target is done: told to, and the agent answered Downloaded. */
export function prestaged(node: NodeSnapshot, target: string): boolean {
  return (
    node.prestageRevision === target &&
    node.prestaged?.revision === target &&
    node.prestaged.outcome === 'Downloaded'
  );
}

/**
 * Why the node's pre-stage of the target failed, while the controller still asks for it (a failure
 * left from an ask that went, a pause say, is not news about this one); undefined otherwise.
 */
function prestageFailure(node: NodeSnapshot, input: RolloutInput): string | undefined {
  const T = input.target.name;
  if (input.prestage === undefined || node.prestageRevision !== T) return undefined;
  if (node.prestaged?.revision !== T || node.prestaged.outcome !== 'Failed') return undefined;
  return `download of ${T}'s packages failed before its turn (nothing was disrupted): ${node.prestaged.message ?? 'no reason given'}`;
}

export interface VerdictActions {
  bootstrap?: boolean;
  uncordon?: UncordonReason;
  abortDrain?: boolean;
  drain?: boolean;
  /** The OS asks this node for a reboot and the pool reboots such nodes: its start (or drain) ends in one. */
  reboot?: boolean;
  /** When the verdict may change by itself (soak end, deadline). */
  wakeAt?: number;
}

function verdict(
  node: NodeSnapshot,
  phase: NodePhase,
  touched: boolean,
  extra: Partial<NodeVerdict> = {},
): NodeVerdict {
  const available = extra.available ?? (phase === 'Pending' || phase === 'Updated');
  // A node skipped by its drain (onTimeout Skip) is unavailable but outside the budget: maxSkipped
  // bounds those, so the rollout goes on without it (at most maxUnavailable + maxSkipped unavailable).
  const counted = !available && phase !== 'Skipped' && phase !== 'Bootstrapping' && phase !== 'DrainSkipped';
  return { name: node.name, zone: node.zone, phase, available, counted, touched, ...extra };
}

function failed(node: NodeSnapshot, touched: boolean, reason: FailureReason, message: string): NodeVerdict {
  return verdict(node, 'Failed', touched, { failure: { reason, message }, detail: message });
}

/**
 * When a drain for the target times out under spec.drain.onTimeout Skip (ms), for a node draining
 * for it; undefined when Skip is not set or the node is not draining for the target.
 */
export function drainSkipAt(node: NodeSnapshot, input: RolloutInput): number | undefined {
  const skip = input.drainSkip;
  const started = node.updateStartedAt;
  if (!skip || node.drainingFor !== input.target.name || started === undefined) return undefined;
  return Math.max(started, node.deadlineFrom ?? started) + skip.timeoutSeconds * 1000;
}

/**
 * `skipped`: the node's drain timed out under onTimeout Skip and it is within maxSkipped (decide.ts
 * chooses which): it is skipped instead of waiting for the progress deadline.
 */
export function judgeNode(
  node: NodeSnapshot,
  input: RolloutInput,
  skipped = false,
): { verdict: NodeVerdict; actions: VerdictActions } {
  const { target, now, settings, episodeStart } = input;
  const T = target.name;
  const deadlineMs = settings.progressDeadlineSeconds * 1000;
  const soakMs = settings.minReadySeconds * 1000;
  const started = node.updateStartedAt;
  // Counted from when this controller first saw the update, if later: unobserved time (an outage of the
  // controller or of everything) is not blamed on the node.
  const deadline =
    started === undefined ? undefined : Math.max(started, node.deadlineFrom ?? started) + deadlineMs;
  const overdue = deadline !== undefined && now > deadline;
  const touched = episodeStart !== undefined && started !== undefined && started >= episodeStart;
  const healthy = isHealthy(node);
  const actions: VerdictActions = {};
  // A reboot round (policy Reboot): a node whose OS asks for a reboot is not done, even on the target,
  // until it rebooted; a request already handed out is followed like any update in flight.
  const wantsReboot = input.osReboots === true && node.rebootWanted === true && !rebootPending(node);
  if (wantsReboot) actions.reboot = true;

  // A drain for a revision that is no longer the target stops; the node is judged afresh below.
  // (A node already given that revision keeps its cordon until it has applied it.)
  let drainingFor = node.drainingFor;
  if (drainingFor !== undefined && drainingFor !== T) {
    actions.abortDrain = true;
    if (node.cordonedByUs && node.desiredRevision !== drainingFor) actions.uncordon = 'Aborted';
    drainingFor = undefined;
  }

  // A node that cannot take the target (its package manager is another) is not started on it: neither
  // counted nor failed, and shown with why (package-manager-fit.ts). Started already: judged below.
  // (A node still applying an older revision finishes it first.)
  const idle = node.desiredRevision === undefined || node.desiredRevision === node.currentRevision;
  if (node.refused !== undefined && idle && drainingFor !== T) {
    if (node.cordonedByUs && drainingFor === undefined) actions.uncordon = 'Idle';
    return { verdict: verdict(node, 'Skipped', touched, { detail: node.refused }), actions };
  }

  if (node.currentRevision === undefined && drainingFor === undefined) {
    if (node.desiredRevision !== T) actions.bootstrap = true;
    if (node.desiredRevision === T && node.agentState === 'Failed') {
      return {
        verdict: { ...failed(node, touched, 'AgentFailed', unhealthyDetail(node)), counted: false },
        actions,
      };
    }
    return { verdict: verdict(node, 'Bootstrapping', touched, { detail: 'first apply' }), actions };
  }

  // Drained for a reboot on the target that is no longer wanted (the OS stopped asking, the policy
  // changed): the drain stops; the node is judged on its target below.
  if (drainingFor === T && node.desiredRevision === T && !wantsReboot) {
    actions.abortDrain = true;
    drainingFor = undefined;
  }

  if (drainingFor === T && (node.desiredRevision !== T || wantsReboot)) {
    if (skipped) {
      // Cordoned, counted, still draining (a budget that frees up lets it finish); no deadline.
      actions.drain = true;
      const why = node.drainBlocked ? `: ${node.drainBlocked}` : '';
      return {
        verdict: verdict(node, 'DrainSkipped', touched, {
          detail: `skipped: drain did not finish within ${input.drainSkip?.timeoutSeconds}s (spec.drain.onTimeout Skip)${why}`,
        }),
        actions,
      };
    }
    if (overdue) {
      // The failure stays visible through draining-for; the cordon goes, as after any failure.
      if (node.cordonedByUs) actions.uncordon = 'Failed';
      const why = node.drainBlocked ? `: ${node.drainBlocked}` : '';
      return {
        verdict: failed(
          node,
          touched,
          'DrainTimeout',
          `drain did not finish within ${settings.progressDeadlineSeconds}s${why}`,
        ),
        actions,
      };
    }
    actions.drain = true;
    const skipAt = drainSkipAt(node, input);
    actions.wakeAt = skipAt !== undefined && skipAt > now ? Math.min(skipAt, deadline ?? skipAt) : deadline;
    return {
      verdict: verdict(node, 'Draining', touched, { detail: node.drainBlocked ?? 'draining' }),
      actions,
    };
  }

  // On the target, healthy (or down before its turn) and its OS asks for a reboot: it waits for its
  // turn like a node not on the target (below). A node still applying the target finishes first.
  const waitsForReboot = wantsReboot && (healthy || (!node.ready && !touched));
  if (node.desiredRevision === T && !waitsForReboot) {
    return judgeOnTarget(
      node,
      { now, settings, started, deadline, overdue, touched, healthy, soakMs },
      actions,
    );
  }

  // Not on the target.
  if (!node.ready && !touched) {
    if (node.cordonedByUs) actions.uncordon = 'Idle';
    return { verdict: verdict(node, 'Skipped', touched, { detail: 'NotReady before its turn' }), actions };
  }
  const inFlight =
    node.desiredRevision !== undefined &&
    node.agentState !== 'Failed' &&
    (node.desiredRevision !== node.currentRevision || WORKING_STATES.has(node.agentState ?? ''));
  if (inFlight && deadline !== undefined && !overdue) {
    actions.wakeAt = deadline;
    return {
      verdict: verdict(node, 'Busy', touched, { detail: `applying ${node.desiredRevision}` }),
      actions,
    };
  }
  if (node.cordonedByUs && !actions.uncordon) actions.uncordon = healthy ? 'Healthy' : 'Idle';
  const downloadFailure = prestageFailure(node, input);
  if (downloadFailure !== undefined) {
    // Told during this rollout, so the rollout's failure; nothing was disrupted, so it stays available.
    const failure = { reason: 'DownloadFailed' as const, message: downloadFailure };
    const touchedByAsk = episodeStart !== undefined;
    return {
      verdict: verdict(node, 'Failed', touchedByAsk, { available: true, failure, detail: downloadFailure }),
      actions,
    };
  }
  if (healthy && !node.cordoned)
    return {
      verdict: verdict(node, 'Pending', touched, wantsReboot ? { detail: 'waiting for a reboot' } : {}),
      actions,
    };
  return {
    verdict: verdict(node, 'Waiting', touched, {
      detail: node.cordoned && healthy ? 'cordoned' : unhealthyDetail(node),
    }),
    actions,
  };
}

interface OnTargetFacts {
  now: number;
  settings: RolloutInput['settings'];
  started: number | undefined;
  deadline: number | undefined;
  overdue: boolean;
  touched: boolean;
  healthy: boolean;
  soakMs: number;
}

/** A node given the target (and not waiting for a reboot): soaking, updated, failed or still updating. */
function judgeOnTarget(
  node: NodeSnapshot,
  facts: OnTargetFacts,
  actions: VerdictActions,
): { verdict: NodeVerdict; actions: VerdictActions } {
  const { now, settings, started, deadline, overdue, touched, healthy, soakMs } = facts;
  if (healthy) {
    if (node.cordonedByUs) {
      actions.uncordon = 'Healthy';
      return { verdict: verdict(node, 'Soaking', touched, { detail: 'uncordoning' }), actions };
    }
    const since = Math.max(
      node.healthySince ?? Number.NEGATIVE_INFINITY,
      started ?? Number.NEGATIVE_INFINITY,
    );
    if (touched && now < since + soakMs) {
      actions.wakeAt = since + soakMs;
      return { verdict: verdict(node, 'Soaking', touched, { detail: 'soaking' }), actions };
    }
    if (node.cordoned)
      return {
        verdict: verdict(node, 'Updated', touched, { available: false, detail: 'cordoned' }),
        actions,
      };
    return { verdict: verdict(node, 'Updated', touched), actions };
  }
  const detail = unhealthyDetail(node);
  if (node.agentState === 'Failed') {
    if (node.cordonedByUs) actions.uncordon = 'Failed';
    return { verdict: failed(node, touched, 'AgentFailed', detail), actions };
  }
  if (!touched) {
    if (node.cordonedByUs) actions.uncordon = 'Idle';
    return { verdict: verdict(node, node.ready ? 'Unhealthy' : 'Skipped', touched, { detail }), actions };
  }
  if (node.wasHealthy) {
    if (node.cordonedByUs) actions.uncordon = 'Failed';
    return {
      verdict: failed(node, touched, 'BecameUnhealthy', `became unhealthy after its update: ${detail}`),
      actions,
    };
  }
  if (overdue) {
    if (node.cordonedByUs) actions.uncordon = 'Failed';
    return {
      verdict: failed(
        node,
        touched,
        'ProgressDeadlineExceeded',
        `not healthy ${settings.progressDeadlineSeconds}s after its update started: ${detail}`,
      ),
      actions,
    };
  }
  actions.wakeAt = deadline;
  return { verdict: verdict(node, 'Updating', touched, { detail }), actions };
}

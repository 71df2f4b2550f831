// The rollout decision: given the pool's settings, its target revision and a snapshot of every node,
// what to do now. Pure and deterministic (same input, same decision), so every rule is table-tested
// and a restarted controller decides exactly what the previous one would have.
//
// Rules (issue 5; docs/controller.md explains them):
// - maxUnavailable (int or % of the pool, rounded down, at least 1) bounds the nodes unavailable for ANY
//   reason: NotReady, cordoned, draining, applying, soaking, failed. Nodes that were NotReady before their
//   turn are skipped (neither counted nor blocking) and updated once Ready again; nodes that joined the
//   pool and never applied anything get the target at once and are not counted either.
// - Optional maxUnavailablePerZone applies the same count per zone.
// - Nodes start in a fixed order (zones interleaved, names within a zone); nodes that are already
//   unavailable start first, because updating them costs no budget.
// - A canary batch (canary.nodes) must be updated and soaked before anything else starts.
// - A node is done when Ready, its agent reports Done on the target, NodeConfigReady is True and the
//   health gate's pods are Ready, and it has stayed so for minReadySeconds.
// - A node fails when its agent reports Failed, when it is not healthy progressDeadlineSeconds after
//   its update started, or when it turns unhealthy after having been healthy on the target. More than
//   failurePolicy.maxFailures failures during a rollout pause it, or roll the pool back to the last
//   revision that completed.
// - spec.paused, an open failure, or a closed maintenance window: no node starts; nodes in flight finish.
// - A health gate that holds (src/controller/gates) starts no node either; one that fails (a metric or
//   alert gate) once a node was touched trips the failure policy.

import { plural } from '../plural.ts';
import { resolveIntOrPercent } from './int-or-percent.ts';
import { formatWallClock, maintenanceWindowStatus } from './maintenance-windows.ts';
import { drainSkipAt, judgeNode, prestaged, type VerdictActions } from './node-verdict.ts';
import { nextInLine, orderedNodes } from './rollout-order.ts';
import type {
  BlockReason,
  FailureAction,
  GateVerdict,
  NodeSnapshot,
  NodeStart,
  NodeVerdict,
  RolloutDecision,
  RolloutInput,
} from './types.ts';

const PHASES_ON_TARGET = new Set(['Draining', 'Updating', 'Soaking', 'Updated', 'Failed']);

export function failureActionFor(input: RolloutInput, failures: NodeVerdict[]): FailureAction | undefined {
  const { maxFailures } = input.settings.failurePolicy;
  if (input.paused || input.episodeStart === undefined || failures.length <= maxFailures) return undefined;
  const shown = failures.slice(0, 5).map((f) => `${f.name} (${f.failure?.message ?? f.phase})`);
  const more = failures.length > shown.length ? ` and ${failures.length - shown.length} more` : '';
  return policyAction(
    input,
    `${failures.length} node${failures.length === 1 ? '' : 's'} failed revision ${input.target.name} (maxFailures ${maxFailures}): ${shown.join('; ')}${more}`,
  );
}

/**
 * A failing health gate (metric or alert) once the rollout has touched a node: a failure for the policy
 * whatever maxFailures says (it counts nodes). Before any node was touched there is nothing to blame.
 */
function gateFailureActionFor(
  input: RolloutInput,
  verdicts: readonly NodeVerdict[],
): FailureAction | undefined {
  if (input.gate?.verdict !== 'fail' || input.paused || input.episodeStart === undefined) return undefined;
  if (!verdicts.some((v) => v.touched)) return undefined;
  return policyAction(
    input,
    `health gate failed during ${input.target.name} (${input.gate.reason}): ${input.gate.message}`,
  );
}

/**
 * A reboot round: the pool reboots the nodes its OS asks to reboot (policy Reboot) with no new
 * revision to roll out (the target is the last completed revision). docs/controller.md, "Reboot rounds".
 */
export function isRebootRound(
  input: Pick<RolloutInput, 'osReboots' | 'lastComplete' | 'target' | 'nodes'>,
): boolean {
  const T = input.target.name;
  // A rollback to the last completed revision is no round: its nodes were given another revision.
  return (
    input.osReboots === true &&
    input.lastComplete?.name === T &&
    input.nodes.every((n) => n.desiredRevision === undefined || n.desiredRevision === T)
  );
}

function policyAction(input: RolloutInput, what: string): FailureAction {
  // A reboot is not undone by rolling back: a failed reboot round pauses whatever the policy says.
  if (isRebootRound(input))
    return { action: 'Pause', message: `${what}; a reboot cannot be rolled back, so the rollout pauses` };
  if (input.settings.failurePolicy.action === 'Rollback') {
    const to = input.lastComplete;
    if (to && to.name !== input.target.name) {
      return { action: 'Rollback', to, message: `${what}; rolling back to ${to.name}` };
    }
    return {
      action: 'Pause',
      message: `${what}; no earlier revision completed to roll back to, so the rollout pauses`,
    };
  }
  return { action: 'Pause', message: what };
}

/**
 * Touched failures trip the policy (failures of untouched nodes are reported but are not this
 * rollout's), and so does a failing gate once a node was touched.
 */
function policyVerdict(
  input: RolloutInput,
  failures: readonly NodeVerdict[],
  verdicts: readonly NodeVerdict[],
): FailureAction | undefined {
  return (
    failureActionFor(
      input,
      failures.filter((f) => f.touched),
    ) ?? gateFailureActionFor(input, verdicts)
  );
}

/** A node of the input (the last of its name) with its verdict. */
interface Judged {
  name: string;
  zone: string;
  node: NodeSnapshot;
  verdict: NodeVerdict;
  actions: VerdictActions;
}

/**
 * Sets `decision.complete`, and returns when a NotReady node's wait ends (or +Infinity). A NotReady
 * node holds the rollout's completion back until it has been down (or, new, has not come up) for
 * progressDeadlineSeconds: a restart or a flap is waited for, a dead node is not.
 */
function completeAndWake(decision: RolloutDecision, input: RolloutInput, judged: readonly Judged[]): number {
  const { settings, now } = input;
  const downLongEnough = ({ verdict: v, node }: Judged) => {
    const since = node.readyChangedAt ?? (v.phase === 'Bootstrapping' ? node.createdAt : undefined);
    return !node.ready && (since === undefined || now > since + settings.progressDeadlineSeconds * 1000);
  };
  // A health gate that holds or fails keeps a rollout that touched nodes open: its last soak has not
  // passed the gate. (Bootstrapped nodes are no batch: the gate does not keep them from completing.)
  decision.complete =
    !(input.gate !== undefined && decision.verdicts.some((v) => v.touched)) &&
    decision.bootstrap.length === 0 &&
    decision.starts.length === 0 &&
    decision.uncordon.length === 0 &&
    decision.abortDrain.length === 0 &&
    judged.every(
      (j) =>
        j.verdict.phase === 'Updated' ||
        j.verdict.phase === 'Unhealthy' ||
        ((j.verdict.phase === 'Skipped' || j.verdict.phase === 'Bootstrapping') && downLongEnough(j)),
    );
  let wakeAt = Number.POSITIVE_INFINITY;
  for (const j of judged) {
    const { verdict: v, node } = j;
    if ((v.phase === 'Skipped' || v.phase === 'Bootstrapping') && !node.ready && !downLongEnough(j)) {
      const since = node.readyChangedAt ?? node.createdAt;
      if (since !== undefined) wakeAt = Math.min(wakeAt, since + settings.progressDeadlineSeconds * 1000 + 1);
    }
  }
  return wakeAt;
}

interface StartChoice {
  free: readonly Judged[];
  paid: readonly Judged[];
  canaryRoom: number;
  canarySize: number;
  maxUnavailable: number;
  zoneMax: ReadonlyMap<string, number>;
  /** Counted nodes per zone; the chosen starts are added. */
  zoneCounted: Map<string, number>;
  unavailable: number;
  input: RolloutInput;
}

/**
 * The nodes to start now, in order: free ones (already unavailable) first, then those the budgets
 * (overall, per zone) and the canary leave room for.
 */
function chooseStarts(c: StartChoice): {
  starts: NodeStart[];
  /** Nodes whose turn it is but whose pre-stage has not succeeded yet: their places are kept, unstarted. */
  awaiting: string[];
  unavailable: number;
  blocked?: { reason: BlockReason; message: string };
  budgetBlocked: boolean;
  zoneBlocked: boolean;
} {
  const starts: NodeStart[] = [];
  const awaiting: string[] = [];
  let { unavailable } = c;
  // The places kept for nodes still downloading: counted while choosing, not as unavailable.
  let kept = 0;
  let zoneBlocked = false;
  let budgetBlocked = false;
  for (const { verdict: v, node, actions } of [...c.free, ...c.paid]) {
    if (starts.length + awaiting.length >= c.canaryRoom) {
      const size = plural(c.canarySize, 'node');
      return {
        starts,
        awaiting,
        unavailable,
        blocked: {
          reason: 'WaitingForCanary',
          message: `waiting for the canary (${size}) to be updated and soaked`,
        },
        budgetBlocked,
        zoneBlocked,
      };
    }
    const cost = v.phase === 'Waiting' ? 0 : 1;
    if (cost > 0 && unavailable + kept + cost > c.maxUnavailable) {
      budgetBlocked = true;
      continue;
    }
    const zoneLimit = c.zoneMax.get(v.zone);
    const zoneUsed = c.zoneCounted.get(v.zone) ?? 0;
    if (cost > 0 && zoneLimit !== undefined && zoneUsed + cost > zoneLimit) {
      zoneBlocked = true;
      continue;
    }
    // Pre-staging: an available node whose plan installs packages starts once they are downloaded, so
    // its disruptive part holds only install and restart (an unavailable one costs nothing to start),
    // or once its ask went unanswered for spec.prestage.timeoutSeconds: it downloads inside its turn.
    const timedOut = prestageTimedOut(node, c.input);
    if (
      cost > 0 &&
      c.input.prestage &&
      node.needsDownload &&
      !prestaged(node, c.input.target.name) &&
      !timedOut
    ) {
      awaiting.push(v.name);
      kept += cost;
      continue;
    }
    unavailable += cost;
    c.zoneCounted.set(v.zone, zoneUsed + cost);
    starts.push({
      node: v.name,
      revision: c.input.target.name,
      // A reboot drains the node first, whatever the revision's plan says.
      drain: node.needsDrain || actions.reboot === true,
      free: cost === 0,
      ...(actions.reboot ? { reboot: true } : {}),
      ...(timedOut && cost > 0 && node.needsDownload ? { prestageTimedOut: timedOut } : {}),
    });
  }
  return { starts, awaiting, unavailable, budgetBlocked, zoneBlocked };
}

/**
 * The node's ask to pre-stage the target went unanswered for spec.prestage.timeoutSeconds (an agent
 * too old to know pre-staging, or hung): when it was asked and the bound; undefined otherwise (no ask
 * for the target, no time for it, any answer for the target, or still within the bound). An answer
 * Failed is judged by node-verdict.ts whatever the time.
 */
export function prestageTimedOut(
  node: NodeSnapshot,
  input: Pick<RolloutInput, 'prestage' | 'target' | 'now'>,
): { askedAt: number; timeoutSeconds: number } | undefined {
  const p = input.prestage;
  const askedAt = node.prestageAskedAt;
  if (!p || askedAt === undefined || node.prestageRevision !== input.target.name) return undefined;
  if (node.prestaged?.revision === input.target.name) return undefined;
  return input.now >= askedAt + p.timeoutSeconds * 1000
    ? { askedAt, timeoutSeconds: p.timeoutSeconds }
    : undefined;
}

/** When the first of the awaiting nodes' asks times out (+Infinity when none can: no time for it yet). */
function prestageWake(
  input: RolloutInput,
  judged: ReadonlyMap<string, Judged>,
  awaiting: readonly string[],
): number {
  let at = Number.POSITIVE_INFINITY;
  const p = input.prestage;
  if (!p) return at;
  for (const name of awaiting) {
    const node = judged.get(name)?.node;
    if (node?.prestageAskedAt === undefined || node.prestageRevision !== input.target.name) continue;
    at = Math.min(at, node.prestageAskedAt + p.timeoutSeconds * 1000);
  }
  return at;
}

/** Why the batch chosen leaves candidates unstarted, if it does. */
function batchBlock(
  chosen: ReturnType<typeof chooseStarts>,
  candidates: number,
  maxUnavailable: number,
  input: RolloutInput,
): { reason: BlockReason; message: string } | undefined {
  if (chosen.blocked) return chosen.blocked;
  if (chosen.awaiting.length > 0)
    return {
      reason: 'Prestaging',
      message: `waiting for ${chosen.awaiting.join(', ')} to download ${input.target.name}'s packages (pre-staging) before ${chosen.awaiting.length === 1 ? 'its' : 'their'} turn; a node that does not answer within ${input.prestage?.timeoutSeconds ?? '?'}s of its ask (spec.prestage.timeoutSeconds) starts anyway`,
    };
  if (chosen.starts.length >= candidates) return undefined;
  if (chosen.budgetBlocked)
    return {
      reason: 'BudgetExhausted',
      message: `${chosen.unavailable} of at most ${plural(maxUnavailable, 'node')} unavailable`,
    };
  if (chosen.zoneBlocked)
    return {
      reason: 'ZoneBudgetExhausted',
      message: `every zone with waiting nodes has reached maxUnavailablePerZone (${String(input.settings.maxUnavailablePerZone)})`,
    };
  return undefined;
}

/**
 * The nodes to carry nodeherd.io/prestage-revision: those whose turn it is and that still download
 * (`awaiting`), those whose download failed (the failure stays judged while the ask stays), and the
 * next in line that need a download — as many as have answered, plus as many still downloading as
 * maxConcurrent allows, looking no further ahead than the budget plus maxConcurrent (during the canary,
 * than the canary's room). None while paused or when the failure policy acts: the asks go.
 */
function prestageSet(
  input: RolloutInput,
  inOrder: readonly Judged[],
  awaiting: readonly string[],
  lookahead: number,
): string[] {
  if (!input.prestage || input.paused) return [];
  const T = input.target.name;
  const set = new Set(awaiting);
  let downloading = awaiting.length;
  let seen = 0;
  for (const { verdict: v, node } of inOrder) {
    if (v.failure?.reason === 'DownloadFailed') {
      set.add(v.name);
      continue;
    }
    if ((v.phase !== 'Pending' && v.phase !== 'Waiting') || !node.needsDownload) continue;
    if (seen >= lookahead) continue;
    seen += 1;
    if (set.has(v.name)) continue; // its turn: asked already, and counted
    if (prestaged(node, T)) set.add(v.name);
    else if (downloading < input.prestage.maxConcurrent) {
      set.add(v.name);
      downloading += 1;
    }
  }
  return inOrder.filter((j) => set.has(j.name)).map((j) => j.name);
}

/** Every node judged (by name: a name given twice is judged as its last node, in the place of its first). */
function judgeNodes(input: RolloutInput): { judged: Map<string, Judged>; inOrder: Judged[] } {
  const judged = new Map<string, Judged>();
  const skipped = skippedDrains(input);
  for (const node of input.nodes) {
    const { verdict, actions } = judgeNode(node, input, skipped.has(node.name));
    judged.set(node.name, { name: node.name, zone: node.zone, node, verdict, actions });
  }
  // The verdict's name and zone are its node's: the same order as of the verdicts.
  return { judged, inOrder: orderedNodes([...judged.values()], input.order) };
}

/**
 * The nodes skipped under spec.drain.onTimeout Skip: those draining for the target past the timeout,
 * the earliest timed out first (then by name), at most maxSkipped. A skipped node keeps its place
 * while it drains, so a later timeout beyond the bound waits for the deadline and fails as with Fail.
 */
function skippedDrains(input: RolloutInput): Set<string> {
  const skip = input.drainSkip;
  if (!skip) return new Set();
  const timedOut: { name: string; at: number }[] = [];
  for (const node of input.nodes) {
    const at = drainSkipAt(node, input);
    if (at === undefined || input.now < at) continue;
    // Only a node still cordoned for its drain: one that failed (beyond the bound) was uncordoned.
    if (!node.cordoned || (node.desiredRevision === input.target.name && node.rebootWanted !== true))
      continue;
    timedOut.push({ name: node.name, at });
  }
  timedOut.sort((a, b) => a.at - b.at || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return new Set(timedOut.slice(0, skip.maxSkipped).map((t) => t.name));
}

/** What the failure policy makes of the nodes' verdicts, before any decision is made from them. */
export interface RolloutJudgement {
  /** In rollout order. */
  verdicts: NodeVerdict[];
  /** The failed nodes, touched by this rollout or not (only touched ones count for the policy). */
  failures: NodeVerdict[];
  failureAction?: FailureAction;
}

/** The nodes judged, and the failure policy's verdict on them: decideRollout's own, without starting anything. */
export function judgeRollout(input: RolloutInput): RolloutJudgement {
  const verdicts = judgeNodes(input).inOrder.map((j) => j.verdict);
  const failures = verdicts.filter((v) => v.phase === 'Failed');
  const failureAction = policyVerdict(input, failures, verdicts);
  return { verdicts, failures, ...(failureAction ? { failureAction } : {}) };
}

/**
 * The batch as the budgets and the canary leave it (chooseStarts), unless a gate that looks at the
 * batch itself holds it (RolloutInput.holdsBatch): then nothing starts and the zone counts stay.
 */
function chooseBatch(c: StartChoice): { chosen?: ReturnType<typeof chooseStarts>; held?: GateVerdict } {
  const counted = new Map(c.zoneCounted);
  const chosen = chooseStarts({ ...c, zoneCounted: counted });
  const held = chosen.starts.length > 0 ? c.input.holdsBatch?.(chosen.starts.map((s) => s.node)) : undefined;
  if (held) return { held };
  for (const [zone, count] of counted) c.zoneCounted.set(zone, count);
  return { chosen };
}

/** Why the next batch carries no taint now: the rollout stopped or goes backwards. */
const UNTAINTED_WHEN: ReadonlySet<BlockReason> = new Set([
  'Paused',
  'FailurePolicy',
  'OutsideMaintenanceWindow',
]);

/**
 * The next batch in line (spec.rolloutOrder.preferNoScheduleNext): while a batch drains, the first
 * maxUnavailable of the nodes still waiting, after this decision's starts, in the pool's order. None
 * while the rollout is paused, stopped by the failure policy or outside its windows, and none in a
 * rollback (the target is not newer than the last completed revision, and this is no reboot round):
 * the taint goes then, as it goes from a node whose turn came. Recomputed at every decision, so a
 * replanned rollout (a new target, another order) moves it.
 */
function nextBatch(
  input: RolloutInput,
  decision: RolloutDecision,
  candidates: readonly Judged[],
  size: number,
): string[] {
  if (input.paused || decision.failureAction) return [];
  if (decision.blocked && UNTAINTED_WHEN.has(decision.blocked.reason)) return [];
  const last = input.lastComplete;
  if (last && input.target.number <= last.number && !isRebootRound(input)) return [];
  const draining =
    decision.starts.some((s) => s.drain) ||
    decision.verdicts.some((v) => v.phase === 'Draining' || v.phase === 'DrainSkipped');
  if (!draining) return [];
  const started = new Set(decision.starts.map((s) => s.node));
  const waiting = new Set(candidates.filter((j) => !started.has(j.name)).map((j) => j.name));
  return nextInLine(candidates, (j) => waiting.has(j.name), size, input.order).map((j) => j.name);
}

export function decideRollout(input: RolloutInput): RolloutDecision {
  const { settings, now } = input;
  const window = maintenanceWindowStatus(settings.maintenanceWindows, now);
  const { judged, inOrder } = judgeNodes(input);
  const ordered = inOrder.map((j) => j.verdict);

  const decision: RolloutDecision = {
    verdicts: ordered,
    bootstrap: [],
    starts: [],
    uncordon: [],
    abortDrain: [],
    drain: [],
    rebootAfterDrain: [],
    prestage: [],
    failures: [],
    complete: false,
    budget: { maxUnavailable: 0, unavailable: 0, zones: {} },
    window,
  };
  let wakeAt = Number.POSITIVE_INFINITY;
  for (const { verdict: v, actions } of inOrder) {
    if (actions.bootstrap) decision.bootstrap.push(v.name);
    if (actions.uncordon) decision.uncordon.push({ node: v.name, reason: actions.uncordon });
    if (actions.abortDrain) decision.abortDrain.push(v.name);
    if (actions.drain) decision.drain.push(v.name);
    if (actions.drain && actions.reboot) decision.rebootAfterDrain.push(v.name);
    if (actions.wakeAt !== undefined) wakeAt = Math.min(wakeAt, actions.wakeAt);
    if (v.phase === 'Failed') decision.failures.push(v);
  }

  // Budgets: overall and per zone, over every node of the pool.
  const total = ordered.length;
  const maxUnavailable = resolveIntOrPercent(settings.maxUnavailable, total, 'down');
  let unavailable = ordered.filter((v) => v.counted).length;
  const zoneSizes = new Map<string, number>();
  const zoneCounted = new Map<string, number>();
  for (const v of ordered) {
    zoneSizes.set(v.zone, (zoneSizes.get(v.zone) ?? 0) + 1);
    if (v.counted) zoneCounted.set(v.zone, (zoneCounted.get(v.zone) ?? 0) + 1);
  }
  const zoneMax = new Map<string, number>();
  if (settings.maxUnavailablePerZone !== undefined) {
    for (const [zone, size] of zoneSizes) {
      zoneMax.set(zone, resolveIntOrPercent(settings.maxUnavailablePerZone, size, 'down'));
    }
  }

  // Canary: until canary.nodes nodes are updated and soaked, no more than that many get the target.
  // In a reboot round the canary is the round's first nodes: only nodes of this round (touched, or
  // waiting for their reboot) count, since every other node is on the target already.
  let canaryRoom = Number.POSITIVE_INFINITY;
  if (settings.canary) {
    const round = isRebootRound(input);
    const ofRound = (j: Judged) => !round || j.verdict.touched || j.actions.reboot === true;
    const eligible = round ? inOrder.filter(ofRound).length : total;
    const size = Math.min(eligible, resolveIntOrPercent(settings.canary.nodes, total, 'up'));
    const inRound = inOrder.filter(ofRound).map((j) => j.verdict);
    const passed = inRound.filter((v) => v.phase === 'Updated').length >= size;
    decision.budget.canary = { size, passed };
    if (!passed) {
      const given = inRound.filter((v) => PHASES_ON_TARGET.has(v.phase) && (!round || v.touched)).length;
      canaryRoom = Math.max(0, size - given);
    }
  }

  const failureAction = policyVerdict(input, decision.failures, ordered);
  if (failureAction) decision.failureAction = failureAction;

  const uncordoning = new Set(decision.uncordon.map((u) => u.node));
  const candidates = inOrder.filter(
    ({ verdict: v }) => (v.phase === 'Waiting' || v.phase === 'Pending') && !uncordoning.has(v.name),
  );
  const free = candidates.filter((j) => j.verdict.phase === 'Waiting');
  const paid = candidates.filter((j) => j.verdict.phase === 'Pending');

  let blocked: BlockReason | undefined;
  let blockMessage = '';
  if (candidates.length > 0) {
    if (failureAction) {
      blocked = 'FailurePolicy';
      blockMessage = failureAction.message;
    } else if (input.paused) {
      blocked = 'Paused';
      blockMessage = 'the pool is paused (spec.paused)';
    } else if (!window.open) {
      blocked = 'OutsideMaintenanceWindow';
      blockMessage = window.error
        ? `the maintenance windows cannot be read, so no node starts: ${window.error}`
        : `outside every maintenance window${window.opensAt !== undefined ? `; the next opens at ${new Date(window.opensAt).toISOString()}${window.nextOpeningZone && window.nextOpeningZone !== 'UTC' ? ` (${formatWallClock(window.nextOpeningZone, window.opensAt)})` : ''}` : '; none opens again'}`;
    } else if (input.gate) {
      blocked = 'HealthGate';
      blockMessage = `health gate ${input.gate.verdict === 'fail' ? 'fails' : 'holds'} (${input.gate.reason}): ${input.gate.message}`;
    }
  }

  const batch = blocked
    ? {}
    : chooseBatch({
        free,
        paid,
        canaryRoom,
        canarySize: decision.budget.canary?.size ?? 0,
        maxUnavailable,
        zoneMax,
        zoneCounted,
        unavailable,
        input,
      });
  if (batch.held) {
    decision.batchHeld = batch.held;
    blocked = 'HealthGate';
    blockMessage = `health gate holds (${batch.held.reason}): ${batch.held.message}`;
  }
  const chosen = batch.chosen;
  if (chosen) {
    decision.starts = chosen.starts;
    unavailable = chosen.unavailable;
    // The verdicts describe the pool after this decision: a started node is in flight.
    for (const start of chosen.starts) {
      const v = judged.get(start.node)!.verdict;
      Object.assign(v, {
        phase: start.drain ? 'Draining' : 'Updating',
        available: false,
        counted: true,
        touched: true,
      });
    }
    const why = batchBlock(chosen, candidates.length, maxUnavailable, input);
    if (why) {
      blocked = why.reason;
      blockMessage = why.message;
    }
  }
  if (blocked) decision.blocked = { reason: blocked, message: blockMessage };
  if (input.prestage && !failureAction) {
    const room = Number.isFinite(canaryRoom) ? canaryRoom : maxUnavailable + input.prestage.maxConcurrent;
    decision.prestage = prestageSet(input, inOrder, chosen?.awaiting ?? [], room);
    // A node kept for its download starts when its ask times out: the pool is looked at again then.
    wakeAt = Math.min(wakeAt, prestageWake(input, judged, chosen?.awaiting ?? []));
  }

  decision.budget.maxUnavailable = maxUnavailable;
  decision.budget.unavailable = unavailable;
  for (const [zone, size] of zoneSizes) {
    decision.budget.zones[zone] = {
      max: zoneMax.get(zone) ?? size,
      unavailable: zoneCounted.get(zone) ?? 0,
    };
  }

  if (input.taintNext) decision.taintNext = nextBatch(input, decision, candidates, maxUnavailable);
  wakeAt = Math.min(wakeAt, completeAndWake(decision, input, inOrder));
  // Windows wake the pool when one opens or closes, nodes waiting or not: status shows the next opening.
  if (window.nextOpening !== undefined) wakeAt = Math.min(wakeAt, window.nextOpening);
  if (window.open && window.closesAt !== undefined) wakeAt = Math.min(wakeAt, window.closesAt);
  if (Number.isFinite(wakeAt)) decision.requeueAfterMs = Math.max(0, wakeAt - now);
  return decision;
}

// What applying NodeConfigs would do to one pool, without writing anything: the revision the pool
// would render, and for every node in rollout order its batch (or slot, or start offset) and the plan
// from its current revision, computed by the one plan() the agent executes. Pure: the command reads
// the objects, this decides, the renderer prints.

import { revisionName } from '../../api/hash.ts';
import { CURRENT_REVISION_ANNOTATION } from '../../api/node-protocol.ts';
import { prestageProgress, waitingOsReboot } from '../../api/node-report.ts';
import { defaultedPoolSpec } from '../../api/pool-defaults.ts';
import { DEFAULT_PRESTAGE_TIMEOUT_SECONDS } from '../../api/prestage-schema.ts';
import { renderConfigs, type SecretLookup, selectConfigs } from '../../api/render.ts';
import type {
  LabelSelector,
  NodeConfig,
  NodeConfigPool,
  NodeConfigRevision,
  RenderedConfig,
} from '../../api/types.ts';
import { failurePolicyPause, readPin } from '../../controller/pools/pool-state.ts';
import { resolveIntOrPercent } from '../../controller/rollout/int-or-percent.ts';
import { type NodeOrder, orderedNodes } from '../../controller/rollout/rollout-order.ts';
import { strategyDescription } from '../../controller/strategies/descriptions.ts';
import { poolOrder, type RolloutOrderSpec } from '../../controller/strategies/pool-order.ts';
import type {
  PlannedBatch,
  PlannedNode,
  PlannedStep,
  RolloutPlanInput,
  StrategyDescription,
} from '../../controller/strategies/strategy-description.ts';
import type { Node, Pod } from '../../kube/types.ts';
import { plan } from '../../plan/plan.ts';
import type { Changes, Disruption } from '../../plan/types.ts';
import { invokedCommand } from '../../util/invoked-command.ts';
import { type EtaResult, estimateBatches, estimateOffsets } from '../rollout-eta.ts';
import type { PoolChange } from './pool-change.ts';

export type NodeAction = 'none' | 'reload' | 'restart' | 'drain' | 'reboot';

const ACTIONS: Record<Disruption, NodeAction> = {
  None: 'none',
  Reload: 'reload',
  Restart: 'restart',
  Drain: 'drain',
  Reboot: 'reboot',
};

export interface ConfigChange {
  name: string;
  /** added / replaced: part of the new revision; removed: the pool selected it, its new labels do not. */
  change: 'added' | 'replaced' | 'removed' | 'not selected';
}

/** The plan from one current revision to the new one (shared by every node on that revision). */
export interface ChangeGroup {
  /** Current revision name; undefined for nodes that never applied one. */
  from?: string;
  fromNumber?: number;
  /** The current revision is unknown (pruned): planned as a fresh install. */
  fromMissing: boolean;
  nodes: number;
  action: NodeAction;
  summary: string;
  changes: Changes;
  notes: string[];
}

export interface NodeStep extends PlannedStep {
  zone: string;
  from?: string;
  action: NodeAction;
  /** Told to pre-stage the new revision (spec.prestage): how far its download got. */
  prestage?: 'downloading' | 'pre-staged' | 'download failed';
}

export type Batch = PlannedBatch;

export interface PoolPlan {
  pool: string;
  strategy: string;
  paused: boolean;
  configChanges: ConfigChange[];
  /** The NodeConfigs merged into the new revision, in merge order. */
  sources: string[];
  problems: string[];
  warnings: string[];
  target?: { name: string; number?: number };
  revision?: { name: string; number: number; existing: boolean };
  /** The new revision is the target already: nothing changes. */
  unchanged: boolean;
  groups: ChangeGroup[];
  nodes: NodeStep[];
  batches: Batch[];
  /** What the strategy does with the new revision, in words. */
  strategyNotes: string[];
  /**
   * A rollback pinned the pool to `to` while its NodeConfigs render `from`: the new revision is `from`,
   * which the pin holds back, so no node changes (another configuration ends the pin).
   */
  heldByPin?: { to: string; toNumber?: number; from: string; fromNumber?: number };
  /** The pool is in the file: its spec fields and members that change. */
  poolChange?: PoolChange;
  /** How long the rollout would take from now (rollout-eta.ts); absent when nothing rolls out. */
  eta?: EtaResult;
  /**
   * The pool's strategy changes and no node moves now: how its next rollout would go under the new
   * strategy (every member, a restart assumed).
   */
  nextRollout?: { batches: number; notes: string[]; eta?: EtaResult };
  /** The pool is pinned by a rollback, and the new revision (another than the one held back) ends it. */
  endsPin?: { to: string; from: string };
}

export interface PoolPlanInput {
  pool: NodeConfigPool;
  /** Every NodeConfig on the server. */
  configs: readonly NodeConfig[];
  /** The NodeConfigs of the file: added, or replacing those of the same name. */
  fileConfigs: readonly NodeConfig[];
  /** The pool's NodeConfigRevisions. */
  revisions: readonly NodeConfigRevision[];
  /** Other pools' revisions: a node a selector change brings from another pool plans from its config. */
  otherRevisions?: readonly NodeConfigRevision[];
  /** The pool's member Nodes. */
  nodes: readonly Node[];
  secrets?: SecretLookup;
  /** The pods bound to the members, for spec.rolloutOrder by: FewestPods (absent: none counted). */
  pods?: readonly Pod[];
  /** The time the plan is made at (ms): maintenance windows say whether one is open and when the next opens. */
  now?: number;
  /** The pool itself is in the file (`pool` is its version): what changes. */
  poolChange?: PoolChange;
}

function merged(configs: readonly NodeConfig[], fileConfigs: readonly NodeConfig[]): NodeConfig[] {
  const byName = new Map(configs.map((c) => [c.metadata.name, c]));
  for (const c of fileConfigs) byName.set(c.metadata.name, c);
  return [...byName.values()];
}

/** The pool's order (spec.rolloutOrder) over its members, as the controller reads it. */
function planOrder(spec: ReturnType<typeof defaultedPoolSpec>, input: PoolPlanInput): NodeOrder | undefined {
  const podsByNode = new Map<string, Pod[]>();
  for (const pod of input.pods ?? []) {
    const node = pod.spec?.nodeName;
    if (node) podsByNode.set(node, [...(podsByNode.get(node) ?? []), pod]);
  }
  return poolOrder(
    spec.rolloutOrder,
    input.nodes,
    (node) => podsByNode.get(node) ?? [],
    spec.drain?.skipPodSelector as LabelSelector | undefined,
  );
}

/** The order the nodes go in (the table lists them in it), in words. */
function orderNote(order: Partial<RolloutOrderSpec> | undefined): string {
  const by = order?.by ?? 'Interleaved';
  const what =
    by === 'Zone'
      ? 'zone after zone (zones and nodes by name)'
      : by === 'Label'
        ? `by the value of node label ${order?.label} (numbers as numbers; nodes without it last)`
        : by === 'FewestPods'
          ? 'the nodes with the fewest pods a drain would evict first (as counted now; the controller recounts at every step)'
          : 'zones interleaved, node names within a zone';
  const taint = order?.preferNoScheduleNext
    ? '; while a batch drains, the next batch is tainted nodeherd.io/next-in-line:PreferNoSchedule'
    : '';
  return `order: ${what}${taint}`;
}

/** The node is told to pre-stage this revision: how far it got (undefined when it is not told to). */
function prestageOf(node: Node, revision: string): NodeStep['prestage'] {
  const progress = prestageProgress(node);
  if (progress?.revision !== revision) return undefined;
  return PRESTAGE_WORDS[progress.state];
}

const PRESTAGE_WORDS = {
  downloading: 'downloading',
  downloaded: 'pre-staged',
  failed: 'download failed',
} as const satisfies Record<string, NodeStep['prestage']>;

function prestageNote(prestage: { maxConcurrent: number; timeoutSeconds?: number }): string {
  const bound = prestage.timeoutSeconds ?? DEFAULT_PRESTAGE_TIMEOUT_SECONDS;
  return `pre-staging: the next in line download the revision's packages before their turn (at most ${prestage.maxConcurrent} at once); a node starts once its download succeeded, or unanswered after ${bound}s (downloading in its turn), and a failed download fails it before any drain`;
}

/** What the file does to each NodeConfig it names, for this pool: added, replaced, removed or not selected. */
function configChangesOf(
  input: PoolPlanInput,
  selected: readonly { metadata: { name: string } }[],
): ConfigChange[] {
  const before = new Set(selectConfigs(input.pool, input.configs).map((c) => c.metadata.name));
  const after = new Set(selected.map((c) => c.metadata.name));
  return input.fileConfigs.map((c) => ({
    name: c.metadata.name,
    change: after.has(c.metadata.name)
      ? before.has(c.metadata.name)
        ? 'replaced'
        : 'added'
      : before.has(c.metadata.name)
        ? 'removed'
        : 'not selected',
  }));
}

/**
 * As the controller chooses (rollout-target.ts): a rollback pin stays while the NodeConfigs render the
 * revision it holds back (the new revision is held); any other rendering ends it.
 */
function pinOutcome(
  pool: NodeConfigPool,
  newName: string,
  targetName: string | undefined,
  numbers: ReadonlyMap<string, number>,
): Pick<PoolPlan, 'heldByPin' | 'endsPin'> & { unchanged?: true } {
  const pin = readPin(pool);
  if (!pin || !numbers.has(pin.to)) return {};
  if (newName !== pin.from || pin.to !== targetName) return { endsPin: { to: pin.to, from: pin.from } };
  return {
    unchanged: true,
    heldByPin: {
      to: pin.to,
      toNumber: numbers.get(pin.to)!,
      from: pin.from,
      ...(numbers.has(pin.from) ? { fromNumber: numbers.get(pin.from)! } : {}),
    },
  };
}

/** A pool in a wave: whom it waits for. */
function waveNote(spec: ReturnType<typeof defaultedPoolSpec>): string | undefined {
  const wave = spec.updateStrategy.wave;
  if (!wave?.after.length) return undefined;
  return `starts only after ${wave.after.length === 1 ? 'pool' : 'pools'} ${wave.after.join(', ')} completed their current revision${wave.soakSeconds ? ` and soaked ${wave.soakSeconds}s` : ''}; a paused, failed or rolled-back one holds it`;
}

/** When the failure policy, not a person, paused the pool: what failed. */
function failurePauseNote(pool: NodeConfigPool): string | undefined {
  const paused = failurePolicyPause(pool);
  return paused ? `the failure policy paused it: ${paused.message ?? 'a node failed'}` : undefined;
}

/** One plan per current revision (a pool of a thousand nodes has a handful of them), made on demand. */
function changeGroups(
  configsByRevision: ReadonlyMap<string, RenderedConfig>,
  numbers: ReadonlyMap<string, number>,
  desired: { config: RenderedConfig },
): { groups: Map<string, ChangeGroup>; groupOf: (from: string | undefined) => ChangeGroup } {
  const groups = new Map<string, ChangeGroup>();
  const groupOf = (from: string | undefined): ChangeGroup => {
    const key = from ?? '';
    const known = groups.get(key);
    if (known) return known;
    const fromConfig = from ? configsByRevision.get(from) : undefined;
    const p = plan(fromConfig ? { config: fromConfig } : undefined, desired);
    const group: ChangeGroup = {
      ...(from ? { from } : {}),
      ...(from && numbers.has(from) ? { fromNumber: numbers.get(from)! } : {}),
      fromMissing: from !== undefined && fromConfig === undefined,
      nodes: 0,
      action: ACTIONS[p.disruption],
      summary: p.summary,
      changes: p.changes,
      notes: p.notes,
    };
    groups.set(key, group);
    return group;
  };
  return { groups, groupOf };
}

/** What the strategy plans from, whichever nodes move: the pool, its order and the new number. */
type FixedPlanInput = Omit<RolloutPlanInput, 'moving' | 'candidates'>;

/** The next rollout under a changed strategy: every member moving, each a restart. */
function nextRolloutUnder(
  fixed: FixedPlanInput,
  description: StrategyDescription,
  now: number,
): NonNullable<PoolPlan['nextRollout']> {
  const { pool, spec, ordered } = fixed;
  const candidates = ordered.filter(
    (n) =>
      description.setAside?.(n.node, n.node.metadata.annotations?.[CURRENT_REVISION_ANNOTATION]) ===
      undefined,
  );
  const moving: PlannedStep[] = candidates.map((n) => ({ name: n.name }));
  const planned = description.plan({ ...fixed, newNumber: fixed.newNumber + 1, now, moving, candidates });
  const steps: NodeStep[] = moving.map((m) => ({ ...m, zone: '', action: 'restart' }));
  const shape: PoolPlan = {
    pool: pool.metadata.name,
    strategy: spec.updateStrategy.type,
    paused: false,
    configChanges: [],
    sources: [],
    problems: [],
    warnings: [],
    unchanged: false,
    groups: [],
    nodes: steps,
    batches: planned.batches,
    strategyNotes: [],
  };
  return {
    batches: planned.batches.length,
    notes: planned.notes,
    eta: planEta(shape, spec, description, now),
  };
}

/** The plan's batches (or start offsets) added up: the rollout's ETA from `now`. */
function planEta(
  result: PoolPlan,
  spec: ReturnType<typeof defaultedPoolSpec>,
  description: StrategyDescription,
  now: number,
): EtaResult {
  if (description.updatesWhenAsked) return { none: 'nodes move when their owners take the update' };
  const actionOf = new Map(result.nodes.map((s) => [s.name, s.action]));
  if (description.column?.shows === 'offset') {
    const moving = result.nodes.filter((s) => s.offsetSeconds !== undefined && s.note === undefined);
    const canaryNodes = spec.updateStrategy.rollingUpdate?.canary?.nodes;
    const canary =
      canaryNodes === undefined ? [] : moving.slice(0, resolveIntOrPercent(canaryNodes, moving.length, 'up'));
    return estimateOffsets(
      moving.map((s) => ({ offsetSeconds: s.offsetSeconds!, action: s.action })),
      canary.map((s) => s.action),
      spec,
      now,
    );
  }
  return estimateBatches(
    result.batches.map((b) => ({ actions: b.nodes.map((n) => actionOf.get(n) ?? 'none') })),
    spec,
    now,
  );
}

export function planPool(input: PoolPlanInput): PoolPlan {
  const { pool } = input;
  const name = pool.metadata.name;
  const spec = defaultedPoolSpec(pool.spec);
  const strategy = spec.updateStrategy.type;
  const description = strategyDescription(strategy);
  const selected = selectConfigs(pool, merged(input.configs, input.fileConfigs));
  const configChanges = configChangesOf(input, selected);
  const numbers = new Map(input.revisions.map((r) => [r.metadata.name, r.spec.revision]));
  const configsByRevision = new Map<string, RenderedConfig>(
    [...(input.otherRevisions ?? []), ...input.revisions].map((r) => [r.metadata.name, r.spec.config]),
  );
  const targetName = pool.status?.targetRevision;
  const result: PoolPlan = {
    pool: name,
    strategy,
    paused: spec.paused,
    configChanges,
    sources: selected.map((c) => c.metadata.name),
    problems: [],
    warnings: [],
    ...(targetName
      ? {
          target: {
            name: targetName,
            ...(numbers.has(targetName) ? { number: numbers.get(targetName)! } : {}),
          },
        }
      : {}),
    unchanged: false,
    ...(input.poolChange ? { poolChange: input.poolChange } : {}),
    groups: [],
    nodes: [],
    batches: [],
    strategyNotes: [],
  };

  const rendered = renderConfigs(selected, input.secrets ? { secrets: input.secrets } : {});
  result.warnings = [...rendered.warnings];
  // As the controller says it (Complete False, NoNodes): a nodeSelector typo is no finished rollout.
  if (input.nodes.length === 0)
    result.warnings.push(
      'spec.nodeSelector selects no node of its own: no node would get the change, and the pool reports Complete False (NoNodes), not a finished rollout',
    );
  for (const e of rendered.errors) {
    result.problems.push(
      `${e.source ? `NodeConfig ${e.source}: ` : ''}${e.field ? `${e.field}: ` : ''}${e.message}`,
    );
  }
  for (const c of rendered.conflicts) result.problems.push(`conflict: ${c.message}`);
  if (!rendered.config || !rendered.hash) return result;
  if (spec.rolloutOrder?.by === 'FewestPods' && input.pods === undefined)
    result.warnings.push(
      'spec.rolloutOrder is FewestPods but the pods could not be read (not allowed to list pods?): the order below counts none, so it is the Interleaved one',
    );

  const newName = revisionName(name, rendered.hash);
  const existing = numbers.get(newName);
  const newNumber = existing ?? Math.max(0, ...numbers.values()) + 1;
  result.revision = { name: newName, number: newNumber, existing: existing !== undefined };
  result.unchanged = newName === targetName;
  Object.assign(result, pinOutcome(pool, newName, targetName, numbers));
  if (result.heldByPin) return result;
  const desired = { config: rendered.config };

  const zoneLabel = spec.updateStrategy.rollingUpdate?.zoneLabel ?? 'topology.kubernetes.io/zone';
  const ordered: PlannedNode[] = orderedNodes(
    input.nodes.map((node) => ({
      name: node.metadata.name,
      zone: node.metadata.labels?.[zoneLabel] ?? '',
      node,
    })),
    planOrder(spec, input),
  );

  const fixed: FixedPlanInput = {
    pool,
    spec,
    ordered,
    newNumber,
    ...(input.now !== undefined ? { now: input.now } : {}),
  };
  const { groups, groupOf } = changeGroups(configsByRevision, numbers, desired);

  const rebootsForOs =
    spec.reboots?.osRequested?.policy === 'Reboot' && spec.updateStrategy.type === 'RollingUpdate';
  let waitingForReboot = 0;
  const candidates: PlannedNode[] = [];
  for (const n of ordered) {
    const from = n.node.metadata.annotations?.[CURRENT_REVISION_ANNOTATION] || undefined;
    const step: NodeStep = { name: n.name, zone: n.zone, ...(from ? { from } : {}), action: 'none' };
    result.nodes.push(step);
    if (from === newName) {
      step.note = 'already on the new revision';
      continue;
    }
    const group = groupOf(from);
    group.nodes++;
    step.action = group.action;
    // The OS asks this node for a reboot and the pool reboots such nodes: it gets the revision and
    // the reboot together (one reboot), drained first (docs/controller.md, Reboot rounds).
    if (rebootsForOs && waitingOsReboot(n.node)) {
      step.action = 'reboot';
      waitingForReboot++;
    }
    const aside = description?.setAside?.(n.node, from);
    if (aside) step.note = aside;
    else candidates.push(n);
    const prestaged = prestageOf(n.node, newName);
    if (prestaged) step.prestage = prestaged;
  }
  result.groups = [...groups.values()].sort((a, b) => (b.fromNumber ?? 0) - (a.fromNumber ?? 0));
  // A pool change moves nodes (joining ones) even when the revision stays the target.
  if (result.unchanged && !(input.poolChange && groups.size > 0)) {
    if (input.poolChange?.fields.includes('updateStrategy') && description)
      result.nextRollout = nextRolloutUnder(fixed, description, input.now ?? Date.now());
    return result;
  }

  const notes = result.strategyNotes;
  notes.push(...leadingNotes(waitingForReboot, spec));
  const moving = result.nodes.filter((s) => s.note !== 'already on the new revision');
  if (description) {
    const planned = description.plan({ ...fixed, moving, candidates });
    result.batches = planned.batches;
    notes.push(...planned.notes);
    result.eta = planEta(result, spec, description, input.now ?? Date.now());
  }
  notes.push(...trailingNotes(spec, name));
  const byPolicy = failurePauseNote(pool);
  if (byPolicy) notes.push(byPolicy);
  return result;
}

type DefaultedSpec = ReturnType<typeof defaultedPoolSpec>;

/** What the plan says before the strategy's own notes: reboots the OS asks for, the wave it waits on. */
function leadingNotes(waitingForReboot: number, spec: DefaultedSpec): string[] {
  const notes: string[] = [];
  if (waitingForReboot > 0)
    notes.push(
      `${waitingForReboot === 1 ? '1 node waits' : `${waitingForReboot} nodes wait`} for a reboot the OS asks for: drained, given the revision and the reboot in one step, rebooted once`,
    );
  const waveAfter = waveNote(spec);
  if (waveAfter) notes.push(waveAfter);
  return notes;
}

/** What the plan says after the strategy's notes: pre-staging, the order, a pause. */
function trailingNotes(spec: DefaultedSpec, name: string): string[] {
  const notes: string[] = [];
  if (spec.prestage && spec.updateStrategy.type === 'RollingUpdate') notes.push(prestageNote(spec.prestage));
  notes.push(orderNote(spec.rolloutOrder));
  if (spec.paused) notes.push(`the pool is paused: nothing starts until ${invokedCommand()} resume ${name}`);
  return notes;
}

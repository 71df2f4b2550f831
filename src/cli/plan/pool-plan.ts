// What applying NodeConfigs would do to one pool, without writing anything: the revision the pool
// would render, and for every node in rollout order its batch (or slot, or start offset) and the plan
// from its current revision, computed by the one plan() the agent executes. Pure: the command reads
// the objects, this decides, the renderer prints.

import { revisionName } from '../../api/hash.ts';
import { CURRENT_REVISION_ANNOTATION } from '../../api/node-protocol.ts';
import { defaultedPoolSpec } from '../../api/pool-defaults.ts';
import { renderConfigs, type SecretLookup, selectConfigs } from '../../api/render.ts';
import type { NodeConfig, NodeConfigPool, NodeConfigRevision, RenderedConfig } from '../../api/types.ts';
import { resolveIntOrPercent } from '../../controller/rollout/int-or-percent.ts';
import {
  formatWallClock,
  type MaintenanceWindowSpec,
  maintenanceWindowStatus,
} from '../../controller/rollout/maintenance-windows.ts';
import { rolloutOrder } from '../../controller/rollout/rollout-order.ts';
import { spreadSchedule } from '../../controller/strategies/spread/spread-schedule.ts';
import type { Node } from '../../kube/types.ts';
import { plan } from '../../plan/plan.ts';
import type { Changes, Disruption } from '../../plan/types.ts';

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

export interface NodeStep {
  name: string;
  zone: string;
  from?: string;
  action: NodeAction;
  /** RollingUpdate batch or Serial wave (1-based). */
  batch?: number;
  /** Spread: seconds after the rollout starts. */
  offsetSeconds?: number;
  /** Not in the batches: why. */
  note?: 'already on the new revision' | 'NotReady: updated once Ready' | 'bootstrap: gets it at once';
}

export interface Batch {
  index: number;
  label: string;
  nodes: string[];
}

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
}

export interface PoolPlanInput {
  pool: NodeConfigPool;
  /** Every NodeConfig on the server. */
  configs: readonly NodeConfig[];
  /** The NodeConfigs of the file: added, or replacing those of the same name. */
  fileConfigs: readonly NodeConfig[];
  /** The pool's NodeConfigRevisions. */
  revisions: readonly NodeConfigRevision[];
  /** The pool's member Nodes. */
  nodes: readonly Node[];
  secrets?: SecretLookup;
  /** The time the plan is made at (ms): maintenance windows say whether one is open and when the next opens. */
  now?: number;
}

function merged(configs: readonly NodeConfig[], fileConfigs: readonly NodeConfig[]): NodeConfig[] {
  const byName = new Map(configs.map((c) => [c.metadata.name, c]));
  for (const c of fileConfigs) byName.set(c.metadata.name, c);
  return [...byName.values()];
}

function isReady(node: Node): boolean {
  return node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

interface Placed {
  name: string;
  zone: string;
  node: Node;
}

/** "; open now until …" or "; the next opens …", in UTC and in the zone of that window. */
function windowNow(windows: readonly MaintenanceWindowSpec[], now: number): string {
  const status = maintenanceWindowStatus(windows, now);
  if (status.error) return `; they cannot be read (${status.error}), so no batch would start`;
  const next =
    status.nextOpening === undefined
      ? 'none opens again'
      : `the next opens ${new Date(status.nextOpening).toISOString()}${status.nextOpeningZone && status.nextOpeningZone !== 'UTC' ? ` (${formatWallClock(status.nextOpeningZone, status.nextOpening)})` : ''}`;
  return status.open
    ? `; one is open until ${new Date(status.closesAt!).toISOString()}, ${next}`
    : `; ${next}`;
}

function rollingBatches(
  pool: NodeConfigPool,
  ordered: readonly Placed[],
  candidates: readonly Placed[],
  notes: string[],
  now: number | undefined,
): Batch[] {
  const rolling = defaultedPoolSpec(pool.spec).updateStrategy.rollingUpdate!;
  const total = ordered.length;
  const maxUnavailable = resolveIntOrPercent(rolling.maxUnavailable, total, 'down');
  const zoneSizes = new Map<string, number>();
  for (const n of ordered) zoneSizes.set(n.zone, (zoneSizes.get(n.zone) ?? 0) + 1);
  const zoneMax = (zone: string) =>
    rolling.maxUnavailablePerZone === undefined
      ? Number.POSITIVE_INFINITY
      : resolveIntOrPercent(rolling.maxUnavailablePerZone, zoneSizes.get(zone) ?? 0, 'down');
  const canary = rolling.canary
    ? Math.min(total, resolveIntOrPercent(rolling.canary.nodes, total, 'up'))
    : undefined;
  notes.push(
    `at most ${plural(maxUnavailable, 'node')} unavailable at once (maxUnavailable ${rolling.maxUnavailable} of ${total})${rolling.maxUnavailablePerZone !== undefined ? `, at most ${rolling.maxUnavailablePerZone} per zone` : ''}${canary !== undefined ? `; a canary batch of ${plural(Math.min(canary, maxUnavailable), 'node')} must be healthy${rolling.minReadySeconds ? ` for ${rolling.minReadySeconds}s` : ''} before the rest` : ''}`,
  );
  if (rolling.minReadySeconds)
    notes.push(`each batch soaks ${rolling.minReadySeconds}s healthy before the next starts`);
  notes.push(
    `on failure (more than ${rolling.failurePolicy.maxFailures} failed nodes): ${rolling.failurePolicy.action === 'Rollback' ? 'roll back to the last completed revision' : 'pause'}`,
  );
  if (rolling.maintenanceWindows?.length) {
    notes.push(
      `batches start only inside maintenance windows: ${rolling.maintenanceWindows.map((w) => `${w.schedule} for ${w.duration} (${w.timeZone})`).join('; ')}${now === undefined ? '' : windowNow(rolling.maintenanceWindows, now)}`,
    );
  }
  notes.push(
    'batches assume every node stays healthy: a node unavailable for another reason uses budget too',
  );
  // Cordoned nodes are unavailable already: updating them costs nothing, so they start first.
  const free = candidates.filter((n) => n.node.spec?.unschedulable === true);
  const paid = candidates.filter((n) => n.node.spec?.unschedulable !== true);
  const batches: Batch[] = [];
  let remaining = [...paid];
  let first = true;
  while (remaining.length > 0 || (first && free.length > 0)) {
    const size = first && canary !== undefined ? Math.min(canary, maxUnavailable) : maxUnavailable;
    const taken: Placed[] = [];
    const perZone = new Map<string, number>();
    const left: Placed[] = [];
    for (const n of remaining) {
      const used = perZone.get(n.zone) ?? 0;
      if (taken.length < size && used < zoneMax(n.zone)) {
        taken.push(n);
        perZone.set(n.zone, used + 1);
      } else {
        left.push(n);
      }
    }
    const nodes = [...(first ? free : []), ...taken].map((n) => n.name);
    batches.push({
      index: batches.length + 1,
      label: first && canary !== undefined ? 'canary' : '',
      nodes,
    });
    remaining = left;
    first = false;
  }
  return batches;
}

export function planPool(input: PoolPlanInput): PoolPlan {
  const { pool } = input;
  const name = pool.metadata.name;
  const spec = defaultedPoolSpec(pool.spec);
  const strategy = spec.updateStrategy.type;
  const before = new Set(selectConfigs(pool, input.configs).map((c) => c.metadata.name));
  const selected = selectConfigs(pool, merged(input.configs, input.fileConfigs));
  const after = new Set(selected.map((c) => c.metadata.name));
  const configChanges: ConfigChange[] = input.fileConfigs.map((c) => ({
    name: c.metadata.name,
    change: after.has(c.metadata.name)
      ? before.has(c.metadata.name)
        ? 'replaced'
        : 'added'
      : before.has(c.metadata.name)
        ? 'removed'
        : 'not selected',
  }));
  const numbers = new Map(input.revisions.map((r) => [r.metadata.name, r.spec.revision]));
  const configsByRevision = new Map<string, RenderedConfig>(
    input.revisions.map((r) => [r.metadata.name, r.spec.config]),
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
    groups: [],
    nodes: [],
    batches: [],
    strategyNotes: [],
  };

  const rendered = renderConfigs(selected, input.secrets ? { secrets: input.secrets } : {});
  result.warnings = rendered.warnings;
  for (const e of rendered.errors) {
    result.problems.push(
      `${e.source ? `NodeConfig ${e.source}: ` : ''}${e.field ? `${e.field}: ` : ''}${e.message}`,
    );
  }
  for (const c of rendered.conflicts) result.problems.push(`conflict: ${c.message}`);
  if (!rendered.config || !rendered.hash) return result;

  const newName = revisionName(name, rendered.hash);
  const existing = numbers.get(newName);
  const newNumber = existing ?? Math.max(0, ...numbers.values()) + 1;
  result.revision = { name: newName, number: newNumber, existing: existing !== undefined };
  result.unchanged = newName === targetName;
  const desired = { config: rendered.config };

  const zoneLabel = spec.updateStrategy.rollingUpdate?.zoneLabel ?? 'topology.kubernetes.io/zone';
  const ordered: Placed[] = rolloutOrder(
    input.nodes.map((node) => ({
      name: node.metadata.name,
      zone: node.metadata.labels?.[zoneLabel] ?? '',
      node,
    })),
  );

  // One plan per current revision: a pool of a thousand nodes has a handful of them.
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

  const candidates: Placed[] = [];
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
    if (strategy !== 'RollingUpdate') continue;
    if (!from) step.note = 'bootstrap: gets it at once';
    else if (!isReady(n.node)) step.note = 'NotReady: updated once Ready';
    else candidates.push(n);
  }
  result.groups = [...groups.values()].sort((a, b) => (b.fromNumber ?? 0) - (a.fromNumber ?? 0));
  if (result.unchanged) return result;

  const notes = result.strategyNotes;
  const wave = spec.updateStrategy.wave;
  if (wave?.after.length) {
    notes.push(
      `starts only after ${wave.after.length === 1 ? 'pool' : 'pools'} ${wave.after.join(', ')} completed their current revision${wave.soakSeconds ? ` and soaked ${wave.soakSeconds}s` : ''}; a paused, failed or rolled-back one holds it`,
    );
  }
  const steps = new Map(result.nodes.map((s) => [s.name, s]));
  const moving = result.nodes.filter((s) => s.note !== 'already on the new revision');
  switch (strategy) {
    case 'RollingUpdate': {
      result.batches = rollingBatches(pool, ordered, candidates, notes, input.now);
      for (const batch of result.batches)
        for (const node of batch.nodes) steps.get(node)!.batch = batch.index;
      break;
    }
    case 'Serial': {
      const slots = spec.updateStrategy.serial?.slots ?? 1;
      notes.push(
        `agents take turns through ${plural(slots, 'slot')}: at most ${slots} at once, while the controller is down too; who takes a free slot first is not fixed, so the waves below show how many at once, not who goes first`,
      );
      for (let i = 0; i < moving.length; i += slots) {
        const wave = moving.slice(i, i + slots);
        for (const s of wave) s.batch = result.batches.length + 1;
        result.batches.push({ index: result.batches.length + 1, label: '', nodes: wave.map((s) => s.name) });
      }
      break;
    }
    case 'Spread': {
      const windowSeconds = spec.updateStrategy.spread?.windowSeconds;
      if (windowSeconds === undefined) {
        notes.push('spread.windowSeconds is not set: the controller cannot schedule this pool');
        break;
      }
      notes.push(
        `every node starts at its own offset in a ${windowSeconds}s window that opens when the rollout starts`,
      );
      // The controller's own schedule, from a window starting at 0: the offsets are the times.
      const times = spreadSchedule(ordered, 0, windowSeconds);
      for (const step of moving) step.offsetSeconds = (times.get(step.name) ?? 0) / 1000;
      break;
    }
    case 'OnDelete':
      notes.push(
        `existing nodes keep their revision: none of the ${plural(moving.length, 'node')} below changes now; new nodes joining the pool get revision ${newNumber}`,
        `the actions below happen only when a node is upgraded: nodeherd upgrade node <name>, or nodeherd upgrade revision ${name} <R> for every node of revision R`,
      );
      break;
    case 'OTA':
      notes.push(
        `revision ${newNumber} is offered to each node's owner (nodeherd.io/available-revision); a node updates when its owner asks the agent's local API (POST /v1/update), with the action below`,
      );
      break;
  }
  if (spec.paused) notes.push(`the pool is paused: nothing starts until nodeherd resume ${name}`);
  return result;
}

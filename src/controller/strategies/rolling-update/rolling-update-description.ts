// RollingUpdate as the CLI describes it: the budget, canary, soak, failure policy and windows; the plan
// is the batches the controller would start, from the nodes it may batch (a node joining gets the
// revision at once, a NotReady one once it is Ready).

import { readyCondition } from '../../../kube/conditions.ts';
import { plural } from '../../plural.ts';
import { resolveIntOrPercent } from '../../rollout/int-or-percent.ts';
import {
  formatWallClock,
  type MaintenanceWindowSpec,
  maintenanceWindowStatus,
} from '../../rollout/maintenance-windows.ts';
import type {
  PlannedBatch,
  PlannedNode,
  RolloutPlanInput,
  StrategyDescription,
} from '../strategy-description.ts';

function isReady(node: PlannedNode['node']): boolean {
  return readyCondition(node)?.status === 'True';
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

function rollingBatches(input: RolloutPlanInput, notes: string[]): PlannedBatch[] {
  const { ordered, candidates } = input;
  const rolling = input.spec.updateStrategy.rollingUpdate!;
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
      `batches start only inside maintenance windows: ${rolling.maintenanceWindows.map((w) => `${w.schedule} for ${w.duration} (${w.timeZone})`).join('; ')}${input.now === undefined ? '' : windowNow(rolling.maintenanceWindows, input.now)}`,
    );
  }
  notes.push(
    'batches assume every node stays healthy: a node unavailable for another reason uses budget too',
  );
  // Cordoned nodes are unavailable already: updating them costs nothing, so they start first.
  const free = candidates.filter((n) => n.node.spec?.unschedulable === true);
  const paid = candidates.filter((n) => n.node.spec?.unschedulable !== true);
  const batches: PlannedBatch[] = [];
  let remaining = [...paid];
  let first = true;
  while (remaining.length > 0 || (first && free.length > 0)) {
    const size = first && canary !== undefined ? Math.min(canary, maxUnavailable) : maxUnavailable;
    const taken: PlannedNode[] = [];
    const perZone = new Map<string, number>();
    const left: PlannedNode[] = [];
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

export const rollingUpdateDescription: StrategyDescription = {
  detail(strategy) {
    const r = strategy.rollingUpdate ?? {};
    const parts = [`maxUnavailable ${r.maxUnavailable ?? 1}`];
    if (r.maxUnavailablePerZone !== undefined) parts.push(`per zone ${r.maxUnavailablePerZone}`);
    if (r.canary) parts.push(`canary ${r.canary.nodes}`);
    if (r.minReadySeconds) parts.push(`soak ${r.minReadySeconds}s`);
    if (r.failurePolicy?.action) parts.push(`on failure ${r.failurePolicy.action}`);
    if (r.maintenanceWindows?.length) parts.push(plural(r.maintenanceWindows.length, 'maintenance window'));
    return parts.join(', ');
  },

  setAside(node, from) {
    if (!from) return 'bootstrap: gets it at once';
    if (!isReady(node)) return 'NotReady: updated once Ready';
    return undefined;
  },

  plan(input) {
    const notes: string[] = [];
    const batches = rollingBatches(input, notes);
    const steps = new Map(input.moving.map((s) => [s.name, s]));
    for (const batch of batches) for (const node of batch.nodes) steps.get(node)!.batch = batch.index;
    return { batches, notes };
  },

  column: { header: 'BATCH', shows: 'batch' },
};

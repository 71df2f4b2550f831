// Drift as the planner sees it: plan(observed, desired) is the repair, in the normal apply's order and
// with its restarts and reloads (only of the units whose file, drop-in, listed file or package
// drifted); the observation's notes say, per action, what was found. Pure.

import type { RenderedConfig } from '../../api/types.ts';
import { plan } from '../../plan/plan.ts';
import type { Plan } from '../../plan/types.ts';
import type { Observation } from './observed-config.ts';

export const DRIFT_KINDS = ['file', 'unit', 'dropin', 'enablement', 'state', 'package'] as const;
export type DriftKind = (typeof DRIFT_KINDS)[number];

export interface DriftItem {
  kind: DriftKind;
  /** The id of the plan action that repairs it, e.g. write-file:/etc/foo.conf. */
  id: string;
  /** What was found, for humans (never file contents). */
  detail: string;
}

export interface DriftPlan {
  /** In plan order; empty: no drift. */
  items: DriftItem[];
  /** The repair: the plan from what the node has to the desired config. */
  repair: Plan;
}

const KIND_OF_ACTION: Record<string, DriftKind> = {
  'write-file': 'file',
  'write-unit': 'unit',
  'write-dropin': 'dropin',
  'enable-unit': 'enablement',
  'disable-unit': 'enablement',
  'start-unit': 'state',
  'stop-unit': 'state',
  'install-package': 'package',
  'remove-package': 'package',
};

function driftKindOf(id: string): DriftKind | undefined {
  return KIND_OF_ACTION[id.slice(0, id.indexOf(':'))];
}

export function driftPlan(
  observation: Observation,
  desired: RenderedConfig,
  options: { selfUnit?: string } = {},
): DriftPlan {
  const repair = plan({ config: observation.observed }, { config: desired }, options);
  const planned = new Set(repair.actions.map((a) => a.id));
  // In plan order; a note the plan has no action for (none expected) still counts as drift.
  const ids = [
    ...repair.actions.map((a) => a.id),
    ...[...observation.notes.keys()].filter((id) => !planned.has(id)),
  ];
  const items: DriftItem[] = [];
  for (const id of ids) {
    const detail = observation.notes.get(id);
    const kind = driftKindOf(id);
    if (detail !== undefined && kind !== undefined) items.push({ kind, id, detail });
  }
  return { items, repair };
}

/** A repair that needs more than restarts: the pool's policies ask for a drain or a reboot. */
export function repairNeeds(repair: Plan): 'Drain' | 'Reboot' | undefined {
  return repair.disruption === 'Drain' || repair.disruption === 'Reboot' ? repair.disruption : undefined;
}

// Disruption policies: which action a change calls for, and how actions and levels compare.

import { policyPathSpecificity } from '../api/config-rules.ts';
import type { DisruptionAction, RenderedPolicies, RenderedUnit } from '../api/types.ts';
import { DISRUPTION_LEVELS, type Disruption } from './types.ts';

/** Strength of policy actions when several apply to one unit: the strongest wins. */
const ACTION_STRENGTH: Record<DisruptionAction, number> = {
  None: 0,
  DaemonReload: 1,
  Reload: 2,
  Restart: 3,
  Drain: 4,
  Reboot: 5,
};

export function strongerAction(a: DisruptionAction, b: DisruptionAction): DisruptionAction {
  return ACTION_STRENGTH[b] > ACTION_STRENGTH[a] ? b : a;
}

export function maxDisruption(a: Disruption, b: Disruption): Disruption {
  return DISRUPTION_LEVELS.indexOf(b) > DISRUPTION_LEVELS.indexOf(a) ? b : a;
}

/** The policy for a file: an exact path beats a `/**` prefix, a longer prefix beats a shorter one. */
export function filePolicy(policies: RenderedPolicies, path: string): DisruptionAction | undefined {
  let best: { action: DisruptionAction; specificity: number } | undefined;
  for (const policy of policies.files) {
    const specificity = policyPathSpecificity(policy.path, path);
    if (specificity !== undefined && (!best || specificity > best.specificity)) {
      best = { action: policy.action, specificity };
    }
  }
  return best?.action;
}

export function packagePolicy(policies: RenderedPolicies, name: string): DisruptionAction | undefined {
  return policies.packages.find((p) => p.name === name)?.action;
}

/** What a change of the unit itself does: its own `disruption`, else a unit policy, else Restart. */
export function unitAction(policies: RenderedPolicies, unit: RenderedUnit): DisruptionAction {
  return unit.disruption ?? policies.units.find((p) => p.name === unit.name)?.action ?? 'Restart';
}

/**
 * What a change that no unit depends on does. None by default, unlike MCO (where no policy means
 * Reboot): nodeherd knows which units use which files (filePaths) and packages, so anything outside
 * those relations is data no running program was declared to read; rebooting for it would make every
 * small change a fleet-wide reboot.
 */
export function defaultAction(policies: RenderedPolicies): DisruptionAction {
  return policies.default ?? 'None';
}

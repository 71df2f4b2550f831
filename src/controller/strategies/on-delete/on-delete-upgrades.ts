// OnDelete upgrades on demand: which nodes of the pool are to move to the target now. A node asked
// for with nodeherd.io/upgrade-requested, every node on the revision the pool's
// nodeherd.io/upgrade-revision names, and nodes already on their way (given the target, draining for
// it, cordoned by us, or just arrived and still within their soak or deadline). The rollout decision
// then runs over exactly these nodes, with the RollingUpdate safety rules.

import type { NodeSnapshot, NumberedRevision } from '../../rollout/types.ts';
import type { StrategyNode } from '../strategy-node.ts';

export interface UpgradeInput {
  target: NumberedRevision;
  nodes: readonly StrategyNode[];
  snapshots: ReadonlyMap<string, NodeSnapshot>;
  revisionNumbers: ReadonlyMap<string, number>;
  /** The pool's nodeherd.io/upgrade-revision, as written. */
  revisionRequest?: string;
  episodeStart?: number;
  progressDeadlineSeconds: number;
  minReadySeconds: number;
  now: number;
}

export interface UpgradePlan {
  /** Nodes the rollout decision covers. */
  nodes: string[];
  /** Nodes asked for (by annotation or revision) that are not on the target yet. */
  requested: string[];
  /** The pool's request is done (no node left on that revision) or unusable: remove it. */
  clearRevisionRequest: boolean;
  /** Why the request is unusable, for an Event. */
  invalidRequest?: string;
}

export function planUpgrades(input: UpgradeInput): UpgradePlan {
  const T = input.target.name;
  const plan: UpgradePlan = { nodes: [], requested: [], clearRevisionRequest: false };
  let wanted: number | undefined;
  if (input.revisionRequest !== undefined) {
    const n = Number(input.revisionRequest.trim());
    if (!Number.isInteger(n) || n < 1) {
      plan.clearRevisionRequest = true;
      plan.invalidRequest = `nodeherd.io/upgrade-revision: "${input.revisionRequest}" is not a revision number`;
    } else if (n === input.target.number) {
      plan.clearRevisionRequest = true;
    } else wanted = n;
  }
  let leftOnWanted = 0;
  const windowMs = (input.progressDeadlineSeconds + input.minReadySeconds) * 1000;
  for (const node of input.nodes) {
    if (node.current === undefined) continue; // joining: bootstrapped, not upgraded
    const number = input.revisionNumbers.get(node.current);
    const onWanted = wanted !== undefined && number === wanted;
    if (onWanted) leftOnWanted++;
    if (node.current !== T) {
      const asked = node.upgradeRequested !== undefined || onWanted;
      if (asked) plan.requested.push(node.name);
      const underway = node.desired === T || node.drainingFor !== undefined || node.cordonedByUs;
      if (asked || underway) plan.nodes.push(node.name);
      continue;
    }
    // On the target: still covered while a fresh upgrade soaks or may yet fail.
    const started = input.snapshots.get(node.name)?.updateStartedAt;
    const touched =
      started !== undefined && input.episodeStart !== undefined && started >= input.episodeStart;
    if ((touched && input.now < started + windowMs) || node.cordonedByUs || node.drainingFor !== undefined)
      plan.nodes.push(node.name);
  }
  if (wanted !== undefined && leftOnWanted === 0) plan.clearRevisionRequest = true;
  return plan;
}

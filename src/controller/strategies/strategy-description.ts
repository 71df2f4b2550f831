// What the CLI says about a pool's strategy, by the strategy itself: its settings in a few words
// (`nodeherd status`), what it would do with a new revision (`nodeherd plan`: batches, waves or start
// offsets, and notes), the column the plan's node table leads with, and whether `nodeherd upgrade`
// applies. Pure and light: a description imports no decision code, so the CLI loads only these
// (descriptions.ts is their registry, beside registry.ts).

import type { DefaultedPoolSpec } from '../../api/pool-defaults.ts';
import type { NodeConfigPool, UpdateStrategy } from '../../api/types.ts';
import type { Node } from '../../kube/types.ts';

/** A pool member as a plan lays it out, in rollout order. */
export interface PlannedNode {
  name: string;
  zone: string;
  node: Node;
}

/** Why a node that changes is not in the plan's batches. */
export type AsideNote =
  | 'already on the new revision'
  | 'NotReady: updated once Ready'
  | 'bootstrap: gets it at once';

/** A member's line in the plan; the strategy sets its batch or start offset. */
export interface PlannedStep {
  name: string;
  /** The batch (or wave) of the plan it falls in (1-based). */
  batch?: number;
  /** Spread: seconds after the rollout starts. */
  offsetSeconds?: number;
  /** Not in the batches: why. */
  note?: AsideNote;
}

export interface PlannedBatch {
  index: number;
  label: string;
  nodes: string[];
}

export interface RolloutPlanInput {
  pool: NodeConfigPool;
  spec: DefaultedPoolSpec;
  /** Every member, in rollout order. */
  ordered: readonly PlannedNode[];
  /** The steps of the members not on the new revision, in rollout order. */
  moving: PlannedStep[];
  /** The members the strategy may put in batches: moving and not set aside (setAside). */
  candidates: readonly PlannedNode[];
  /** The number the new revision gets. */
  newNumber: number;
  /** The time the plan is made at (ms): maintenance windows say whether one is open and when the next opens. */
  now?: number;
}

export interface RolloutPlan {
  batches: PlannedBatch[];
  /** What the strategy does with the new revision, in words. */
  notes: string[];
}

export interface StrategyDescription {
  /** `nodeherd status`: the strategy's settings in a few words. */
  detail(strategy: UpdateStrategy): string;
  /** `nodeherd plan`: a member that changes but is not batched, and why (before the plan is made). */
  setAside?(node: Node, from: string | undefined): AsideNote | undefined;
  /** `nodeherd plan`: batches (setting each moving step's batch or offset) and notes. */
  plan(input: RolloutPlanInput): RolloutPlan;
  /** `nodeherd plan`'s node table leads with each node's batch (or wave), or its start offset. */
  column?: { header: string; shows: 'batch' | 'offset' };
  /** Nodes move only when asked or pulled: the table's action is what happens when one is updated. */
  updatesWhenAsked?: boolean;
  /** `nodeherd upgrade` moves nodes of this strategy on demand. */
  upgradesOnDemand?: boolean;
  /** Why `nodeherd upgrade` does not apply, when more than "every node is updated anyway". */
  notOnDemand?(pool: string): string;
}

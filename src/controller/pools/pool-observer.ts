// The observe step of a pool reconcile: the pool's members (nodes it selects and no other pool does)
// and, for a pool state, the strategy snapshot read from the caches (each node as the rollout and the
// strategies see it, and what the strategy's runtime observes of its own). Reading again after a write sees the write: the writers put
// their results into the caches.

import type { DefaultedPoolSpec } from '../../api/pool-defaults.ts';
import type { LabelSelector, NodeConfigPool } from '../../api/types.ts';
import type { Node } from '../../kube/types.ts';
import type { ControllerContext } from '../controller-context.ts';
import { type SnapshotContext, snapshotNode } from '../node-snapshot.ts';
import { type PoolSelector, poolsSelecting } from '../pool-membership.ts';
import { packageManagerRefusal, revisionManagers } from '../rollout/package-manager-fit.ts';
import type { FailureAction, NodeSnapshot, NumberedRevision } from '../rollout/types.ts';
import { poolOrder } from '../strategies/pool-order.ts';
import { rollingSettings, rollingUpdateOf } from '../strategies/rolling-settings.ts';
import type { StrategyRuntime, StrategySnapshot } from '../strategies/strategy.ts';
import { readStrategyNode } from '../strategies/strategy-node.ts';
import { revisionKubeletPin } from './kubelet-skew.ts';
import type { PoolState } from './pool-state.ts';

export interface PoolMembers {
  nodes: Node[];
  /** Nodes this pool selects that another pool selects too: pool names by node. */
  conflicts: Map<string, string[]>;
}

// Which pools select a node, kept per Node object and the pools' selectors (their JSON): a reconcile
// of a pool asks it of every Node in the cache, and between two reconciles few change (issue 17). The
// selectors' JSON is kept once while it stays the same, so comparing it is a pointer comparison.
const selectingByNode = new WeakMap<Node, { selectors: string; pools: string[] }>();
let knownSelectors = '';

function poolsSelectingNode(node: Node, selectors: string, pools: readonly PoolSelector[]): string[] {
  const known = selectingByNode.get(node);
  if (known?.selectors === selectors) return known.pools;
  const selecting = poolsSelecting(node.metadata.labels, pools);
  selectingByNode.set(node, { selectors, pools: selecting });
  return selecting;
}

/** The pool's members (nodes it selects and no other pool does), by name, as poolMembership() says. */
export function poolMembers(ctx: ControllerContext, name: string): PoolMembers {
  const selectors: PoolSelector[] = ctx.informers.pools
    .list()
    .filter((p) => !p.metadata.deletionTimestamp)
    .map((p) => ({ name: p.metadata.name, nodeSelector: p.spec.nodeSelector }));
  const json = JSON.stringify(selectors);
  if (json !== knownSelectors) knownSelectors = json;
  const nodes: Node[] = [];
  const conflicts = new Map<string, string[]>();
  for (const node of ctx.informers.nodes.list()) {
    const selecting = poolsSelectingNode(node, knownSelectors, selectors);
    if (selecting.length === 1) {
      if (selecting[0] === name) nodes.push(node);
    } else if (selecting.length > 1 && selecting.includes(name)) conflicts.set(node.metadata.name, selecting);
  }
  // Sorted as poolMembership() sorts names (code units; names are unique).
  nodes.sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  return { nodes, conflicts };
}

export class PoolObserver {
  private readonly ctx: ControllerContext;
  private readonly pool: NodeConfigPool;
  private readonly spec: DefaultedPoolSpec;
  private readonly members: readonly Node[];
  readonly revisionNumbers: ReadonlyMap<string, number>;
  private readonly now: number;
  private readonly runtime: StrategyRuntime | undefined;

  constructor(
    ctx: ControllerContext,
    pool: NodeConfigPool,
    spec: DefaultedPoolSpec,
    members: readonly Node[],
    revisions: readonly NumberedRevision[],
    now: number,
    runtime?: StrategyRuntime,
  ) {
    this.ctx = ctx;
    this.runtime = runtime;
    this.pool = pool;
    this.spec = spec;
    this.members = members;
    this.revisionNumbers = new Map(revisions.map((r) => [r.name, r.number]));
    this.now = now;
  }

  private current(node: Node): Node {
    return this.ctx.informers.nodes.get(node.metadata.name) ?? node;
  }

  /** The members as the rollout decision sees them, for a target (health, drain needs). */
  nodeSnapshots(target: string | undefined): NodeSnapshot[] {
    return this.snapshotsOf(
      this.members.map((n) => this.current(n)),
      target,
    );
  }

  private snapshotsOf(current: readonly Node[], target: string | undefined): NodeSnapshot[] {
    const { ctx } = this;
    const rolling = rollingUpdateOf(this.spec);
    const podSelector = rolling.healthGate?.podSelector;
    // One context for all members (snapshotNode keeps each unchanged node's snapshot: node-snapshot.ts).
    const revision = target === undefined ? undefined : ctx.informers.revisions.get(target);
    const needed = revision === undefined ? [] : revisionManagers(revision);
    const context: SnapshotContext = {
      ...(needed.length > 0
        ? { packageManagerRefusal: (nodeManager: string) => packageManagerRefusal(needed, nodeManager) }
        : {}),
      zoneLabel: rolling.zoneLabel,
      target,
      needsDrain: (from, to) => ctx.planner.needsDrain(from, to),
      ...(this.spec.prestage ? { needsDownload: (from, to) => ctx.planner.needsDownload(from, to) } : {}),
      podsReady: podSelector ? (node) => ctx.pods.allReady(node, podSelector) : () => true,
      drainBlocked: (node) => ctx.drainer.blocked(node),
      kubeletPin: (revision) => revisionKubeletPin(ctx, revision),
      health: ctx.health,
      now: this.now,
      healthFromNodeOnly: podSelector === undefined,
    };
    return current.map((n) => snapshotNode(n, context));
  }

  /** What the strategy decides from, for a state with a target. */
  observe(state: PoolState & { target: NumberedRevision }, failureApplied?: FailureAction): StrategySnapshot {
    const rolling = rollingUpdateOf(this.spec);
    const current = this.members.map((n) => this.current(n));
    return {
      pool: this.pool,
      spec: this.spec,
      settings: rollingSettings(rolling),
      zoneLabel: rolling.zoneLabel,
      target: state.target,
      ...(state.lastComplete ? { lastComplete: state.lastComplete } : {}),
      history: state.history,
      paused: state.paused,
      ...(state.pausedByFailure ? { pausedByFailure: state.pausedByFailure } : {}),
      ...(failureApplied ? { failureApplied } : {}),
      nodes: current.map((n) => readStrategyNode(n, rolling.zoneLabel)),
      snapshots: this.snapshotsOf(current, state.target.name),
      revisionNumbers: this.revisionNumbers,
      own: this.runtime?.observe(this.pool),
      now: this.now,
      ...orderOf(this.spec, current, this.ctx),
    };
  }
}

/** spec.rolloutOrder with its keys, for the strategy snapshot ({} for the default order). */
function orderOf(spec: DefaultedPoolSpec, nodes: readonly Node[], ctx: ControllerContext) {
  const order = poolOrder(
    spec.rolloutOrder,
    nodes,
    (node) => ctx.pods.on(node),
    spec.drain?.skipPodSelector as LabelSelector | undefined,
  );
  return order ? { order } : {};
}

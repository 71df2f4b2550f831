// `nodeherd status`'s ETA of a rollout under way: the batch in flight (its nodes' update-started stamps,
// their apply and soak still to go) and the batches the strategy would still start with the nodes that
// wait, added up as `nodeherd plan` adds them (rollout-eta.ts). From the objects status reads anyway.

import {
  CURRENT_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  STATE_ANNOTATION,
} from '../../api/node-protocol.ts';
import { type DefaultedPoolSpec, defaultedPoolSpec } from '../../api/pool-defaults.ts';
import type { NodeConfigPool, NodeConfigRevision } from '../../api/types.ts';
import { UPDATE_STARTED_ANNOTATION } from '../../controller/annotations.ts';
import { orderedNodes } from '../../controller/rollout/rollout-order.ts';
import { strategyDescription } from '../../controller/strategies/descriptions.ts';
import { poolOrder } from '../../controller/strategies/pool-order.ts';
import type { PlannedNode, PlannedStep } from '../../controller/strategies/strategy-description.ts';
import type { Node } from '../../kube/types.ts';
import { plan } from '../../plan/plan.ts';
import type { Disruption } from '../../plan/types.ts';
import {
  APPLY_SECONDS,
  type EtaAction,
  type EtaBatch,
  type EtaResult,
  estimateBatches,
  soakSecondsOf,
} from '../rollout-eta.ts';

const ACTIONS: Record<Disruption, EtaAction> = {
  None: 'none',
  Reload: 'reload',
  Restart: 'restart',
  Drain: 'drain',
  Reboot: 'reboot',
};

/** Each node's action towards the target, by the revision it runs (one plan per revision). */
function actionsTowards(
  target: NodeConfigRevision | undefined,
  revisions: ReadonlyMap<string, NodeConfigRevision>,
): (from: string | undefined) => EtaAction {
  const cache = new Map<string, EtaAction>();
  return (from) => {
    if (!target) return 'restart';
    const key = from ?? '';
    const known = cache.get(key);
    if (known) return known;
    const fromConfig = from ? revisions.get(from)?.spec.config : undefined;
    const action =
      ACTIONS[
        plan(fromConfig ? { config: fromConfig } : undefined, { config: target.spec.config }).disruption
      ];
    cache.set(key, action);
    return action;
  };
}

/** A spec whose canary has passed: the rest of a rollout under way has none. */
function withoutCanary(spec: DefaultedPoolSpec): DefaultedPoolSpec {
  const rolling = spec.updateStrategy.rollingUpdate;
  if (!rolling?.canary) return spec;
  const { canary: _canary, ...rest } = rolling;
  return { ...spec, updateStrategy: { ...spec.updateStrategy, rollingUpdate: rest } };
}

/**
 * The time left of the pool's rollout, or undefined when nothing is left to do (every member on the
 * target and soaked) or the strategy moves nodes only when asked.
 */
export function statusEta(
  pool: NodeConfigPool,
  members: readonly Node[],
  revisions: readonly NodeConfigRevision[],
  now: number,
): EtaResult | undefined {
  const T = pool.status?.targetRevision;
  if (!T || members.length === 0) return undefined;
  const spec = defaultedPoolSpec(pool.spec);
  const description = strategyDescription(spec.updateStrategy.type);
  if (!description || description.updatesWhenAsked || description.column?.shows !== 'batch') return undefined;
  const byName = new Map(
    revisions.filter((r) => r.spec?.pool === pool.metadata.name).map((r) => [r.metadata.name, r]),
  );
  const actionOf = actionsTowards(byName.get(T), byName);
  const soak = soakSecondsOf(spec);
  const zoneLabel = spec.updateStrategy.rollingUpdate?.zoneLabel ?? 'topology.kubernetes.io/zone';

  // In flight: given the target, not yet through apply and soak (as far as the estimate goes).
  let inFlightLeft = -1;
  let inFlightActions: EtaAction[] = [];
  let started = false;
  const waiting: PlannedNode[] = [];
  for (const node of members) {
    const a = node.metadata.annotations ?? {};
    const current = a[CURRENT_REVISION_ANNOTATION] || undefined;
    const desired = a[DESIRED_REVISION_ANNOTATION];
    if (desired === T && current !== undefined) started = true;
    if (desired !== T) {
      if (current !== T)
        waiting.push({ name: node.metadata.name, zone: node.metadata.labels?.[zoneLabel] ?? '', node });
      continue;
    }
    if (a[STATE_ANNOTATION] === 'Failed') continue;
    const stamp = Date.parse(a[UPDATE_STARTED_ANNOTATION] ?? '');
    const from = current === T ? undefined : current;
    const action = current === T ? 'none' : actionOf(from);
    const since = Number.isNaN(stamp) ? now : stamp;
    const left = since / 1000 + APPLY_SECONDS[action] + soak - now / 1000;
    if (left > 0 || current !== T) {
      inFlightLeft = Math.max(inFlightLeft, left, current !== T ? soak : 0);
      inFlightActions = [...inFlightActions, action];
    }
  }
  if (inFlightLeft < 0 && waiting.length === 0) return undefined;

  const batches: EtaBatch[] = [];
  if (inFlightLeft >= 0) {
    // The batch in flight as one whose nodes have already spent all but `inFlightLeft`.
    const longest = Math.max(...inFlightActions.map((x) => APPLY_SECONDS[x])) + soak;
    batches.push({ actions: inFlightActions, elapsedSeconds: Math.max(0, longest - inFlightLeft) });
  }
  if (waiting.length > 0) {
    // The pool's own order (spec.rolloutOrder). Status reads no pods: FewestPods counts none, so
    // among equals it is the interleaved order, as the plan prints it when pods cannot be read.
    const order = poolOrder(spec.rolloutOrder, members, () => []);
    const ordered = orderedNodes(waiting, order);
    const moving: PlannedStep[] = ordered.map((n) => ({ name: n.name }));
    const planned = description.plan({
      pool,
      spec: started ? withoutCanary(spec) : spec,
      ordered: orderedNodes(
        members.map((node) => ({
          name: node.metadata.name,
          zone: node.metadata.labels?.[zoneLabel] ?? '',
          node,
        })),
        order,
      ),
      moving,
      candidates: ordered,
      newNumber: 0,
      now,
    });
    const fromOf = new Map(
      waiting.map((n) => [n.name, n.node.metadata.annotations?.[CURRENT_REVISION_ANNOTATION] || undefined]),
    );
    for (const b of planned.batches) batches.push({ actions: b.nodes.map((n) => actionOf(fromOf.get(n))) });
  }
  return estimateBatches(batches, spec, now);
}

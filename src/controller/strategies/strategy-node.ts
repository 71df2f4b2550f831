// What the gated and owner-driven strategies (all but RollingUpdate) need to know about one
// Node: the protocol annotations, the strategy artefacts the controller may have left on it, and our
// taint. Read from the Node object alone, so the decisions built on it stay pure.

import {
  AVAILABLE_REVISION_ANNOTATION,
  CURRENT_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  HOLD_ANNOTATION,
  MESSAGE_ANNOTATION,
  NOT_BEFORE_ANNOTATION,
  OUTDATED_TAINT_KEY,
  STATE_ANNOTATION,
  STATE_REVISION_ANNOTATION,
  UPGRADE_REQUESTED_ANNOTATION,
} from '../../api/node-protocol.ts';
import type { Node } from '../../kube/types.ts';
import { CORDONED_BY_ANNOTATION, DRAINING_FOR_ANNOTATION } from '../annotations.ts';
import { failedRevisionOf } from '../node-snapshot.ts';
import { STRATEGY_ANNOTATION_KEYS, STRATEGY_GATE_KEYS } from './strategy-annotations.ts';

export interface Taint {
  effect: string;
  value?: string;
}

export interface StrategyNode {
  name: string;
  zone: string;
  desired?: string;
  current?: string;
  state?: string;
  /** The revision `state` is about (nodeherd.io/state-revision), when the agent says. */
  stateRevision?: string;
  message?: string;
  /** The strategies' own annotations (strategy-annotations.ts) the node carries, by key, as written. */
  annotations?: Readonly<Record<string, string>>;
  notBefore?: string;
  hold?: string;
  available?: string;
  upgradeRequested?: string;
  /** Our OUTDATED_TAINT_KEY taint, when the node carries it. */
  outdatedTaint?: Taint;
  cordonedByUs: boolean;
  drainingFor?: string;
}

// Kept per Node object, like the rollout's node facts (node-snapshot.ts): the caches replace an object
// when it changes, so an unchanged node costs a lookup. Callers must not modify what they get.
const strategyNodes = new WeakMap<Node, { zoneLabel: string; node: StrategyNode }>();

export function readStrategyNode(node: Node, zoneLabel: string): StrategyNode {
  const known = strategyNodes.get(node);
  if (known?.zoneLabel === zoneLabel) return known.node;
  const read = readFreshStrategyNode(node, zoneLabel);
  strategyNodes.set(node, { zoneLabel, node: read });
  return read;
}

function readFreshStrategyNode(node: Node, zoneLabel: string): StrategyNode {
  const a = node.metadata.annotations ?? {};
  const taint = node.spec?.taints?.find((t) => t.key === OUTDATED_TAINT_KEY);
  const facts: StrategyNode = {
    name: node.metadata.name,
    zone: node.metadata.labels?.[zoneLabel] ?? '',
    cordonedByUs: a[CORDONED_BY_ANNOTATION] !== undefined,
  };
  const optional: Partial<StrategyNode> = {
    desired: a[DESIRED_REVISION_ANNOTATION] || undefined,
    current: a[CURRENT_REVISION_ANNOTATION] || undefined,
    state: a[STATE_ANNOTATION] || undefined,
    stateRevision: a[STATE_REVISION_ANNOTATION] || undefined,
    message: a[MESSAGE_ANNOTATION] || undefined,
    annotations: ownAnnotations(a),
    notBefore: a[NOT_BEFORE_ANNOTATION],
    hold: a[HOLD_ANNOTATION],
    available: a[AVAILABLE_REVISION_ANNOTATION],
    upgradeRequested: a[UPGRADE_REQUESTED_ANNOTATION],
    outdatedTaint: taint
      ? { effect: taint.effect, ...(taint.value ? { value: taint.value } : {}) }
      : undefined,
    drainingFor: a[DRAINING_FOR_ANNOTATION] || undefined,
  };
  for (const [key, value] of Object.entries(optional))
    if (value !== undefined) Object.assign(facts, { [key]: value });
  return facts;
}

function ownAnnotations(a: Record<string, string>): Record<string, string> | undefined {
  let own: Record<string, string> | undefined;
  for (const key of STRATEGY_ANNOTATION_KEYS) {
    if (a[key] === undefined) continue;
    own ??= {};
    own[key] = a[key];
  }
  return own;
}

/** The node carries a strategy's gate annotation. */
export function carriesGate(node: StrategyNode): boolean {
  return STRATEGY_GATE_KEYS.some((key) => node.annotations?.[key] !== undefined);
}

/** The revision the agent's state is about: state-revision, else the one a failure message names. */
function stateRevisionOf(node: StrategyNode): string | undefined {
  if (node.stateRevision) return node.stateRevision;
  if (node.state === 'Failed') return failedRevisionOf(node.message);
  // Older agents do not say; a working agent works on its desired revision.
  return node.desired;
}

/** The agent failed `revision` (and has not succeeded with it since). */
export function failedFor(node: StrategyNode, revision: string): boolean {
  return node.state === 'Failed' && node.current !== revision && stateRevisionOf(node) === revision;
}

/** The agent is applying or verifying `revision`. */
export function workingOn(node: StrategyNode, revision: string): boolean {
  return (
    (node.state === 'Applying' || node.state === 'Verifying') &&
    node.desired === revision &&
    stateRevisionOf(node) === revision
  );
}

/**
 * The node has started on `revision` (so a hold no longer applies to it): it is working on it, failed
 * it, or holds its turn (a gated strategy's, as it says).
 */
export function startedOn(node: StrategyNode, revision: string, holdsTurn: boolean): boolean {
  return holdsTurn || workingOn(node, revision) || failedFor(node, revision);
}

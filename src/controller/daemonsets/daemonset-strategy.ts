// Whether nodeherd manages a DaemonSet's updates, and how: the DaemonSet must be OnDelete (so
// Kubernetes' own controller only recreates deleted pods) and carry nodeherd.io/update-strategy.
// Anything else that names nodeherd is ignored with a reason the updater reports as a Warning Event.

import {
  DAEMONSET_MAX_UNAVAILABLE_ANNOTATION,
  DAEMONSET_STRATEGIES,
  DAEMONSET_STRATEGY_ANNOTATION,
} from '../../api/node-protocol.ts';
import { type IntOrPercent, IntOrPercentError, resolveIntOrPercent } from '../rollout/int-or-percent.ts';
import type { DaemonSet } from './daemonset-types.ts';

export type DaemonSetStrategy = (typeof DAEMONSET_STRATEGIES)[number];

const DEFAULT_MAX_UNAVAILABLE = '10%';

export type DaemonSetManagement =
  /** No nodeherd annotation: not ours, nothing to say. */
  | { kind: 'unmanaged' }
  /** The annotation is there but cannot be honoured; `reason` says why (for a Warning Event). */
  | { kind: 'ignored'; reason: string }
  | { kind: 'managed'; strategy: DaemonSetStrategy; maxUnavailable: IntOrPercent };

function isStrategy(value: string): value is DaemonSetStrategy {
  return (DAEMONSET_STRATEGIES as readonly string[]).includes(value);
}

export function daemonSetManagement(daemonSet: DaemonSet): DaemonSetManagement {
  const annotations = daemonSet.metadata.annotations ?? {};
  const value = annotations[DAEMONSET_STRATEGY_ANNOTATION];
  if (value === undefined) return { kind: 'unmanaged' };
  if (!isStrategy(value)) {
    return {
      kind: 'ignored',
      reason: `annotation ${DAEMONSET_STRATEGY_ANNOTATION}: ${JSON.stringify(value)} is not one of ${DAEMONSET_STRATEGIES.join(', ')}; nodeherd ignores this DaemonSet`,
    };
  }
  const type = daemonSet.spec?.updateStrategy?.type ?? 'RollingUpdate';
  if (type !== 'OnDelete') {
    return {
      kind: 'ignored',
      reason: `annotation ${DAEMONSET_STRATEGY_ANNOTATION}: ${value} needs spec.updateStrategy.type OnDelete, but it is ${type}; nodeherd ignores this DaemonSet (Kubernetes updates it)`,
    };
  }
  const raw = annotations[DAEMONSET_MAX_UNAVAILABLE_ANNOTATION];
  if (raw === undefined || raw.trim() === '') {
    return { kind: 'managed', strategy: value, maxUnavailable: DEFAULT_MAX_UNAVAILABLE };
  }
  try {
    resolveIntOrPercent(raw, 100, 'down', 1);
  } catch (err) {
    if (!(err instanceof IntOrPercentError)) throw err;
    return {
      kind: 'ignored',
      reason: `annotation ${DAEMONSET_MAX_UNAVAILABLE_ANNOTATION}: ${err.message} (e.g. 2 or 10%); nodeherd does not update this DaemonSet until it is fixed`,
    };
  }
  return { kind: 'managed', strategy: value, maxUnavailable: raw.trim() };
}

// The pool's order (spec.rolloutOrder) with what it sorts by, read from the caches when the pool is
// observed: a label's value per node (by: Label), or the pods a drain would evict from it (by:
// FewestPods, counted as the drain counts them: not DaemonSet, mirror, finished or skipped pods). The
// order itself is rollout/rollout-order.ts's, pure.

import type { rolloutOrderSchema } from '../../api/pool-order-schema.ts';
import type { OutputOf } from '../../api/schema-builder.ts';
import type { LabelSelector } from '../../api/types.ts';
import type { Node, Pod } from '../../kube/types.ts';
import { drainWork } from '../drain/evictable-pods.ts';
import type { NodeOrder } from '../rollout/rollout-order.ts';

export type RolloutOrderSpec = OutputOf<typeof rolloutOrderSchema>;

/** Undefined for the default order (Interleaved): nothing to read. */
export function poolOrder(
  spec: Partial<RolloutOrderSpec> | undefined,
  nodes: readonly Node[],
  podsOn: (node: string) => Pod[],
  skipPods?: LabelSelector,
): NodeOrder | undefined {
  const by = spec?.by ?? 'Interleaved';
  if (by === 'Interleaved') return undefined;
  if (by === 'Zone') return { by };
  const keys = new Map<string, string | number>();
  for (const node of nodes) {
    const name = node.metadata.name;
    if (by === 'Label') {
      const value = spec?.label ? node.metadata.labels?.[spec.label] : undefined;
      if (value !== undefined) keys.set(name, value);
    } else keys.set(name, drainWork(podsOn(name), true, skipPods).evict.length);
  }
  return { by, keys };
}

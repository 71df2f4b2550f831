// What the pool reconciler watches and which pools an event concerns: a node event costs the
// reconcile of the pools selecting it (before and after a label change), a NodeConfig change reaches
// the pools whose config selector matches it (before or after), a revision or a Secret its rendering
// uses reaches its pool; a pool's change reaches the pools waiting for it (waves). What a strategy
// watches of its own is its runtime's (strategies/<name>/).

import { matchesLabelSelector } from '../../api/label-selector.ts';
import { jsonEqual } from '../../util/json-equal.ts';
import type { Informers } from '../controller-context.ts';
import { poolsOfNode } from '../reconciler.ts';
import { waveFollowers, waveNode } from '../waves/wave-graph.ts';
import type { PoolRenderer } from './pool-render.ts';

export function watchPools(
  informers: Informers,
  renderer: PoolRenderer,
  enqueue: (pool: string) => void,
  forget: (pool: string) => void,
): void {
  const { pools, configs, revisions, nodes, pods, secrets } = informers;
  pools.on((type, pool, old) => {
    if (type === 'delete') forget(pool.metadata.name);
    // A selector change may change the membership of every pool.
    const selectorChanged = type !== 'update' || !jsonEqual(old?.spec.nodeSelector, pool.spec.nodeSelector);
    if (selectorChanged) for (const p of pools.list()) enqueue(p.metadata.name);
    enqueue(pool.metadata.name);
    // Waves: the pools that wait for this one decide again when it moves (or appears, or goes).
    for (const follower of waveFollowers(pool.metadata.name, pools.list().map(waveNode))) enqueue(follower);
  });
  configs.on((_type, config, old) => {
    for (const pool of pools.list()) {
      const selector = pool.spec.configSelector;
      if (
        matchesLabelSelector(selector, config.metadata.labels) ||
        (old && matchesLabelSelector(selector, old.metadata.labels))
      )
        enqueue(pool.metadata.name);
    }
  });
  revisions.on((_type, revision) => {
    if (revision.spec?.pool) enqueue(revision.spec.pool);
  });
  nodes.on((_type, node, old) => {
    const before =
      old && !jsonEqual(old.metadata.labels, node.metadata.labels) ? poolsOfNode(informers, old) : [];
    for (const pool of new Set([...poolsOfNode(informers, node), ...before])) enqueue(pool);
  });
  pods.on((_type, pod, old) => {
    const node = pod.spec?.nodeName ?? old?.spec?.nodeName;
    if (node) for (const pool of poolsOfNode(informers, nodes.get(node))) enqueue(pool);
  });
  secrets.on((_type, secret) => {
    for (const pool of renderer.poolsUsingSecret(secret.metadata.namespace ?? '', secret.metadata.name))
      enqueue(pool);
  });
}

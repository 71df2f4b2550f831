// What the pool reconciler watches and which pools an event concerns: a node event costs the
// reconcile of the pools selecting it (before and after a label change), a NodeConfig change reaches
// the pools whose config selector matches it (before or after), a revision, a Serial slot Lease or a
// Secret its rendering uses reaches its pool; a pool's change reaches the pools waiting for it (waves).
// Node and slot Lease events may be paced (PoolReconciler.nodeEventDelayMs: Serial's fast path).

import { matchesLabelSelector } from '../../api/label-selector.ts';
import { SERIAL_POOL_LABEL } from '../../api/node-protocol.ts';
import type { NodeConfigPool } from '../../api/types.ts';
import type { Node } from '../../kube/types.ts';
import { jsonEqual } from '../../util/json-equal.ts';
import type { Informers } from '../controller-context.ts';
import { poolsOfNode } from '../reconciler.ts';
import { waveFollowers, waveNode } from '../waves/wave-graph.ts';
import type { PoolRenderer } from './pool-render.ts';

export interface PoolWatchOptions {
  enqueue: (pool: string) => void;
  enqueueAfter: (pool: string, delayMs: number) => void;
  forget: (pool: string) => void;
  /**
   * How long a Node or slot Lease event waits before it reconciles the pool (0: at once). Every other
   * event (the pool, its configs, revisions, Pods, Secrets) reconciles at once.
   */
  nodeEventDelayMs: (pool: string, node?: Node) => number;
  /** How long a change of only the pool's status waits before it reconciles the pool itself. */
  statusEventDelayMs: (pool: string) => number;
}

/** Whether only the status (and the bookkeeping that comes with any write) differs. */
export function onlyStatusChanged(old: NodeConfigPool, pool: NodeConfigPool): boolean {
  const rest = ({ status: _status, metadata, ...object }: NodeConfigPool) => {
    const { resourceVersion: _rv, managedFields: _mf, ...meta } = metadata;
    return { ...object, metadata: meta };
  };
  return jsonEqual(rest(old), rest(pool));
}

export function watchPools(
  informers: Informers,
  renderer: PoolRenderer,
  { enqueue, enqueueAfter, forget, nodeEventDelayMs, statusEventDelayMs }: PoolWatchOptions,
): void {
  const enqueueForNode = (pool: string, node?: Node) => {
    const delayMs = nodeEventDelayMs(pool, node);
    if (delayMs > 0) enqueueAfter(pool, delayMs);
    else enqueue(pool);
  };
  const { pools, configs, revisions, nodes, pods, secrets, leases } = informers;
  pools.on((type, pool, old) => {
    if (type === 'delete') forget(pool.metadata.name);
    // A selector change may change the membership of every pool.
    const selectorChanged = type !== 'update' || !jsonEqual(old?.spec.nodeSelector, pool.spec.nodeSelector);
    if (selectorChanged) for (const p of pools.list()) enqueue(p.metadata.name);
    // Its own status write (every reconcile that changes the counts) would reconcile it again at once,
    // back to back with itself; paced, a Node event that frees a place is not kept waiting behind it.
    const statusDelayMs =
      type === 'update' && old && onlyStatusChanged(old, pool) ? statusEventDelayMs(pool.metadata.name) : 0;
    if (statusDelayMs > 0) enqueueAfter(pool.metadata.name, statusDelayMs);
    else enqueue(pool.metadata.name);
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
  nodes.on((type, node, old) => {
    const relabelled = old !== undefined && !jsonEqual(old.metadata.labels, node.metadata.labels);
    const before = relabelled ? poolsOfNode(informers, old) : [];
    const pools = new Set([...poolsOfNode(informers, node), ...before]);
    // A node that joins, leaves or moves between pools changes membership: that reconciles at once.
    for (const pool of pools) {
      if (type === 'update' && !relabelled) enqueueForNode(pool, node);
      else enqueue(pool);
    }
  });
  pods.on((_type, pod, old) => {
    const node = pod.spec?.nodeName ?? old?.spec?.nodeName;
    if (node) for (const pool of poolsOfNode(informers, nodes.get(node))) enqueue(pool);
  });
  // A Serial slot taken or released changes its pool's status.
  leases.on((_type, lease, old) => {
    const pool = lease.metadata.labels?.[SERIAL_POOL_LABEL] ?? old?.metadata.labels?.[SERIAL_POOL_LABEL];
    if (pool) enqueueForNode(pool);
  });
  secrets.on((_type, secret) => {
    for (const pool of renderer.poolsUsingSecret(secret.metadata.namespace ?? '', secret.metadata.name))
      enqueue(pool);
  });
}

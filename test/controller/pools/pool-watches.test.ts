// Which events reconcile a pool at once and which may wait (watchPools): with the pool reconciler's
// pacing (nodeEventDelayMs, Serial's fast path), a Node's own update and a slot Lease's change are
// queued after the delay; a node joining, leaving or changing labels, and every pool, config and
// revision change, at once. Real Informers (never started), fed as their watch would feed them.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SERIAL_LEASE_NAMESPACE, SERIAL_POOL_LABEL } from '../../../src/api/node-protocol.ts';
import type { NodeConfigPool, NodeConfigRevision } from '../../../src/api/types.ts';
import type { Informers } from '../../../src/controller/controller-context.ts';
import type { PoolRenderer } from '../../../src/controller/pools/pool-render.ts';
import { watchPools } from '../../../src/controller/pools/pool-watches.ts';
import { Informer } from '../../../src/kube/informer.ts';
import type { KubeClient } from '../../../src/kube/kube-client.ts';
import type { KubeObject, Lease, Node } from '../../../src/kube/types.ts';

function fixture(delays: Record<string, number>, statusDelays: Record<string, number> = {}) {
  const informer = <T extends KubeObject>() => new Informer<T>({} as KubeClient, { path: '/unused' });
  const informers = {
    pools: informer(),
    configs: informer(),
    revisions: informer(),
    nodes: informer(),
    pods: informer(),
    secrets: informer(),
    leases: informer(),
  } as unknown as Informers;
  const calls: string[] = [];
  const asked: { pool: string; node?: string }[] = [];
  watchPools(informers, { poolsUsingSecret: () => [] } as unknown as PoolRenderer, {
    enqueue: (pool) => calls.push(`now ${pool}`),
    enqueueAfter: (pool, ms) => calls.push(`after ${ms} ${pool}`),
    forget: (pool) => calls.push(`forget ${pool}`),
    nodeEventDelayMs: (pool, node) => {
      asked.push({ pool, ...(node ? { node: node.metadata.name } : {}) });
      return delays[pool] ?? 0;
    },
    statusEventDelayMs: (pool) => statusDelays[pool] ?? 0,
  });
  let rv = 0;
  const pool = (name: string, label: string): NodeConfigPool =>
    ({
      apiVersion: 'nodeherd.io/v1alpha1',
      kind: 'NodeConfigPool',
      metadata: { name, resourceVersion: String(++rv) },
      spec: { nodeSelector: { matchLabels: { pool: label } }, configSelector: {} },
    }) as NodeConfigPool;
  const node = (name: string, label: string, annotations: Record<string, string> = {}): Node => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { pool: label }, annotations, resourceVersion: String(++rv) },
  });
  const lease = (name: string, pool: string, holder: string): Lease => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name,
      namespace: SERIAL_LEASE_NAMESPACE,
      labels: { [SERIAL_POOL_LABEL]: pool },
      resourceVersion: String(++rv),
    },
    spec: { holderIdentity: holder },
  });
  return { informers, calls, asked, pool, node, lease };
}

test('a node update of a paced pool is queued after the pool’s delay; an unpaced pool’s at once', () => {
  const f = fixture({ serial: 40 });
  f.informers.pools.upsert(f.pool('serial', 's'));
  f.informers.pools.upsert(f.pool('rolling', 'r'));
  f.informers.nodes.upsert(f.node('a', 's'));
  f.informers.nodes.upsert(f.node('b', 'r'));
  f.calls.length = 0;
  f.asked.length = 0;

  f.informers.nodes.upsert(f.node('a', 's', { state: 'Done' }));
  f.informers.nodes.upsert(f.node('b', 'r', { state: 'Done' }));
  assert.deepEqual(f.calls, ['after 40 serial', 'now rolling']);
  // The pacing is asked with the node, so a node that reports Failed can be let through at once.
  assert.deepEqual(f.asked, [
    { pool: 'serial', node: 'a' },
    { pool: 'rolling', node: 'b' },
  ]);
});

test('a node joining, leaving or moving between pools reconciles every pool concerned at once', () => {
  const f = fixture({ serial: 40, other: 40 });
  f.informers.pools.upsert(f.pool('serial', 's'));
  f.informers.pools.upsert(f.pool('other', 'o'));
  f.calls.length = 0;

  f.informers.nodes.upsert(f.node('a', 's'));
  assert.deepEqual(f.calls, ['now serial'], 'a new node');
  f.calls.length = 0;

  f.informers.nodes.upsert(f.node('a', 'o'));
  assert.deepEqual(
    f.calls.sort(),
    ['now other', 'now serial'],
    'relabelled: the pool it left and the one it joined',
  );
  f.calls.length = 0;

  f.informers.nodes.forget(f.informers.nodes.get('a')!);
  assert.deepEqual(f.calls, ['now other'], 'deleted');
});

test('a slot Lease change of a paced pool waits; pool, config and revision changes never do', () => {
  const f = fixture({ serial: 40 });
  f.informers.pools.upsert(f.pool('serial', 's'));
  f.calls.length = 0;

  f.informers.leases.upsert(f.lease('serial-0', 'serial', 'a'));
  f.informers.leases.upsert(f.lease('serial-0', 'serial', 'b'));
  assert.deepEqual(f.calls, ['after 40 serial', 'after 40 serial']);
  f.calls.length = 0;

  f.informers.pools.upsert(f.pool('serial', 's'));
  f.informers.revisions.upsert({
    apiVersion: 'nodeherd.io/v1alpha1',
    kind: 'NodeConfigRevision',
    metadata: { name: 'serial-abc', resourceVersion: '900' },
    spec: { pool: 'serial' },
  } as unknown as NodeConfigRevision);
  assert.deepEqual(f.calls, ['now serial', 'now serial']);
});

test('a change of only a pool’s status reconciles it after its status delay; any other change at once', () => {
  const f = fixture({}, { serial: 30 });
  const first = f.pool('serial', 's');
  f.informers.pools.upsert(first);
  f.calls.length = 0;

  const counted = {
    ...first,
    metadata: { ...first.metadata, resourceVersion: '100' },
    status: { updatedNodes: 3 },
  };
  f.informers.pools.upsert(counted as NodeConfigPool);
  assert.deepEqual(f.calls, ['after 30 serial'], 'status only');
  f.calls.length = 0;

  const paused = {
    ...counted,
    metadata: { ...counted.metadata, resourceVersion: '101' },
    spec: { ...counted.spec, paused: true },
  };
  f.informers.pools.upsert(paused as NodeConfigPool);
  const annotated = {
    ...paused,
    metadata: { ...paused.metadata, resourceVersion: '102', annotations: { 'nodeherd.io/rollback-to': '1' } },
  };
  f.informers.pools.upsert(annotated as NodeConfigPool);
  assert.deepEqual(f.calls, ['now serial', 'now serial'], 'spec and annotations');
});

// A NodeConfigPool in `nodeherd plan`'s file: the pool as applying it leaves it (the server's status
// and rollback pin kept), which spec fields change (after defaults), and which nodes join or leave.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NodeConfigPool } from '../../../src/api/types.ts';
import { poolChangeOf, poolsAfter } from '../../../src/cli/plan/pool-change.ts';
import type { Node } from '../../../src/kube/types.ts';

const pool = (name: string, spec: Partial<NodeConfigPool['spec']>, extra: Partial<NodeConfigPool> = {}) =>
  ({
    apiVersion: 'nodeherd.io/v1alpha1',
    kind: 'NodeConfigPool',
    metadata: { name },
    spec: { nodeSelector: {}, configSelector: { matchLabels: { pool: name } }, ...spec },
    ...extra,
  }) as NodeConfigPool;

const node = (name: string, zone: string): Node =>
  ({ metadata: { name, labels: { zone } } }) as unknown as Node;

const nodes = [node('a1', 'a'), node('a2', 'a'), node('b1', 'b')];

test('the file’s pool replaces the server’s spec; status and annotations (a rollback pin) stay', () => {
  const server = pool(
    'workers',
    { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } } },
    {
      metadata: {
        name: 'workers',
        annotations: { 'nodeherd.io/rollback-to': 'workers-1', 'nodeherd.io/rollback-from': 'workers-2' },
      },
      status: { targetRevision: 'workers-1' },
    },
  );
  const file = pool('workers', {
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 3 } },
  });
  const [after] = poolsAfter([server], [file]);
  assert.equal(after!.spec.updateStrategy?.rollingUpdate?.maxUnavailable, 3);
  assert.equal(after!.status?.targetRevision, 'workers-1');
  assert.equal(after!.metadata.annotations?.['nodeherd.io/rollback-to'], 'workers-1');
  assert.deepEqual(poolChangeOf({ pool: file, line: 1 }, [server], [after!], nodes), {
    line: 1,
    created: false,
    fields: ['updateStrategy'],
    joining: [],
    leaving: [],
  });
});

test('a default left out is no change; a selector change moves nodes between pools; a new pool is new', () => {
  const server = [
    pool('workers', { nodeSelector: {}, revisionHistoryLimit: 10, paused: false }),
    pool('others', { nodeSelector: { matchLabels: { zone: 'c' } } }),
  ];
  // The file narrows workers to zone a (leaving out the defaults the server filled in) and creates
  // zone-b, which takes b1.
  const narrowed = pool('workers', { nodeSelector: { matchLabels: { zone: 'a' } } });
  const created = pool('zone-b', { nodeSelector: { matchLabels: { zone: 'b' } } });
  const after = poolsAfter(server, [narrowed, created]);
  assert.deepEqual(
    after.map((p) => p.metadata.name),
    ['others', 'workers', 'zone-b'],
  );
  assert.deepEqual(poolChangeOf({ pool: narrowed, line: 1 }, server, after, nodes), {
    line: 1,
    created: false,
    fields: ['nodeSelector'],
    joining: [],
    leaving: ['b1'],
  });
  const change = poolChangeOf({ pool: created, line: 9 }, server, after, nodes);
  assert.equal(change.created, true);
  assert.deepEqual(change.joining, ['b1']);
  assert.deepEqual(change.leaving, []);
});

// The oracle of the kill tests: after the API server is SIGKILLed and restarted, each key must hold
// what its last acknowledged write left, or what the one write in flight on it at the kill made;
// both outcomes of that in-flight write are legal, anything else lost an acknowledged write.

import assert from 'node:assert/strict';

export type WriteOp = 'create' | 'update' | 'delete';

export interface AcknowledgedWrite {
  op: WriteOp;
  seq: number;
  /** resourceVersion the server acknowledged. */
  rv?: number;
}

/**
 * The request that performs `op` on ConfigMap `name` in `collection`: a create, or an update or delete
 * conditional on `rv` (the resourceVersion the writer last saw), carrying `data`.
 */
export function configMapWrite(
  collection: string,
  op: WriteOp,
  name: string,
  rv: string,
  data: Record<string, string>,
): { method: string; path: string; body: unknown } {
  if (op === 'create')
    return {
      method: 'POST',
      path: collection,
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data },
    };
  if (op === 'update')
    return {
      method: 'PUT',
      path: `${collection}/${name}`,
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, resourceVersion: rv }, data },
    };
  return {
    method: 'DELETE',
    path: `${collection}/${name}`,
    body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion: rv } },
  };
}

export interface StoredConfigMap {
  metadata: { resourceVersion: string };
  data: Record<string, string>;
}

/**
 * Asserts that `stored` (the key's object after the restart, undefined when absent) is what `last`
 * (its last acknowledged write) or `pending` (the write in flight at the kill) left, with the content
 * `dataFor(seq)` that write sent. Says whether the in-flight write committed, was lost, or there was
 * nothing in flight to decide.
 */
export function checkKeyAfterKill(
  key: string,
  stored: StoredConfigMap | undefined,
  last: AcknowledgedWrite | undefined,
  pending: AcknowledgedWrite | undefined,
  dataFor: (seq: number) => Record<string, string>,
): 'committed' | 'lost' | 'none' {
  const where = `${key} (last ack ${JSON.stringify(last)}, in flight ${JSON.stringify(pending)})`;
  if (last === undefined || last.op === 'delete') {
    if (stored === undefined) return pending?.op === 'create' ? 'lost' : 'none';
    assert.equal(pending?.op, 'create', `${where}: present without an acknowledged create`);
    assert.equal(stored.data.seq, String(pending!.seq), where);
    return 'committed';
  }
  if (stored === undefined) {
    // Only a delete in flight may have removed it.
    assert.equal(pending?.op, 'delete', `${where}: acknowledged write lost`);
    return 'committed';
  }
  const rv = Number(stored.metadata.resourceVersion);
  assert.ok(rv >= last.rv!, `${where}: resourceVersion went back to ${rv}`);
  if (rv === last.rv) {
    assert.deepEqual(stored.data, dataFor(last.seq), `${where}: content differs`);
    return pending ? 'lost' : 'none';
  }
  // Only the request in flight may have moved it on.
  assert.equal(pending?.op, 'update', `${where}: changed by nobody (rv ${rv})`);
  assert.deepEqual(stored.data, dataFor(pending!.seq), where);
  return 'committed';
}

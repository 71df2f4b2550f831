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

/**
 * A write's answer: a non-2xx one fails the writer; a create's or update's carries the revision it
 * committed at (a ConfigMap DELETE answers a Status, as kube's registry does, which carries none).
 * Returns the key's state as the writer now knows it.
 */
export function acknowledge(
  write: AcknowledgedWrite & { key: string },
  reply: { status: number; json: any },
  who = '',
): { exists: boolean; rv: string } {
  if (reply.status < 200 || reply.status >= 300)
    throw new Error(`${who}${write.op} ${write.key}: HTTP ${reply.status} ${JSON.stringify(reply.json)}`);
  if (write.op === 'delete') return { exists: false, rv: '' };
  write.rv = Number(reply.json.metadata.resourceVersion);
  return { exists: true, rv: reply.json.metadata.resourceVersion };
}

/** Lets writes flow until `acks()` reaches `target` (or `withinMs` passes), then a random moment more. */
export async function untilMidStream(
  acks: () => number,
  target: number,
  withinMs: number,
  pause: { minMs: number; jitterMs: number },
): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (acks() < target && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, pause.minMs + Math.random() * pause.jitterMs));
}

/** The highest revision acknowledged; asserts the list read after the restart covers it. */
export function assertCoversAcknowledged(
  list: { status: number; json: any },
  acked: AcknowledgedWrite[],
  message: string,
): number {
  assert.equal(list.status, 200);
  const maxAcked = Math.max(...acked.filter((w) => w.rv !== undefined).map((w) => w.rv!));
  assert.ok(Number(list.json.metadata.resourceVersion) >= maxAcked, message);
  return maxAcked;
}

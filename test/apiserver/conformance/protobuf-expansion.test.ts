// A protobuf body is bounded by what it decodes to, not only by its size: an empty repeated message is
// two bytes on the wire and an object with its zero-valued fields once decoded, so 3 MiB of them would
// be over a million objects. Refused as too large, quickly, with nothing stored; an ordinary body of
// the same size (one large value) still decodes.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DecodeBudgetExceeded, withDecodeBudget } from '../../../src/apiserver/protobuf/decode-budget.ts';
import { readFields } from '../../../src/apiserver/protobuf/wire.ts';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';
import { bytes, kubeProtobuf, msg, str } from '../protobuf/pb-writer.ts';
import { assertStatus, raw } from './support.ts';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** A Pod whose spec holds `count` empty containers: two bytes each on the wire. */
function podOfEmptyContainers(name: string, count: number): Buffer {
  const emptyContainer = Buffer.from([0x12, 0x00]); // PodSpec.containers (2), length 0
  const spec = bytes(2, Buffer.concat(Array.from({ length: count }, () => emptyContainer)));
  return kubeProtobuf('v1', 'Pod', Buffer.concat([msg(1, str(1, name)), spec]));
}

describe('protobuf expansion', () => {
  let local: LocalApiServer;
  before(async () => {
    local = await startLocalApiServer();
  });
  after(async () => {
    await local.stop();
  });

  test('a body of a million empty repeated messages is 413 and stores nothing', async () => {
    const body = podOfEmptyContainers('expanding', 1_400_000);
    assert.ok(body.length < 3 * 1024 * 1024, `${body.length} bytes: within the body limit`);
    const revision = local.server.store.currentRevision();
    const res = await raw(local, {
      method: 'POST',
      path: '/api/v1/namespaces/default/pods',
      contentType: PROTOBUF,
      body,
    });
    assertStatus(res, 413, 'RequestEntityTooLarge');
    assert.match(res.text, /decodes to more than 6291456 bytes/);
    assert.equal(local.server.store.currentRevision(), revision);
    const health = await raw(local, { method: 'GET', path: '/healthz' });
    assert.equal(health.status, 200);
  });

  test('a ConfigMap of the same size in one value still decodes and is stored', async () => {
    const value = 'x'.repeat(900 * 1024);
    const data = msg(2, str(1, 'big'), str(2, value));
    const configMap = kubeProtobuf('v1', 'ConfigMap', Buffer.concat([msg(1, str(1, 'one-value')), data]));
    const res = await raw(local, {
      method: 'POST',
      path: '/api/v1/namespaces/default/configmaps',
      contentType: PROTOBUF,
      body: configMap,
    });
    assert.equal(res.status, 201, res.text);
  });
});

describe('the decode budget', () => {
  test('counts every field read, nested ones too, and stops at the limit', () => {
    const fields = Buffer.concat(Array.from({ length: 100 }, () => str(1, 'v')));
    assert.equal(
      withDecodeBudget(100 * 32, () => readFields(fields).length),
      100,
    );
    assert.throws(
      () => withDecodeBudget(99 * 32, () => readFields(fields)),
      (error: unknown) => error instanceof DecodeBudgetExceeded && error.limit === 99 * 32,
    );
  });

  test('outside a budget nothing is charged; budgets nest and restore', () => {
    const fields = Buffer.concat(Array.from({ length: 10 }, () => str(1, 'v')));
    assert.equal(readFields(fields).length, 10);
    withDecodeBudget(1_000_000, () => {
      assert.throws(() => withDecodeBudget(32, () => readFields(fields)), DecodeBudgetExceeded);
      assert.equal(readFields(fields).length, 10);
    });
  });
});

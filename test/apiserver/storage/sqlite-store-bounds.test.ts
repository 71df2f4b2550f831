// The store cannot fill the disk unbounded (issue 32): its history is bounded in bytes, not only by
// count, and at its quota it refuses creates and updates while deletes, compaction and Lease renewals go
// on, clearing the alarm once the space is back. Limits are scaled down so each test ends at once.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setImmediate as afterTurn } from 'node:timers/promises';
import { SqliteStore } from '../../../src/apiserver/storage/sqlite-store.ts';
import { type StorageUsage, StoreQuotaExceededError } from '../../../src/apiserver/storage/types.ts';

const KIB = 1024;

function withDir(run: (dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nodeherd-store-bounds-'));
    try {
      await run(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

function configMap(name: string, bytes: number, fill = 'x'): Record<string, unknown> {
  return { metadata: { name }, data: { blob: fill.repeat(bytes) } };
}

test(
  'the history is bounded in bytes: 200 updates of 20 KiB keep at most the byte budget, whatever the count',
  withDir(async (dir) => {
    const store = SqliteStore.open(join(dir, 'state.db'), { retainHistoryBytes: 200 * KIB });
    try {
      const key = '/core/configmaps/default/big';
      let revision = store.create(key, configMap('big', 20 * KIB)).revision;
      for (let i = 0; i < 200; i++) {
        revision = store.update(key, revision, configMap('big', 20 * KIB, String(i % 10))).revision;
        // Compaction runs after the turn, as it does between requests.
        if (i % 10 === 9) await afterTurn();
      }
      await afterTurn();
      const usage = store.usage();
      assert.ok(usage.historyBytes <= 200 * KIB, `history ${usage.historyBytes} bytes`);
      // The count-based window (10,000 revisions) would have kept all 200 (4 MiB).
      assert.ok(store.compactedRevision() > 100, `compacted to ${store.compactedRevision()}`);
      assert.ok(usage.usedBytes < 1024 * KIB, `database uses ${usage.usedBytes} bytes`);
      // The newest state is intact, and history after the compaction point still replays.
      assert.equal(store.get(key)?.object.data.blob, '9'.repeat(20 * KIB));
      const events = store.eventsSince('/core/configmaps/', store.compactedRevision());
      assert.ok(events.length >= 1 && events.length <= 11);
    } finally {
      store.close();
    }
    // Reopened, the store counts the same history from the log.
    const reopened = SqliteStore.open(join(dir, 'state.db'), { retainHistoryBytes: 200 * KIB });
    try {
      assert.ok(reopened.usage().historyBytes <= 200 * KIB);
      assert.ok(reopened.usage().historyBytes > 0);
    } finally {
      reopened.close();
    }
  }),
);

test(
  'at its quota the store refuses creates and updates, keeps deletes and Lease renewals, and clears when space is back',
  withDir(async (dir) => {
    const alarms: StorageUsage[] = [];
    const options = { quotaBytes: 600 * KIB, onQuotaAlarm: (u: StorageUsage) => alarms.push(u) };
    const store = SqliteStore.open(join(dir, 'state.db'), options);
    try {
      const leaseKey = '/coordination.k8s.io/leases/kube-node-lease/n1';
      let lease = store.create(leaseKey, { metadata: { name: 'n1' }, spec: { renewTime: 't0' } });
      const victim = store.create('/core/configmaps/default/victim', configMap('victim', 10));
      const finalized = store.create('/core/configmaps/default/finalized', {
        metadata: { name: 'finalized', finalizers: ['example.com/keep'] },
      });
      const written: string[] = [];
      let refused: unknown;
      for (let i = 0; i < 100 && refused === undefined; i++) {
        const key = `/core/configmaps/default/fill-${i}`;
        try {
          store.create(key, configMap(`fill-${i}`, 50 * KIB));
          written.push(key);
        } catch (error) {
          refused = error;
        }
      }
      assert.ok(refused instanceof StoreQuotaExceededError, `refused with ${String(refused)}`);
      assert.match(refused.message, /etcdserver: mvcc: database space exceeded/);
      assert.ok(written.length >= 8 && written.length < 100, `${written.length} objects written`);
      assert.equal(store.usage().quotaExceeded, true);
      assert.equal(alarms.length, 1);
      assert.equal(alarms[0]?.quotaExceeded, true);

      // Refused: a create and a plain update. Nothing changed.
      const before = store.currentRevision();
      assert.throws(
        () => store.create('/core/configmaps/default/more', configMap('more', 1)),
        StoreQuotaExceededError,
      );
      assert.throws(
        () => store.update(victim.key, victim.revision, configMap('victim', 20)),
        StoreQuotaExceededError,
      );
      assert.equal(store.currentRevision(), before);
      assert.equal(store.get(victim.key)?.object.data.blob, 'x'.repeat(10));

      // Go on: a Lease renewal, a deletion in progress (finalizers going), a delete.
      lease = store.update(leaseKey, lease.revision, { metadata: { name: 'n1' }, spec: { renewTime: 't1' } });
      assert.equal(store.get(leaseKey)?.object.spec.renewTime, 't1');
      store.update(finalized.key, finalized.revision, {
        metadata: { name: 'finalized', deletionTimestamp: '2026-01-01T00:00:00Z' },
      });
      store.delete(finalized.key);
      store.delete(victim.key);

      // Deletes free space once compacted, which happens after the turn; the alarm clears.
      for (const key of written.slice(0, 4)) store.delete(key);
      await afterTurn();
      await afterTurn();
      assert.equal(store.usage().quotaExceeded, false, JSON.stringify(store.usage()));
      assert.equal(alarms.length, 2);
      assert.equal(alarms[1]?.quotaExceeded, false);
      store.create('/core/configmaps/default/after', configMap('after', 10));
      assert.ok(store.get('/core/configmaps/default/after'));
      // Every write acknowledged before the alarm is still there.
      for (const key of written.slice(4)) assert.ok(store.get(key), key);
    } finally {
      store.close();
    }
  }),
);

test(
  'a store reopened over its quota starts with the alarm raised',
  withDir(async (dir) => {
    const path = join(dir, 'state.db');
    const store = SqliteStore.open(path);
    for (let i = 0; i < 6; i++) store.create(`/core/configmaps/default/c${i}`, configMap(`c${i}`, 50 * KIB));
    store.close();
    const reopened = SqliteStore.open(path, { quotaBytes: 200 * KIB });
    try {
      assert.equal(reopened.usage().quotaExceeded, true);
      assert.throws(
        () => reopened.create('/core/configmaps/default/x', configMap('x', 1)),
        StoreQuotaExceededError,
      );
      assert.equal(reopened.list('/core/configmaps/').items.length, 6);
    } finally {
      reopened.close();
    }
  }),
);

test('bad bounds are refused with the option named', () => {
  assert.throws(
    () => SqliteStore.open(':memory:', { quotaBytes: 0 }),
    /quotaBytes must be a positive integer/,
  );
  assert.throws(
    () => SqliteStore.open(':memory:', { retainHistoryBytes: -1 }),
    /retainHistoryBytes must be a non-negative integer/,
  );
});

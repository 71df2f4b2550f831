// Leader election on a Lease of the embedded API server.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KubeClient } from '../../src/kube/kube-client.ts';
import { LeaderElector } from '../../src/kube/leader-election.ts';
import type { Lease } from '../../src/kube/types.ts';
import { adminKubeClient, type LocalApiServer, startLocalApiServer } from '../support/local-apiserver.ts';

const TIMING = { leaseDurationMs: 1_500, renewDeadlineMs: 1_000, retryPeriodMs: 200 };

async function eventually(what: string, check: () => boolean, ms = 10_000): Promise<number> {
  const start = performance.now();
  while (!check()) {
    if (performance.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return performance.now() - start;
}

describe('leader election', () => {
  let local: LocalApiServer;
  let client: KubeClient;
  const log: string[] = [];

  function elector(identity: string, name: string): LeaderElector {
    return new LeaderElector({
      client,
      namespace: 'nodeherd',
      name,
      identity,
      ...TIMING,
      onStartedLeading: () => {
        log.push(`${identity} leads`);
      },
      onStoppedLeading: () => {
        log.push(`${identity} stops`);
      },
    });
  }

  before(async () => {
    local = await startLocalApiServer();
    client = adminKubeClient(local);
  });
  after(async () => {
    client?.close();
    await local?.stop();
  });

  test('one leader at a time; a crashed leader is replaced after the lease duration, a stopped one at once', async () => {
    const a = elector('a', 'election');
    const b = elector('b', 'election');
    a.start();
    await eventually('a leads', () => a.isLeader);
    b.start();
    await new Promise((r) => setTimeout(r, TIMING.retryPeriodMs * 4));
    assert.equal(b.isLeader, false);
    const lease = await client.get<Lease>('/apis/coordination.k8s.io/v1/namespaces/nodeherd/leases/election');
    assert.equal(lease.spec?.holderIdentity, 'a');
    assert.equal(lease.spec?.leaseDurationSeconds, 2);

    // Crash: no release; b waits for the lease to expire by its own clock.
    await a.stop({ release: false });
    const takeover = await eventually('b leads', () => b.isLeader);
    assert.ok(
      takeover >= TIMING.leaseDurationMs - TIMING.retryPeriodMs * 2,
      `not before expiry: ${takeover} ms`,
    );
    // Not a timing target (a loaded machine delays any poll): it proves the takeover follows expiry,
    // not some much later event.
    assert.ok(takeover <= TIMING.leaseDurationMs * 3, `soon after the lease expired: ${takeover} ms`);
    const taken = await client.get<Lease>('/apis/coordination.k8s.io/v1/namespaces/nodeherd/leases/election');
    assert.equal(taken.spec?.holderIdentity, 'b');
    assert.equal(taken.spec?.leaseTransitions, 1);

    // Clean stop: the lease is released and the next candidate need not wait.
    const c = elector('c', 'election');
    c.start();
    await b.stop();
    const handover = await eventually('c leads', () => c.isLeader);
    assert.ok(handover < TIMING.leaseDurationMs, `released: ${handover} ms`);
    await c.stop();
    assert.deepEqual(log, ['a leads', 'a stops', 'b leads', 'b stops', 'c leads', 'c stops']);
  });

  test('a leader that cannot renew steps down before its lease could expire for others', async () => {
    const d = elector('d', 'fragile');
    d.start();
    await eventually('d leads', () => d.isLeader);
    // Someone takes the lease away (as after a partition): d sees another holder and steps down.
    const path = '/apis/coordination.k8s.io/v1/namespaces/nodeherd/leases/fragile';
    const lease = await client.get<Lease>(path);
    await client.replace(path, {
      ...lease,
      spec: {
        ...lease.spec,
        holderIdentity: 'intruder',
        renewTime: new Date().toISOString().replace('Z', '000Z'),
      },
    });
    await eventually('d steps down', () => !d.isLeader, 5_000);
    await d.stop();
  });
});

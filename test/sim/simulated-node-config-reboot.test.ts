// A simulated node handed a revision whose disruption is Reboot reboots once, comes back on that
// revision, and the fleet stops afterwards. Before the fix the node stayed `down` with 0 reboots, its
// agent `Applying`, and the harness's stop hung: the node's serialised reboot() waited in halt() for the
// agent to stop, while the agent (told to carry on after asking the queued reboot) kept asking for it.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CURRENT_REVISION_ANNOTATION } from '../../src/api/node-protocol.ts';
import type { NodeConfigSpec } from '../../src/api/types.ts';
import { ClusterHarness, condition, eventually, revisionNameFor } from '../support/cluster-harness.ts';

const POOL = 'sysctl';

function sysctlConfig(value: string): NodeConfigSpec {
  return {
    files: [
      { path: '/etc/sysctl.d/90-nodeherd.conf', content: { inline: { data: `vm.swappiness=${value}\n` } } },
    ],
    disruptionPolicies: { files: [{ path: '/etc/sysctl.d/**', action: 'Reboot' }] },
  };
}

/** Rejects when `work` has not settled within `ms` (a hang fails the test instead of stalling it). */
function within<T>(what: string, ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

describe('a simulated node given a revision whose disruption is Reboot', { timeout: 120_000 }, () => {
  let h: ClusterHarness;
  let stopped = false;

  before(async () => {
    h = await ClusterHarness.start({ fleet: { rebootDownMs: 200 } });
    await h.startController();
    await h.fleet.add(1, { labels: { pool: POOL } });
    await h.createPool(POOL, {
      nodeSelector: { matchLabels: { pool: POOL } },
      configSelector: { matchLabels: { pool: POOL } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { progressDeadlineSeconds: 60 } },
    });
  });
  after(async () => {
    if (!stopped && h) await within('the harness stop', 30_000, h.stop());
  });

  test('reboots once, comes back on the revision, and the fleet stops', async () => {
    await h.applyConfig('sysctl', sysctlConfig('1'), { pool: POOL });
    const revision = revisionNameFor(POOL, { sysctl: sysctlConfig('1') });
    const [name] = h.fleet.names() as [string];
    const node = h.fleet.node(name)!;
    await eventually(
      'the pool completes on the revision',
      async () => {
        const pool = await h.getPool(POOL);
        return pool.status?.currentRevision === revision && condition(pool, 'Complete')?.status === 'True'
          ? pool
          : undefined;
      },
      60_000,
    );
    assert.equal(node.host.reboots, 1, 'rebooted once');
    assert.equal(node.state, 'up');
    const [nodeObject] = await h.nodes(`pool=${POOL}`);
    assert.equal(nodeObject?.metadata.annotations?.[CURRENT_REVISION_ANNOTATION], revision);
    stopped = true;
    await within('the harness stop', 30_000, h.stop());
  });
});

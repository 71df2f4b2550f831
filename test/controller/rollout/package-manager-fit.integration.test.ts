// A pool of apt and dnf nodes (simulated, each agent reporting its manager in
// nodeherd.io/package-manager) gets a revision whose package is dnf's: the dnf nodes apply it, the apt
// nodes are not started on it (no failure, no pause), and the pool's PackageManagerMismatch condition
// and a Warning Event name them.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  CURRENT_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  PACKAGE_MANAGER_ANNOTATION,
} from '../../../src/api/node-protocol.ts';
import type { NodeConfigSpec } from '../../../src/api/types.ts';
import {
  ClusterHarness,
  complete,
  condition,
  eventually,
  kubeletConfig,
  type PoolObject,
  revisionNameFor,
  rollingUpdate,
} from '../../support/cluster-harness.ts';

const POOL = 'mixed';

describe('a revision for dnf on a pool of apt and dnf nodes', () => {
  let h: ClusterHarness;
  let second = '';
  const poolWhere = (what: string, ok: (p: PoolObject) => boolean) => h.poolWhere(POOL, what, ok, 60_000);

  before(async () => {
    h = await ClusterHarness.start({ fleet: { packages: { available: { htop: ['3.3.0-1.el9'] } } } });
    await h.startController();
    await h.addNodes(POOL, 2, { namePrefix: 'deb-' });
    await h.addNodes(POOL, 2, { namePrefix: 'rpm-', packageManager: 'dnf' });
    await h.labelledPool(POOL, 'mixed-kubelet', kubeletConfig('a'), {
      updateStrategy: rollingUpdate({ progressDeadlineSeconds: 60 }),
    });
  });
  after(async () => {
    await h?.stop();
  });

  test('the apt nodes are not started, neither failed nor counted, and the pool says why', async () => {
    await poolWhere('bootstrapped', (p) => complete()(p) && p.status?.updated === 4);
    await eventually('every node reports its package manager', async () => {
      const nodes = await h.nodes(`pool=${POOL}`);
      const reported = Object.fromEntries(
        nodes.map((n) => [n.metadata.name, n.metadata.annotations?.[PACKAGE_MANAGER_ANNOTATION]]),
      );
      return Object.values(reported).every((m) => m !== undefined) ? reported : undefined;
    }).then((reported) =>
      assert.deepEqual(reported, {
        'deb-0001': 'apt',
        'deb-0002': 'apt',
        'rpm-0003': 'dnf',
        'rpm-0004': 'dnf',
      }),
    );
    const first = revisionNameFor(POOL, { 'mixed-kubelet': kubeletConfig('a') });

    const withHtop: NodeConfigSpec = { packages: [{ name: 'htop', manager: 'dnf', version: '3.3.0' }] };
    await h.applyConfig('mixed-htop', withHtop, { pool: POOL });
    second = revisionNameFor(POOL, { 'mixed-kubelet': kubeletConfig('a'), 'mixed-htop': withHtop });
    const pool = await poolWhere(
      'the dnf nodes on the new revision, the mismatch said',
      (p) =>
        p.status?.targetRevision === second &&
        condition(p, 'PackageManagerMismatch')?.status === 'True' &&
        (p.status?.updated ?? 0) === 2,
    );
    const mismatch = condition(pool, 'PackageManagerMismatch')!;
    assert.match(mismatch.message ?? '', /2 nodes not started/);
    assert.match(
      mismatch.message ?? '',
      /deb-0001 \(the revision's repositories and packages are for dnf; this node's package manager is apt/,
    );
    assert.equal(pool.status?.failed, 0, 'a node never started is no failure');
    assert.notEqual(condition(pool, 'Paused')?.status, 'True');

    const nodes = await h.nodes(`pool=${POOL}`);
    const current = Object.fromEntries(
      nodes.map((n) => [n.metadata.name, n.metadata.annotations?.[CURRENT_REVISION_ANNOTATION]]),
    );
    assert.deepEqual(current, {
      'deb-0001': first,
      'deb-0002': first,
      'rpm-0003': second,
      'rpm-0004': second,
    });
    assert.equal(h.fleet.node('rpm-0003')!.packages.installed().htop, '3.3.0-1.el9');
    assert.equal(h.fleet.node('deb-0001')!.packages.installed().htop, undefined);

    const events = await eventually('a Warning Event on the pool', async () => {
      const list = await h.events('NodeConfigPool', POOL);
      return list.some((e) => e.reason === 'NotStarted') ? list : undefined;
    });
    const event = events.find((e) => e.reason === 'NotStarted')!;
    assert.equal(event.type, 'Warning');
    assert.match(event.message, /PackageManagerMismatch True/);
  });

  test('an apt node given the revision anyway (by hand, or before it reported) fails, and that failure counts', async () => {
    await h.admin.patch(
      '/api/v1/nodes/deb-0002',
      { metadata: { annotations: { [DESIRED_REVISION_ANNOTATION]: second } } },
      'merge',
    );
    const pool = await poolWhere('the started apt node failed', (p) => p.status?.failed === 1);
    assert.match(condition(pool, 'Degraded')?.message ?? '', /deb-0002/);
    const mismatch = condition(pool, 'PackageManagerMismatch');
    assert.match(
      mismatch?.message ?? '',
      /1 node not started on .*deb-0001/,
      'the started node is judged, not skipped',
    );
    const node = (await h.nodes(`pool=${POOL}`)).find((n) => n.metadata.name === 'deb-0002')!;
    assert.match(
      node.metadata.annotations?.['nodeherd.io/message'] ?? '',
      /package manager is apt; the config asks for dnf/,
    );
  });

  test('a Serial pool hands the revision out to its dnf node only', async () => {
    const SERIAL = 'mixed-serial';
    await h.fleet.add(1, { labels: { pool: SERIAL }, namePrefix: 'sdeb-' });
    await h.fleet.add(1, { labels: { pool: SERIAL }, namePrefix: 'srpm-', packageManager: 'dnf' });
    await h.applyConfig('serial-kubelet', kubeletConfig('s'), { pool: SERIAL });
    await h.createPool(SERIAL, {
      nodeSelector: { matchLabels: { pool: SERIAL } },
      configSelector: { matchLabels: { pool: SERIAL } },
      updateStrategy: { type: 'Serial', serial: { slots: 1, leaseDurationSeconds: 10 } },
    } as never);
    const bootstrapped = async () => {
      const p = await h.getPool(SERIAL);
      return p.status?.updated === 2 ? p : undefined;
    };
    await eventually('the Serial pool bootstrapped', bootstrapped, 60_000);
    const withHtop: NodeConfigSpec = { packages: [{ name: 'htop', manager: 'dnf', version: '3.3.0' }] };
    await h.applyConfig('serial-htop', withHtop, { pool: SERIAL });
    const target = revisionNameFor(SERIAL, { 'serial-kubelet': kubeletConfig('s'), 'serial-htop': withHtop });
    const pool = await eventually(
      'the dnf node on the target, the mismatch said',
      async () => {
        const p = await h.getPool(SERIAL);
        const nodes = await h.nodes(`pool=${SERIAL}`);
        const rpm = nodes.find((n) => n.metadata.name.startsWith('srpm-'));
        return p.status?.targetRevision === target &&
          rpm?.metadata.annotations?.[CURRENT_REVISION_ANNOTATION] === target &&
          condition(p, 'PackageManagerMismatch')?.status === 'True'
          ? p
          : undefined;
      },
      60_000,
    );
    assert.match(
      condition(pool, 'PackageManagerMismatch')?.message ?? '',
      /1 node not started.*sdeb-\d{4} \(.*package manager is apt/,
    );
    const deb = (await h.nodes(`pool=${SERIAL}`)).find((n) => n.metadata.name.startsWith('sdeb-'))!;
    assert.notEqual(deb.metadata.annotations?.[DESIRED_REVISION_ANNOTATION], target, 'never handed out');
    assert.equal(pool.status?.failed, 0);
  });
});

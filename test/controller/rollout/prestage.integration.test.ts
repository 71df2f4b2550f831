// Pre-staging on the simulated fleet (issue 35.4), through the embedded API server: a pool with
// spec.prestage upgrades a package whose change drains the node. Every node is told to pre-stage
// (nodeherd.io/prestage-revision) before its turn, at most maxConcurrent downloading at once; its agent
// downloads (the simulated apt's cache) and answers nodeherd.io/prestaged; the node is cordoned only
// after its download succeeded, its install then takes no download, and the asks are gone at the end.
// Then a version that does not exist fails the canary at download, before any drain: no node is
// cordoned or handed the revision, and the failure policy pauses the pool naming apt's error.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  DESIRED_REVISION_ANNOTATION,
  PRESTAGE_REVISION_ANNOTATION,
  PRESTAGED_ANNOTATION,
  parsePrestageReport,
} from '../../../src/api/node-protocol.ts';
import { CORDONED_BY_ANNOTATION } from '../../../src/controller/annotations.ts';
import type { Node } from '../../../src/kube/types.ts';
import {
  ClusterHarness,
  condition,
  eventually,
  htopDrainingConfig,
  type PoolObject,
  poolSelecting,
  revisionNameFor,
  rollingUpdate,
} from '../../support/cluster-harness.ts';
import { NodeWatch } from '../support/node-watch.ts';

const POOL = 'prestaging';
const CONFIG = 'prestaging-packages';
const NODES = 5;
interface Seen {
  /** When (performance.now) the node was first seen with an answer Downloaded for the revision. */
  downloaded?: number;
  /** When it was first seen cordoned by us / handed the revision. */
  cordoned?: number;
  handed?: number;
}

describe('pre-staging on the simulated fleet', () => {
  let h: ClusterHarness;
  let watch: NodeWatch;
  /** The revision being watched for, and what was seen of it per node. */
  let watching = '';
  let seen = new Map<string, Seen>();
  /** Most nodes asked and not answered at once (downloading), for the revision watched. */
  let maxDownloading = 0;
  const downloading = new Set<string>();
  /** Nodes cordoned by us or handed the watched revision at any time since it was set. */
  const cordonedEver = new Set<string>();

  const poolWhere = (what: string, ok: (p: PoolObject) => boolean, ms = 90_000) =>
    h.poolWhere(POOL, what, ok, ms);
  function watchFor(revision: string) {
    watching = revision;
    seen = new Map();
    downloading.clear();
    cordonedEver.clear();
    maxDownloading = 0;
  }

  before(async () => {
    h = await ClusterHarness.start({
      fleet: {
        packages: { available: { htop: ['3.2.1', '3.2.2'] }, durations: { download: 400, install: 20 } },
      },
    });
    await h.startController();
    watch = new NodeWatch(h.controllerConfig());
    watch.on((node: Node, at) => {
      if (node.metadata.labels?.pool !== POOL || !watching) return;
      const name = node.metadata.name;
      const a = node.metadata.annotations ?? {};
      const s = seen.get(name) ?? {};
      seen.set(name, s);
      const report = parsePrestageReport(a[PRESTAGED_ANNOTATION]);
      const answered = report?.revision === watching;
      if (answered && report.outcome === 'Downloaded') s.downloaded ??= at;
      if (a[CORDONED_BY_ANNOTATION] !== undefined) {
        s.cordoned ??= at;
        cordonedEver.add(name);
      }
      if (a[DESIRED_REVISION_ANNOTATION] === watching) s.handed ??= at;
      if (a[PRESTAGE_REVISION_ANNOTATION] === watching && !answered) downloading.add(name);
      else downloading.delete(name);
      maxDownloading = Math.max(maxDownloading, downloading.size);
    });
    await watch.start();
    await h.fleet.add(NODES, { labels: { pool: POOL } });
    await h.applyConfig(CONFIG, htopDrainingConfig('3.2.1'), { pool: POOL });
    await h.createPool(
      POOL,
      poolSelecting(POOL, {
        updateStrategy: rollingUpdate({
          canary: { nodes: 1 },
          progressDeadlineSeconds: 60,
          failurePolicy: { action: 'Pause', maxFailures: 0 },
        }),
        prestage: { maxConcurrent: 2 },
      } as never),
    );
    await poolWhere(
      'bootstrapped',
      (p) => condition(p, 'Complete')?.status === 'True' && p.status?.updated === NODES,
    );
  });
  after(async () => {
    await watch?.stop();
    await h?.stop();
  });

  test('every node downloads before its turn, at most 2 at once, and is cordoned only after', async () => {
    const revision = revisionNameFor(POOL, { [CONFIG]: htopDrainingConfig('3.2.2') });
    watchFor(revision);
    await h.applyConfig(CONFIG, htopDrainingConfig('3.2.2'), { pool: POOL });
    await poolWhere(
      'complete on the upgrade',
      (p) => p.status?.currentRevision === revision && condition(p, 'Complete')?.status === 'True',
    );
    for (const name of h.fleet.names()) {
      const s = seen.get(name);
      assert.ok(s?.downloaded !== undefined, `${name} answered Downloaded`);
      assert.ok(
        s.cordoned !== undefined && s.handed !== undefined,
        `${name} was drained and handed the revision`,
      );
      assert.ok(s.downloaded < s.cordoned, `${name} downloaded before it was cordoned`);
      const packages = h.fleet.node(name)!.packages;
      assert.equal(packages.installed().htop, '3.2.2');
      // The download was the pre-stage's, before the install, which found the package in the cache.
      const calls = packages.calls.filter((c) => c.target?.includes('htop') && c.finishedAt! >= 0);
      const download = calls.findLast((c) => c.op === 'download');
      const install = calls.findLast((c) => c.op === 'install');
      assert.ok(
        download && install && download.finishedAt! <= install.startedAt,
        `${name}: download, then install`,
      );
    }
    assert.ok(maxDownloading <= 2, `at most maxConcurrent (2) downloading at once, saw ${maxDownloading}`);
    await h.untilNoNodeCarries(
      `pool=${POOL}`,
      [PRESTAGE_REVISION_ANNOTATION, PRESTAGED_ANNOTATION],
      'the asks and answers are gone',
    );
  });

  test('a version that does not exist fails the canary at download, before any drain', async () => {
    const revision = revisionNameFor(POOL, { [CONFIG]: htopDrainingConfig('9.9') });
    watchFor(revision);
    await h.applyConfig(CONFIG, htopDrainingConfig('9.9'), { pool: POOL });
    // spec.paused and the status saying why are two writes: wait for both.
    const paused = await poolWhere(
      'paused by the failure policy, saying why',
      (p) =>
        p.spec?.paused === true &&
        /download of .* packages failed before its turn/.test(JSON.stringify(p.status?.conditions ?? [])),
    );
    const message = JSON.stringify(paused.status?.conditions ?? []);
    assert.match(message, /download of .* packages failed before its turn/);
    assert.match(message, /Version '9\.9' for 'htop' was not found/);
    assert.deepEqual([...cordonedEver], [], 'no node was cordoned or drained');
    for (const name of h.fleet.names()) {
      assert.equal(seen.get(name)?.handed, undefined, `${name} was not handed the revision`);
      assert.equal(h.fleet.node(name)!.packages.installed().htop, '3.2.2', `${name} kept its version`);
    }
    const asked = [...seen.entries()].filter(([, s]) => s.downloaded !== undefined);
    assert.deepEqual(asked, [], 'nothing downloaded');
    const events = await h.events('NodeConfigPool', POOL);
    assert.ok(
      events.some((e) => /Version '9\.9' for 'htop' was not found/.test(e.message)),
      'an Event says why',
    );
    // Paused: the asks go.
    await eventually(
      'the asks are gone',
      async () =>
        (await h.nodes(`pool=${POOL}`)).every((n) => !n.metadata.annotations?.[PRESTAGE_REVISION_ANNOTATION])
          ? true
          : undefined,
      30_000,
    );
  });
});

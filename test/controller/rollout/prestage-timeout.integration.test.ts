// spec.prestage.timeoutSeconds on the simulated fleet, through the embedded API server: one node's
// agent is of a release before pre-staging (it never answers nodeherd.io/prestage-revision). With a
// 2 s timeout the controller stops waiting for it: the node starts its turn anyway and its packages
// download inside it, a Warning Event PrestageTimedOut on the Node and on the pool names it and the
// bound, and the rollout completes. The other nodes still download before their turn. Outcomes only:
// no assertion on how long anything took.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  PRESTAGE_ASKED_AT_ANNOTATION,
  PRESTAGE_REVISION_ANNOTATION,
  PRESTAGED_ANNOTATION,
  parsePrestageReport,
} from '../../../src/api/node-protocol.ts';
import { CORDONED_BY_ANNOTATION } from '../../../src/controller/annotations.ts';
import type { Node } from '../../../src/kube/types.ts';
import {
  ClusterHarness,
  complete,
  htopDrainingConfig,
  poolSelecting,
  revisionNameFor,
  rollingUpdate,
} from '../../support/cluster-harness.ts';
import { NodeWatch } from '../support/node-watch.ts';

const POOL = 'prestage-timeout';
const CONFIG = 'prestage-timeout-packages';
const NODES = 3;

describe('an agent that never answers its pre-stage ask', () => {
  let h: ClusterHarness;
  let watch: NodeWatch;
  /** The node whose agent does not know pre-staging. */
  let old = '';
  let watching = '';
  /** Per node: seen asked for the revision with a time; answered Downloaded (and when); first cordoned. */
  const asked = new Set<string>();
  /** Per node: every time of its ask for the revision seen (one: it is kept while the ask stands). */
  const askTimes = new Map<string, Set<string>>();
  const answered = new Map<string, number>();
  const cordoned = new Map<string, number>();

  before(async () => {
    h = await ClusterHarness.start({
      fleet: {
        packages: { available: { htop: ['3.2.1', '3.2.2'] }, durations: { download: 200, install: 20 } },
      },
      agents: { withoutPrestage: (name) => name === old },
    });
    await h.startController();
    watch = new NodeWatch(h.controllerConfig());
    watch.on((node: Node, at) => {
      if (node.metadata.labels?.pool !== POOL || !watching) return;
      const name = node.metadata.name;
      const a = node.metadata.annotations ?? {};
      const askedAt = a[PRESTAGE_ASKED_AT_ANNOTATION];
      if (a[PRESTAGE_REVISION_ANNOTATION] === watching && askedAt) {
        asked.add(name);
        askTimes.set(name, (askTimes.get(name) ?? new Set()).add(askedAt));
      }
      const report = parsePrestageReport(a[PRESTAGED_ANNOTATION]);
      if (report?.revision === watching && report.outcome === 'Downloaded' && !answered.has(name))
        answered.set(name, at);
      if (a[CORDONED_BY_ANNOTATION] !== undefined && !cordoned.has(name)) cordoned.set(name, at);
    });
    await watch.start();
    // The second node of the fleet's names runs the old agent (named before the agents start).
    old = 'sim-0002';
    await h.fleet.add(NODES, { labels: { pool: POOL } });
    assert.ok(
      h.fleet.names().includes(old),
      `the fleet names its nodes as expected (${h.fleet.names().join(', ')})`,
    );
    await h.applyConfig(CONFIG, htopDrainingConfig('3.2.1'), { pool: POOL });
    await h.createPool(
      POOL,
      poolSelecting(POOL, {
        updateStrategy: rollingUpdate({
          progressDeadlineSeconds: 60,
          failurePolicy: { action: 'Pause', maxFailures: 0 },
        }),
        prestage: { maxConcurrent: 3, timeoutSeconds: 2 },
      } as never),
    );
    await h.poolWhere(POOL, 'bootstrapped', (p) => complete()(p) && p.status?.updated === NODES, 60_000);
  });
  after(async () => {
    await watch?.stop();
    await h?.stop();
  });

  test('the node starts its turn after the timeout, a Warning Event says so, and the rollout completes', async () => {
    const revision = revisionNameFor(POOL, { [CONFIG]: htopDrainingConfig('3.2.2') });
    watching = revision;
    await h.applyConfig(CONFIG, htopDrainingConfig('3.2.2'), { pool: POOL });
    await h.poolWhere(
      POOL,
      'complete on the upgrade',
      (p) => p.status?.currentRevision === revision && complete()(p),
      60_000,
    );
    for (const name of h.fleet.names()) {
      assert.equal(h.fleet.node(name)!.packages.installed().htop, '3.2.2', `${name} upgraded`);
      assert.ok(asked.has(name), `${name} was asked to pre-stage, with the time of the ask`);
    }
    assert.equal(answered.has(old), false, `${old} never answered`);
    assert.equal(
      askTimes.get(old)?.size,
      1,
      `${old}'s ask kept its time while it waited: ${[...(askTimes.get(old) ?? [])]}`,
    );
    for (const name of h.fleet.names().filter((n) => n !== old)) {
      const at = answered.get(name);
      assert.ok(at !== undefined && at < cordoned.get(name)!, `${name} downloaded before its cordon`);
    }
    // The old node's install downloaded inside its turn: no pre-stage download on it.
    const calls = h.fleet.node(old)!.packages.calls;
    assert.equal(
      calls.filter((c) => c.op === 'download').length,
      0,
      `${old}'s agent never pre-staged anything`,
    );

    const timedOut = (events: { reason: string; type: string; message: string }[]) =>
      events.find((e) => e.reason === 'PrestageTimedOut');
    const onNode = timedOut(await h.events('Node', old));
    assert.equal(onNode?.type, 'Warning');
    assert.match(
      onNode?.message ?? '',
      new RegExp(`^${old} did not answer its pre-stage ask for ${revision}`),
    );
    assert.match(onNode?.message ?? '', /within 2s \(spec\.prestage\.timeoutSeconds\)/);
    const onPool = timedOut(await h.events('NodeConfigPool', POOL));
    assert.equal(onPool?.type, 'Warning');
    assert.match(onPool?.message ?? '', new RegExp(old));
    for (const name of h.fleet.names().filter((n) => n !== old))
      assert.equal(timedOut(await h.events('Node', name)), undefined, `${name} answered: no timeout`);

    await h.untilNoNodeCarries(
      `pool=${POOL}`,
      [PRESTAGE_REVISION_ANNOTATION, PRESTAGE_ASKED_AT_ANNOTATION],
      'the asks and their times are gone',
    );
  });
});

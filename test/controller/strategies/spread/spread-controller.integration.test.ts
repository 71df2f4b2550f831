// Spread, the controller's side: every node not on the target gets it at once with an evenly spaced
// not-before; times move when nodes join or leave; a pause holds nodes that have not started. (The
// agents' side, waiting for the time, is tested with the agent.)

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  DESIRED_REVISION_ANNOTATION,
  HOLD_ANNOTATION,
  NOT_BEFORE_ANNOTATION,
} from '../../../../src/api/node-protocol.ts';
import type { RolloutController } from '../../../../src/controller/rollout-controller.ts';
import { spreadWindowStart } from '../../../../src/controller/strategies/spread/spread-schedule.ts';
import {
  brokenConfig,
  ClusterHarness,
  condition,
  eventually,
  kubeletConfig,
  revisionNameFor,
} from '../../../support/cluster-harness.ts';
import { NodeWatch } from '../../support/node-watch.ts';

const WINDOW = 3600;

describe('Spread (controller)', () => {
  let h: ClusterHarness;
  let watch: NodeWatch;
  let names: string[];
  let controller: RolloutController;
  /** The first not-before each node was given for revision two. */
  let firstNotBefore: Map<string, string>;
  const two = revisionNameFor('spr', { 'spr-kubelet': kubeletConfig('two') });

  const annotations = async (name: string) =>
    (await h.nodes('pool=spr')).find((n) => n.metadata.name === name)?.metadata.annotations ?? {};

  before(async () => {
    h = await ClusterHarness.start();
    names = await h.addNodes('spr', 4);
    await h.labelledPool('spr', 'spr-kubelet', kubeletConfig('one'), {
      updateStrategy: { type: 'Spread', spread: { windowSeconds: WINDOW } },
    });
    watch = await NodeWatch.started(h.adminConfig());
    firstNotBefore = watch.firstAnnotations(NOT_BEFORE_ANNOTATION, two);
    controller = await h.startController();
    await eventually(
      'bootstrap on revision one',
      async () => {
        const p = await h.getPool('spr');
        return (
          p.status?.updated === 4 &&
          p.status.conditions?.some((c) => c.type === 'Complete' && c.status === 'True')
        );
      },
      60_000,
    );
  });
  after(async () => {
    await watch?.stop();
    await h?.stop();
  });

  test('every node gets the target at once with evenly spaced times in the window', async () => {
    // Nodes wait for their times (the agents honour not-before): the last in order waits longest.
    await h.applyConfig('spr-kubelet', kubeletConfig('two'), { pool: 'spr' });
    await eventually('a not-before on every node', () => firstNotBefore.size === 4, 60_000);
    const pool = await h.getPool('spr');
    const record = pool.status?.history?.find((r) => r.name === two) as { startedAt?: string } | undefined;
    // The window opens a hand-out lead after the recorded start (the same for 4 and 5 nodes).
    const windowStart = spreadWindowStart(Date.parse(record?.startedAt ?? ''), names.length);
    assert.ok(!Number.isNaN(windowStart), JSON.stringify(pool.status?.history));
    const offsets = [...firstNotBefore.values()]
      .map((t) => (Date.parse(t) - windowStart) / 1000)
      .sort((a, b) => a - b);
    assert.deepEqual(offsets, [0, 900, 1800, 2700]);
    const waiting = await annotations(names[3]!);
    assert.equal(waiting[DESIRED_REVISION_ANNOTATION], two);
    assert.equal(waiting[NOT_BEFORE_ANNOTATION], firstNotBefore.get(names[3]!));
  });

  test('a node joining or leaving moves the times still in the future', async () => {
    const pool = await h.getPool('spr');
    const record = pool.status?.history?.find((r) => r.name === two) as { startedAt?: string } | undefined;
    const windowStart = spreadWindowStart(Date.parse(record?.startedAt ?? ''), names.length);
    const waitingName = names[3]!;
    const offsetOf = async () =>
      (Date.parse((await annotations(waitingName))[NOT_BEFORE_ANNOTATION] ?? '') - windowStart) / 1000;
    const before = await offsetOf();
    assert.ok(before > 0 && before % 900 === 0, `offset ${before}`);
    const [joined] = await h.fleet.add(1, { labels: { pool: 'spr' } });
    const withFive = await eventually(
      'times over five nodes',
      async () => {
        const o = await offsetOf();
        return o !== before && o % 720 === 0 ? o : undefined;
      },
      60_000,
    );
    assert.ok(withFive > 0 && withFive < WINDOW);
    // A new controller takes over: the window start is read from the pool's history, so the times
    // it computes when the node leaves are the ones of the first controller.
    await h.stopController(controller);
    controller = await h.startController();
    // It leaves the pool (relabelled; removing a simulated node leaks its sockets in this build's fleet).
    await h.admin.patch(
      `/api/v1/nodes/${joined!.name}`,
      { metadata: { labels: { pool: 'elsewhere' } } },
      'merge',
    );
    const withFour = await eventually(
      'times over four nodes again',
      async () => {
        const o = await offsetOf();
        return o % 900 === 0 && o !== withFive ? o : undefined;
      },
      60_000,
    );
    assert.equal(withFour, before);
  });

  test('a pause holds the nodes that have not started; resuming lifts the hold', async () => {
    const current = (n: { metadata: { annotations?: Record<string, string> } }) =>
      n.metadata.annotations?.['nodeherd.io/current-revision'];
    // The node whose time is the window start applies at once; the others wait for theirs.
    await eventually(
      'the first node on revision two',
      async () => (await h.nodes('pool=spr')).some((n) => current(n) === two),
      60_000,
    );
    await h.patchPool('spr', { spec: { paused: true } });
    await eventually(
      'holds on the nodes that have not started',
      async () =>
        (await h.nodes('pool=spr')).every(
          (n) => (current(n) === two) === (n.metadata.annotations?.[HOLD_ANNOTATION] === undefined),
        ),
      30_000,
    );
    const paused = await h.getPool('spr');
    assert.equal(paused.status?.conditions?.find((c) => c.type === 'Progressing')?.reason, 'Paused');
    await h.patchPool('spr', { spec: { paused: false } });
    await eventually(
      'holds lifted',
      async () =>
        (await h.nodes('pool=spr')).every((n) => n.metadata.annotations?.[HOLD_ANNOTATION] === undefined),
      30_000,
    );
  });

  test('a failure beyond the policy pauses the pool and holds the nodes that have not started', async () => {
    await h.applyConfig('spr-kubelet', brokenConfig('three'), { pool: 'spr' });
    const pool = await eventually(
      'paused by the failure policy',
      async () => {
        const p = await h.getPool('spr');
        return condition(p, 'Paused')?.reason === 'FailurePolicy' ? p : undefined;
      },
      60_000,
    );
    assert.equal(pool.spec.paused, true);
    assert.equal(condition(pool, 'Progressing')?.reason, 'FailurePolicy');
    assert.equal(condition(pool, 'Degraded')?.reason, 'NodesFailed');
    await eventually(
      'holds on every node that has not failed',
      async () =>
        (await h.nodes('pool=spr')).every(
          (n) =>
            (n.metadata.annotations?.['nodeherd.io/state'] === 'Failed') ===
            (n.metadata.annotations?.[HOLD_ANNOTATION] === undefined),
        ),
      30_000,
    );
    const events = await h.events('NodeConfigPool', 'spr');
    assert.ok(
      events.some((e) => e.type === 'Warning' && e.reason === 'FailurePolicy'),
      JSON.stringify(events),
    );
  });

  test('spread.windowSeconds is required for type Spread', async () => {
    await assert.rejects(
      h.createPool('spr-bad', {
        nodeSelector: { matchLabels: { pool: 'none' } },
        configSelector: { matchLabels: { pool: 'none' } },
        updateStrategy: { type: 'Spread' },
      }),
      /spec\.updateStrategy\.spread/,
    );
  });
});

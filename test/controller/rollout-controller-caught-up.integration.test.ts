// RolloutController.caughtUp against simulated nodes: a pool status written before a change the
// controller has yet to act on can look settled (Stalled, nothing applying) while the controller is
// about to start and cordon more nodes. The randomised rollouts took such a status for the end (seed
// 1795633841: a canary flapped, the pool stalled on it, the flap ended, and a slow, restarting
// controller started two more nodes after the test had judged the run). caughtUp tells the two apart.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DESIRED_REVISION_ANNOTATION } from '../../src/api/node-protocol.ts';
import { CORDONED_BY_ANNOTATION } from '../../src/controller/annotations.ts';
import type { RolloutController } from '../../src/controller/rollout-controller.ts';
import {
  ClusterHarness,
  complete,
  condition,
  eventually,
  kubeletConfig,
  type PoolObject,
  revisionNameFor,
  rollingUpdate,
} from '../support/cluster-harness.ts';

const POOL = 'caught-up';

describe('rollout controller: caught up with a pool', () => {
  let h: ClusterHarness;
  let controller: RolloutController;
  before(async () => {
    h = await ClusterHarness.start({ graceMs: 5_000 });
    controller = await h.startController();
  });
  after(async () => {
    await h?.stop();
  });

  /** The pool once the controller has acted on it and its nodes as they are, and `ok` holds. */
  async function settledPool(what: string, ok: (p: PoolObject) => boolean): Promise<PoolObject> {
    return eventually(
      what,
      async () => {
        const nodes = await h.nodes(`pool=${POOL}`);
        const p = await h.getPool(POOL);
        return controller.caughtUp(p, nodes) && ok(p) ? p : undefined;
      },
      60_000,
      100,
    );
  }

  test('a Stalled status from before the stalled canary recovered is not the last word', async () => {
    await h.startNodes(POOL, 3, { prefix: 'cu', zones: ['z1', 'z2', 'z3'] });
    await h.labelledPool(POOL, `${POOL}-config`, kubeletConfig('good'), {
      updateStrategy: rollingUpdate({
        maxUnavailable: 2,
        canary: { nodes: 1 },
        progressDeadlineSeconds: 8,
        failurePolicy: { action: 'Pause', maxFailures: 1 },
      }),
    });
    await settledPool('first revision complete', complete());

    // The canary turns NotReady as soon as it is given the next revision, and stays so: it fails its
    // deadline, within maxFailures, and holds the canary's place: the pool stalls.
    const next = revisionNameFor(POOL, { [`${POOL}-config`]: kubeletConfig('next') });
    await h.applyConfig(`${POOL}-config`, kubeletConfig('next'), { pool: POOL });
    const canary = await eventually('the canary given the next revision', async () => {
      const given = (await h.nodes(`pool=${POOL}`)).find(
        (n) => n.metadata.annotations?.[DESIRED_REVISION_ANNOTATION] === next,
      );
      return given?.metadata.name;
    });
    h.fleet.flapNotReady(canary, Number.POSITIVE_INFINITY, 'held down by the test');
    const stalled = await settledPool(
      'stalled on the failed canary',
      (p) => condition(p, 'Progressing')?.reason === 'Stalled' && (p.status?.applying ?? 0) === 0,
    );
    assert.equal(stalled.status?.failed, 1);

    // The controller goes away (a restart, or just slow under load); the canary recovers meanwhile.
    await h.stopController(controller);
    h.fleet.flapNotReady(canary, 1);
    await eventually('the canary Ready again', async () =>
      (await h.nodes(`pool=${POOL}`)).every(
        (n) => n.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True',
      ),
    );
    const stale = await h.getPool(POOL);
    assert.equal(condition(stale, 'Progressing')?.reason, 'Stalled', 'the status still says Stalled');
    assert.equal(stale.status?.applying, 0, 'with nothing applying');
    assert.equal(
      controller.caughtUp(stale, await h.nodes(`pool=${POOL}`)),
      false,
      'but the controller has not acted on the recovery',
    );

    // Back, it acts on the recovery: the canary passed, the others get the revision. What it settles on
    // is the rollout's end, with no cordon of its own left.
    controller = await h.startController();
    const done = await settledPool(
      'the controller caught up and at rest',
      (p) => (p.status?.applying ?? 0) === 0 && condition(p, 'Progressing')?.reason !== 'Stalled',
    );
    assert.equal(condition(done, 'Complete')?.status, 'True', JSON.stringify(done.status?.conditions));
    assert.equal(done.status?.targetRevision, next);
    const cordoned = (await h.nodes(`pool=${POOL}`)).filter(
      (n) => n.metadata.annotations?.[CORDONED_BY_ANNOTATION] !== undefined,
    );
    assert.deepEqual(
      cordoned.map((n) => n.metadata.name),
      [],
    );
  });
});

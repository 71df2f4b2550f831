// A controller restarting after an outage longer than progressDeadlineSeconds does not blame the node
// that was mid-update: the deadline counts only time the running controller watched. The node comes
// back, finishes its update, and the rollout completes without the failure policy pausing the pool.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DESIRED_REVISION_ANNOTATION } from '../../src/api/node-protocol.ts';
import type { NodeConfigSpec } from '../../src/api/types.ts';
import type { RolloutController } from '../../src/controller/rollout-controller.ts';
import {
  ClusterHarness,
  condition,
  eventually,
  kubeletConfig,
  revisionNameFor,
} from '../support/cluster-harness.ts';

const DEADLINE_S = 8;

/** The harness's kubelet config, with a probe that gives the slowed kubelet restart time to come back. */
function kubeletSpec(value: string): NodeConfigSpec {
  const spec = kubeletConfig(value);
  spec.units![0]!.healthProbe!.timeoutSeconds = 10;
  return spec;
}

describe('progress deadline across an outage', () => {
  let h: ClusterHarness;
  let controller: RolloutController;
  before(async () => {
    // A kubelet restart that takes 1.5 s keeps the node mid-update when it is killed, however fast the
    // machine: a node that had finished before the outage is another case (it became unhealthy after
    // its update, which the failure policy rightly counts).
    h = await ClusterHarness.start({
      fleet: { systemd: { targetDurations: { 'kubelet.service': { restart: 1_500 } } } },
    });
    controller = await h.startController();
  });
  after(async () => {
    await h?.stop();
  });

  test('a node mid-update during an outage longer than the deadline is not failed on restart', async () => {
    const nodes = [];
    for (const [i, zone] of ['zone-a', 'zone-b'].entries())
      nodes.push(await h.fleet.create({ name: `outage-${i}`, zone, labels: { pool: 'outage' } }));
    await h.fleet.startAll(nodes);
    await h.applyConfig('outage-kubelet', kubeletSpec('one'), { pool: 'outage' });
    await h.createPool('outage', {
      nodeSelector: { matchLabels: { pool: 'outage' } },
      configSelector: { matchLabels: { pool: 'outage' } },
      updateStrategy: {
        type: 'RollingUpdate',
        rollingUpdate: {
          maxUnavailable: 1,
          progressDeadlineSeconds: DEADLINE_S,
          failurePolicy: { action: 'Pause', maxFailures: 0 },
        },
      },
    });
    await eventually('first revision complete', async () => {
      const p = await h.getPool('outage');
      return condition(p, 'Complete')?.status === 'True';
    });

    // The rollout of the next revision starts a node; then everything goes down: the node, the controller.
    const next = revisionNameFor('outage', { 'outage-kubelet': kubeletSpec('two') });
    await h.applyConfig('outage-kubelet', kubeletSpec('two'), { pool: 'outage' });
    const started = await eventually(
      'a node given the next revision',
      async () =>
        (await h.nodes('pool=outage')).find(
          (n) => n.metadata.annotations?.[DESIRED_REVISION_ANNOTATION] === next,
        )?.metadata.name,
      30_000,
      10,
    );
    h.fleet.kill(started);
    await h.stopController(controller);
    await eventually(
      'the server marks the node not Ready',
      async () =>
        (await h.nodes('pool=outage'))
          .find((n) => n.metadata.name === started)
          ?.status?.conditions?.find((c) => c.type === 'Ready')?.status !== 'True',
      30_000,
    );
    // The outage outlasts the deadline.
    await new Promise((r) => setTimeout(r, (DEADLINE_S + 1) * 1000));

    controller = await h.startController();
    await h.fleet.start(started);
    const settled = await eventually(
      'the rollout completes, or the failure policy pauses it',
      async () => {
        const p = await h.getPool('outage');
        const complete = condition(p, 'Complete')?.status === 'True' && p.status?.targetRevision === next;
        return complete || condition(p, 'Paused')?.reason === 'FailurePolicy' ? p : undefined;
      },
      60_000,
    );
    assert.notEqual(
      condition(settled, 'Paused')?.reason,
      'FailurePolicy',
      condition(settled, 'Paused')?.message,
    );
    assert.notEqual(settled.spec.paused, true);
    const failures = (await h.events('Node', started)).filter((e) => e.reason === 'UpdateFailed');
    assert.deepEqual(failures, [], 'the node was never failed');
  });
});

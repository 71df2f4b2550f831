// High availability: a controller restarted in the middle of a rollout continues it without touching
// a node twice or exceeding the budget; a standby takes over within the lease duration when the
// leader dies, and at once when it steps down.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { DESIRED_REVISION_ANNOTATION } from '../../src/api/node-protocol.ts';
import { ControllerManager } from '../../src/controller/controller-manager.ts';
import {
  ClusterHarness,
  complete,
  drainingConfig,
  eventually,
  kubeletConfig,
  revisionNameFor,
  rollingUpdate,
} from '../support/cluster-harness.ts';
import { DisruptionInvariant } from './support/disruption-invariant.ts';
import { NodeWatch } from './support/node-watch.ts';

describe('high availability', () => {
  let h: ClusterHarness;
  let watch: NodeWatch;

  before(async () => {
    h = await ClusterHarness.start();
    watch = await NodeWatch.started(h.adminConfig());
  });
  after(async () => {
    await watch?.stop();
    await h?.stop();
  });

  test('a restart mid-rollout continues it: every node updated once, the budget kept, no cordon left', async () => {
    const nodes = await h.fleet.add(6, { labels: { pool: 'restart' } });
    await h.labelledPool('restart', 'restart-kubelet', drainingConfig('one'), {
      updateStrategy: rollingUpdate({ maxUnavailable: 2, minReadySeconds: 1 }),
    });
    let controller = await h.startController();
    await h.poolWhere('restart', 'first revision', complete());
    const restartsBefore = new Map(nodes.map((n) => [n.name, n.systemd.restarts('kubelet.service')]));

    const check = new DisruptionInvariant({ maxUnavailable: 2, strict: true }, 6);
    const names = new Set(nodes.map((n) => n.name));
    for (const n of watch.list()) if (names.has(n.metadata.name)) check.observe(n, performance.now());
    const stopChecking = watch.on((n, at) => {
      if (names.has(n.metadata.name)) check.observe(n, at);
    });
    check.beginEpisode();
    const changesBefore = new Map([...names].map((n) => [n, watch.desiredChanges.get(n) ?? 0]));
    const two = revisionNameFor('restart', { 'restart-kubelet': drainingConfig('two') });
    await h.applyConfig('restart-kubelet', drainingConfig('two'), { pool: 'restart' });

    // Stop the controller once the first batch is under way, then start a new one.
    await eventually(
      'first batch started',
      () =>
        watch
          .list()
          .filter(
            (n) => names.has(n.metadata.name) && n.metadata.annotations?.['nodeherd.io/draining-for'] === two,
          ).length > 0 ||
        watch.list().filter((n) => n.metadata.annotations?.[DESIRED_REVISION_ANNOTATION] === two).length > 0,
    );
    await h.stopController(controller);
    await new Promise((r) => setTimeout(r, 700));
    controller = await h.startController();

    const done = await h.poolWhere('restart', 'second revision complete', complete(two));
    stopChecking();
    assert.deepEqual(check.violations, []);
    assert.ok(check.maxObserved >= 1 && check.maxObserved <= 2, `max unavailable seen: ${check.maxObserved}`);
    for (const n of nodes) {
      assert.equal(
        (watch.desiredChanges.get(n.name) ?? 0) - changesBefore.get(n.name)!,
        1,
        `${n.name} given a revision once`,
      );
      assert.equal(
        n.systemd.restarts('kubelet.service') - restartsBefore.get(n.name)!,
        1,
        `${n.name} restarted its kubelet once`,
      );
    }
    for (const n of await h.nodes('pool=restart'))
      assert.notEqual(n.spec?.unschedulable, true, n.metadata.name);
    assert.deepEqual(
      done.status?.history?.map((r) => r.result),
      ['Complete', 'Complete'],
    );
    await h.stopController(controller);
  });

  test('leader election: one leader; a standby takes over within the lease duration, at once on a clean stop', async () => {
    const lease = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 400 };
    const manager = (metricsAddress?: string) =>
      new ControllerManager({
        kubeConfig: h.controllerConfig(),
        logger: pino({ level: process.env.NODEHERD_TEST_LOG ?? 'silent' }),
        ...lease,
        ...(metricsAddress ? { metricsAddress } : {}),
        controller: { drainBackoff: { initialMs: 100, maxMs: 1_000 } },
      });
    const a = manager('127.0.0.1:0');
    const b = manager('127.0.0.1:0');
    await a.start();
    await eventually('a leads', () => a.leading);
    await b.start();
    await new Promise((r) => setTimeout(r, lease.retryPeriodMs * 3));
    assert.equal(b.leading, false, 'only one leader');

    await h.addNodes('ha', 2);
    await h.labelledPool('ha', 'ha-kubelet', kubeletConfig('one'));
    await h.poolWhere('ha', 'rolled out by the leader', complete());
    const metrics = await (await fetch(`${a.metricsUrl}/metrics`)).text();
    assert.match(metrics, /nodeherd_controller_leader 1/);
    assert.match(metrics, /nodeherd_pool_status_updated_nodes\{pool="ha"\} 2/);
    assert.match(metrics, /nodeherd_pool_nodes\{pool="ha",phase="Updated"\} 2/);
    assert.match(metrics, /nodeherd_controller_build_info\{version="[^"]+",nodeversion="v\d+\.\d+\.\d+"\} 1/);
    assert.match(metrics, /workqueue_adds_total\{name="rollout"\} [1-9]/);
    assert.match(metrics, /workqueue_depth\{name="daemonset"\} \d/);
    assert.doesNotMatch(metrics, /^nodeherd_\w*_by_\w+/m, 'no label name inside a metric name');
    assert.equal((await fetch(`${b.metricsUrl}/readyz`)).status, 200, 'a standby is ready');

    // The leader dies without releasing its lease.
    const crashedAt = performance.now();
    await a.stop({ release: false });
    await eventually('b takes over', () => b.leading, 10_000, 20);
    const takeover = performance.now() - crashedAt;
    assert.ok(
      takeover <= lease.leaseDurationMs + lease.retryPeriodMs * 1.2 + 500,
      `took over after ${takeover} ms`,
    );
    const two = revisionNameFor('ha', { 'ha-kubelet': kubeletConfig('two') });
    await h.applyConfig('ha-kubelet', kubeletConfig('two'), { pool: 'ha' });
    await h.poolWhere('ha', 'rolled out by the new leader', complete(two));

    // A clean stop releases the lease: the next standby does not wait for it to expire.
    const c = manager();
    await c.start();
    const steppedDownAt = performance.now();
    await b.stop();
    await eventually('c takes over', () => c.leading, 10_000, 20);
    const handover = performance.now() - steppedDownAt;
    assert.ok(handover < lease.leaseDurationMs, `handed over after ${handover} ms`);
    await c.stop();
  });
});

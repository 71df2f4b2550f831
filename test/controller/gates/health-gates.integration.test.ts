// Health gates against a real Prometheus scraping an exporter the test controls, with the embedded
// API server, simulated nodes and the rollout controller: a metric crossing its threshold mid-soak
// pauses the rollout (and a resume after it recovers finishes it), or rolls it back; a firing alert
// holds a batch; an unreachable Prometheus holds, never passes; blocking pods hold a batch.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CURRENT_REVISION_ANNOTATION } from '../../../src/api/node-protocol.ts';
import {
  ClusterHarness,
  complete,
  condition,
  kubeletConfig,
  type PoolObject,
  revisionNameFor,
  rollingUpdate,
} from '../../support/cluster-harness.ts';
import { freePort, prometheusMissing, TestExporter, TestPrometheus } from '../../support/prometheus.ts';
import { clusterPerSuite } from '../../support/suite-cluster.ts';

const RULES = `groups:
  - name: gates
    rules:
      - alert: GateTestAlert
        # last_over_time: a scrape of the in-process exporter that misses its 1 s timeout on a loaded
        # machine marks the series stale, which would resolve the alert for a moment and let a batch in.
        expr: last_over_time(gate_alert_value[10s]) > 0
        for: 0s
        labels:
          severity: critical
`;

const poolWhere = (h: ClusterHarness, name: string, what: string, ok: (p: PoolObject) => boolean) =>
  h.poolWhere(name, what, ok, 40_000, 100);

/** Pool `pool` of `count` nodes, its first revision (kubeletConfig good) complete, gated as `rolling` says. */
async function gatedPool(
  h: ClusterHarness,
  pool: string,
  count: number,
  rolling: Parameters<typeof rollingUpdate>[0],
): Promise<PoolObject> {
  await h.startNodes(pool, count);
  return h.poolOnFirstRevision(
    pool,
    `${pool}-kubelet`,
    kubeletConfig('good'),
    { updateStrategy: rollingUpdate(rolling) },
    40_000,
  );
}

/** A gate on max(gate_errors_pause) < 1 asked of the Prometheus at `url`. */
function errorsGate(url: string) {
  return {
    prometheus: { url, intervalSeconds: 1, timeoutSeconds: 1 },
    metrics: [{ name: 'errors', query: 'max(gate_errors_pause)', operator: '<' as const, threshold: 1 }],
  };
}

/** The pool stays this way for a while (a hold that holds). */
async function staysFor(
  h: ClusterHarness,
  name: string,
  ms: number,
  ok: (p: PoolObject) => boolean,
): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const p = await h.getPool(name);
    assert.ok(ok(p), JSON.stringify(p.status?.conditions));
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('health gates with a real Prometheus', { skip: prometheusMissing }, () => {
  let h: ClusterHarness;
  let exporter: TestExporter;
  let prometheus: TestPrometheus;
  before(async () => {
    exporter = await TestExporter.start();
    for (const m of ['gate_errors_pause', 'gate_errors_rollback', 'gate_alert_value']) exporter.set(m, 0);
    prometheus = await TestPrometheus.start({ targets: [exporter.address], rules: RULES });
    await prometheus.waitForValue('gate_errors_pause', 0);
    h = await ClusterHarness.start();
    await h.startController();
  });
  after(async () => {
    await h?.stop();
    await prometheus?.stop();
    await exporter?.stop();
  });

  test('a metric crossing its threshold mid-soak pauses the rollout; it resumes after it recovers and resume', async () => {
    await gatedPool(h, 'metric', 2, {
      minReadySeconds: 8,
      progressDeadlineSeconds: 60,
      failurePolicy: { action: 'Pause' },
      healthGate: {
        prometheus: { url: prometheus.url, intervalSeconds: 1, timeoutSeconds: 2 },
        metrics: [{ name: 'errors', query: 'max(gate_errors_pause)', operator: '<', threshold: 1 }],
      },
    });
    const v2 = revisionNameFor('metric', { 'metric-kubelet': kubeletConfig('v2') });
    await h.applyConfig('metric-kubelet', kubeletConfig('v2'), { pool: 'metric' });
    const soaking = await poolWhere(
      h,
      'metric',
      'the first node of v2 soaking',
      (p) =>
        p.status?.targetRevision === v2 &&
        (p.status?.ready ?? 0) >= 1 &&
        condition(p, 'Complete')?.status === 'False',
    );
    assert.equal(condition(soaking, 'HealthGate')?.status, 'True');
    assert.equal(condition(soaking, 'HealthGate')?.reason, 'GatesPassed');

    exporter.set('gate_errors_pause', 5);
    const paused = await poolWhere(
      h,
      'metric',
      'paused by the gate',
      (p) => condition(p, 'Paused')?.reason === 'FailurePolicy',
    );
    assert.equal(paused.spec.paused, true);
    assert.equal(paused.status?.updated, 1, 'the second node was not started');
    assert.equal(
      condition(paused, 'Paused')?.message,
      `health gate failed during ${v2} (MetricGateFailed): metric gate errors (max(gate_errors_pause)) = 5, must be < 1`,
    );
    const gate = condition(paused, 'HealthGate');
    assert.equal(gate?.status, 'False');
    assert.equal(gate?.reason, 'MetricGateFailed');
    assert.match(gate?.message ?? '', /max\(gate_errors_pause\)\) = 5, must be < 1/);
    assert.equal(paused.status?.history?.at(-1)?.result, 'Failed');
    const events = await h.events('NodeConfigPool', 'metric');
    assert.ok(
      events.some(
        (e) =>
          e.reason === 'MetricGateFailed' && e.type === 'Warning' && e.message.includes('= 5, must be < 1'),
      ),
      JSON.stringify(events),
    );

    // Recovered, but paused until someone resumes.
    exporter.set('gate_errors_pause', 0);
    await prometheus.waitForValue('gate_errors_pause', 0);
    await staysFor(h, 'metric', 2_000, (p) => p.spec.paused === true && p.status?.updated === 1);
    await h.patchPool('metric', { spec: { paused: false } });
    const done = await poolWhere(h, 'metric', 'v2 complete after resume', complete(v2));
    assert.equal(done.status?.updated, 2);
    assert.equal(condition(done, 'HealthGate')?.status, 'True');
    assert.equal(condition(done, 'Paused')?.status, 'False');
  });

  test('Rollback: a failing gate rolls the pool back, and the rollback is not held by it', async () => {
    const good = (
      await gatedPool(h, 'rollback', 2, {
        minReadySeconds: 8,
        progressDeadlineSeconds: 60,
        failurePolicy: { action: 'Rollback', maxFailures: 3 },
        healthGate: {
          prometheus: { url: prometheus.url, intervalSeconds: 1 },
          metrics: [{ name: 'no-errors', query: 'gate_errors_rollback > 0', operator: 'NoSeries' }],
        },
      })
    ).status!.targetRevision!;
    const bad = revisionNameFor('rollback', { 'rollback-kubelet': kubeletConfig('bad') });
    await h.applyConfig('rollback-kubelet', kubeletConfig('bad'), { pool: 'rollback' });
    await poolWhere(
      h,
      'rollback',
      'a node on the new revision',
      (p) => p.status?.targetRevision === bad && (p.status?.updated ?? 0) >= 1,
    );

    exporter.set('gate_errors_rollback', 3);
    const rolledBack = await poolWhere(
      h,
      'rollback',
      'rolled back and complete',
      (p) => condition(p, 'RolledBack')?.status === 'True' && complete(good)(p),
    );
    assert.equal(condition(rolledBack, 'RolledBack')?.reason, 'FailurePolicy');
    assert.match(
      condition(rolledBack, 'RolledBack')?.message ?? '',
      /health gate failed during .* \(MetricGateFailed\): metric gate no-errors \(gate_errors_rollback > 0\) returned 1 series, must return none: .* = 3; rolling back to /,
    );
    assert.deepEqual(
      rolledBack.status?.history?.map((r) => [r.name, r.result]),
      [
        [good, 'Complete'],
        [bad, 'RolledBack'],
        [good, 'Complete'],
      ],
    );
    for (const n of await h.nodes('pool=rollback'))
      assert.equal(n.metadata.annotations?.[CURRENT_REVISION_ANNOTATION], good, n.metadata.name);
    exporter.set('gate_errors_rollback', 0);
  });

  test('a firing alert holds the batch; credentials come from a Secret', async () => {
    await h.admin.create('/api/v1/namespaces/nodeherd/secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'prometheus-reader' },
      data: { token: Buffer.from('reader-token').toString('base64') },
    });
    await gatedPool(h, 'alert', 2, {
      healthGate: {
        prometheus: {
          url: prometheus.url,
          intervalSeconds: 1,
          credentialsSecretRef: { namespace: 'nodeherd', name: 'prometheus-reader' },
        },
        alerts: [{ alertname: 'GateTest.*', matchLabels: { severity: 'critical' } }],
      },
    });
    exporter.set('gate_alert_value', 1);
    await prometheus.waitForAlert('GateTestAlert', 'firing');
    const v2 = revisionNameFor('alert', { 'alert-kubelet': kubeletConfig('v2') });
    await h.applyConfig('alert-kubelet', kubeletConfig('v2'), { pool: 'alert' });
    const held = await poolWhere(
      h,
      'alert',
      'held by the alert',
      (p) => p.status?.targetRevision === v2 && condition(p, 'HealthGate')?.reason === 'AlertFiring',
    );
    assert.equal(condition(held, 'HealthGate')?.status, 'False');
    assert.match(condition(held, 'HealthGate')?.message ?? '', /^alert firing: GateTestAlert\{/);
    assert.equal(condition(held, 'Progressing')?.reason, 'HealthGate');
    assert.equal(condition(held, 'Progressing')?.status, 'False');
    // Nothing was touched yet, so the failure only holds: no pause, no node started.
    await staysFor(h, 'alert', 2_000, (p) => p.status?.updated === 0 && p.spec.paused !== true);

    exporter.set('gate_alert_value', 0);
    const done = await poolWhere(h, 'alert', 'v2 complete once the alert resolved', complete(v2));
    assert.equal(done.status?.updated, 2);
    assert.equal(condition(done, 'HealthGate')?.reason, 'GatesPassed');
  });

  test('an unreachable Prometheus holds the rollout, and never lets it pass', async () => {
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    // New nodes get their first revision at once (bootstrap is not a batch).
    await gatedPool(h, 'down', 2, { healthGate: errorsGate(nowhere) });
    const v2 = revisionNameFor('down', { 'down-kubelet': kubeletConfig('v2') });
    await h.applyConfig('down-kubelet', kubeletConfig('v2'), { pool: 'down' });
    const held = await poolWhere(
      h,
      'down',
      'held: the gate cannot be evaluated',
      (p) => p.status?.targetRevision === v2 && condition(p, 'HealthGate')?.reason === 'GateUnavailable',
    );
    assert.match(condition(held, 'HealthGate')?.message ?? '', /Prometheus cannot be asked: .*ECONNREFUSED/);
    assert.match(condition(held, 'Progressing')?.message ?? '', /health gate holds \(GateUnavailable\)/);
    await staysFor(h, 'down', 2_000, (p) => p.status?.updated === 0 && p.spec.paused !== true);

    await h.patchPool('down', {
      spec: { updateStrategy: rollingUpdate({ healthGate: errorsGate(prometheus.url) }) },
    });
    await poolWhere(h, 'down', 'v2 complete once Prometheus answers', complete(v2));
  });

  test('Prometheus going down mid-soak holds the rollout open until it answers again', async () => {
    const doomed = await TestPrometheus.start({ targets: [exporter.address] });
    try {
      await doomed.waitForValue('gate_errors_pause', 0);
      await gatedPool(h, 'outage', 1, { minReadySeconds: 8, healthGate: errorsGate(doomed.url) });
      const v2 = revisionNameFor('outage', { 'outage-kubelet': kubeletConfig('v2') });
      await h.applyConfig('outage-kubelet', kubeletConfig('v2'), { pool: 'outage' });
      await poolWhere(
        h,
        'outage',
        'the node on v2, soaking',
        (p) => p.status?.targetRevision === v2 && p.status?.ready === 1,
      );
      await doomed.stop();
      const held = await poolWhere(
        h,
        'outage',
        'held: Prometheus is gone',
        (p) => condition(p, 'HealthGate')?.reason === 'GateUnavailable',
      );
      assert.equal(condition(held, 'Complete')?.status, 'False');
      // Well past the soak: the rollout does not complete on a gate nobody could check.
      await staysFor(
        h,
        'outage',
        10_000,
        (p) => condition(p, 'Complete')?.status === 'False' && p.spec.paused !== true,
      );
      await h.patchPool('outage', {
        spec: {
          updateStrategy: rollingUpdate({ minReadySeconds: 8, healthGate: errorsGate(prometheus.url) }),
        },
      });
      const done = await poolWhere(h, 'outage', 'v2 complete once Prometheus answers', complete(v2));
      assert.equal(condition(done, 'HealthGate')?.reason, 'GatesPassed');
    } finally {
      await doomed.stop();
    }
  });
});

describe('blocking pods', () => {
  let h: ClusterHarness;
  clusterPerSuite((started) => {
    h = started;
  });

  test('no batch starts while a selected pod runs on the nodes it would take', async () => {
    await gatedPool(h, 'blocked', 2, {
      healthGate: { blockingPodSelector: { matchLabels: { app: 'batch-job' } } },
    });
    await h.admin.create('/api/v1/namespaces/default/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'batch-0', labels: { app: 'batch-job' } },
      spec: { nodeName: 'blocked-0', containers: [{ name: 'main', image: 'registry.example/job:1' }] },
    });
    await h.admin.patch(
      '/api/v1/namespaces/default/pods/batch-0/status',
      { status: { phase: 'Running' } },
      'merge',
    );
    const v2 = revisionNameFor('blocked', { 'blocked-kubelet': kubeletConfig('v2') });
    await h.applyConfig('blocked-kubelet', kubeletConfig('v2'), { pool: 'blocked' });
    const held = await poolWhere(
      h,
      'blocked',
      'held by the blocking pod',
      (p) => p.status?.targetRevision === v2 && condition(p, 'HealthGate')?.reason === 'BlockingPods',
    );
    assert.equal(
      condition(held, 'HealthGate')?.message,
      'blocking pods run on the nodes the next batch would take: default/batch-0 on blocked-0',
    );
    await staysFor(h, 'blocked', 2_000, (p) => p.status?.updated === 0);

    await h.admin.delete('/api/v1/namespaces/default/pods/batch-0');
    const done = await poolWhere(h, 'blocked', 'v2 complete once the pod is gone', complete(v2));
    assert.equal(done.status?.updated, 2);
  });
});

// The alerting rules in a real Prometheus (Debian's package) scraping a real controller as the shipped
// scrape job does: job nodeherd-controller-metrics, a bearer token read from a file at every scrape.
// The controller's /metrics asks the embedded API server to review the token (TokenReview,
// SubjectAccessReview for get on /metrics). With a token allowed that, the target is up, the shipped
// rules load and evaluate, and a drifted node's alert goes pending; with a token that may not (an
// agent's) /metrics answers 403, the target is down, and NodeherdControllerDown goes pending.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { CONTROLLER_JOB } from '../../src/api/alert-rules.ts';
import { repositoryRoot } from '../../src/api/generated-files.ts';
import { PROMETHEUS_RULE_FILE } from '../../src/api/monitoring-manifests.ts';
import { CONFIG_DRIFT_CONDITION } from '../../src/api/node-protocol.ts';
import { ControllerManager } from '../../src/controller/controller-manager.ts';
import { adminToken } from '../apiserver/conformance/support.ts';
import { ClusterHarness, eventually, kubeletConfig } from '../support/cluster-harness.ts';
import { prometheusMissing, TestPrometheus } from '../support/prometheus.ts';

const POOL = 'scraped';

describe('a real Prometheus scrapes the controller with a bearer token and runs the shipped rules', {
  skip: prometheusMissing,
}, () => {
  let h: ClusterHarness;
  let manager: ControllerManager;
  let prometheus: TestPrometheus;
  let tokenFile = '';

  before(async () => {
    h = await ClusterHarness.start({ graceMs: 5_000 });
    // The embedded API server authenticates ServiceAccount tokens of its own identities only (the
    // controller's, the agent DaemonSet's), so the reader's token cannot be had here: the admin's
    // stands in (the ServiceMonitor's path to the reader's token is checked in alert-rules.test.ts).
    tokenFile = join(h.local.dataDir, 'scrape.token');
    writeFileSync(tokenFile, adminToken(h.local), { mode: 0o600 });
    manager = new ControllerManager({
      kubeConfig: h.controllerConfig(),
      logger: pino({ level: process.env.NODEHERD_TEST_LOG ?? 'silent' }),
      leaseDurationMs: 3_000,
      renewDeadlineMs: 2_000,
      retryPeriodMs: 400,
      metricsAddress: '127.0.0.1:0',
      metricsAuth: true,
    });
    await manager.start();
    await eventually('the controller leads', () => manager.leading);
    prometheus = await TestPrometheus.start({
      targets: [new URL(manager.metricsUrl!).host],
      jobName: CONTROLLER_JOB,
      bearerTokenFile: tokenFile,
      rules: readFileSync(join(repositoryRoot, PROMETHEUS_RULE_FILE), 'utf8'),
    });
  });
  after(async () => {
    await prometheus?.stop();
    await manager?.stop();
    await h?.stop();
  });

  test('up with an allowed token: the rules load, a drifted node is pending; a wrong token takes the target down', {
    timeout: 120_000,
  }, async () => {
    await prometheus.waitForValue(`up{job="${CONTROLLER_JOB}"}`, 1, 30_000);
    await prometheus.waitForValue('nodeherd_controller_leader', 1, 30_000);
    const rules = (await (await fetch(`${prometheus.url}/api/v1/rules`)).json()) as {
      data: { groups: { rules: { name: string; health: string }[] }[] };
    };
    const loaded = rules.data.groups.flatMap((g) => g.rules);
    assert.ok(loaded.length >= 7, `the shipped rules loaded: ${loaded.map((r) => r.name).join(', ')}`);

    await h.admin.create('/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'scraped-0', labels: { pool: POOL } },
    });
    const now = new Date().toISOString();
    await h.admin.patch(
      '/api/v1/nodes/scraped-0/status',
      {
        status: {
          conditions: [
            {
              type: CONFIG_DRIFT_CONDITION,
              status: 'True',
              reason: 'Drifted',
              message: '',
              lastHeartbeatTime: now,
              lastTransitionTime: now,
            },
          ],
        },
      },
      'strategic',
    );
    await h.applyConfig(`${POOL}-config`, kubeletConfig('one'), { pool: POOL });
    await h.createPool(POOL, {
      nodeSelector: { matchLabels: { pool: POOL } },
      configSelector: { matchLabels: { pool: POOL } },
    });
    await prometheus.waitForAlert('NodeherdNodesDrifted', 'pending', 30_000);
    const health = (await (await fetch(`${prometheus.url}/api/v1/rules`)).json()) as typeof rules;
    for (const rule of health.data.groups.flatMap((g) => g.rules))
      assert.equal(rule.health, 'ok', `${rule.name} evaluates`);
    await prometheus.waitForAlert('NodeherdControllerDown', 'inactive');
    await prometheus.waitForAlert('NodeherdControllerNoLeader', 'inactive');

    // A token the API server authenticates but that may not get /metrics (an agent's): 403, down.
    const agentToken = await h.local.server.issueCredential(
      'node',
      'n1',
      join(h.local.dataDir, 'n1.kubeconfig'),
    );
    writeFileSync(tokenFile, agentToken);
    await prometheus.waitForValue(`up{job="${CONTROLLER_JOB}"}`, 0, 30_000);
    await prometheus.waitForAlert('NodeherdControllerDown', 'pending', 30_000);
  });
});

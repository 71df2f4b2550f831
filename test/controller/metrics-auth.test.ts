// issue 31, outcome 5: the controller's /metrics answers only a bearer token that the API server
// authenticates (TokenReview) and authorizes for get on /metrics (SubjectAccessReview), as
// controller-runtime's metrics filters do; the probes stay open. Real HTTP end to end: the embedded API
// server answers the reviews the controller asks with its own credentials.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Gauge, Registry } from 'prom-client';
import {
  type ControllerFlags,
  controllerCommand,
  metricsListenAddress,
} from '../../src/controller/controller-command.ts';
import { DelegatingMetricsAuthorizer } from '../../src/controller/metrics-auth.ts';
import { MetricsServer } from '../../src/controller/metrics-server.ts';
import { KubeClient } from '../../src/kube/kube-client.ts';
import { loadKubeConfig } from '../../src/kube/kube-config.ts';
import { adminToken } from '../apiserver/conformance/support.ts';
import { type LocalApiServer, startLocalApiServer } from '../support/local-apiserver.ts';

describe('controller /metrics behind TokenReview and SubjectAccessReview', () => {
  let local: LocalApiServer;
  let client: KubeClient;
  let server: MetricsServer;
  let url: string;
  let agentToken: string;

  before(async () => {
    local = await startLocalApiServer();
    const controllerKubeconfig = join(local.dataDir, 'controller.kubeconfig');
    await local.server.issueCredential('controller', undefined, controllerKubeconfig);
    agentToken = await local.server.issueCredential('node', 'n1', join(local.dataDir, 'n1.kubeconfig'));
    // The reviews are asked with the controller's own credentials, which CONTROLLER_RULES allow.
    client = new KubeClient(loadKubeConfig({ kubeconfig: controllerKubeconfig }));
    const registry = new Registry();
    registry.registerMetric(new Gauge({ name: 'nodeherd_test_gauge', help: 'a test gauge', registers: [] }));
    server = new MetricsServer({
      address: '127.0.0.1:0',
      registry,
      ready: () => true,
      auth: new DelegatingMetricsAuthorizer(client),
    });
    url = await server.listen();
  });
  after(async () => {
    await server?.close();
    client?.close();
    await local?.stop();
  });

  const scrape = (token?: string) =>
    fetch(`${url}/metrics`, token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } });

  test('no token, or one the API server does not know: 401, no metrics', async () => {
    for (const token of [undefined, 'not-a-token']) {
      const res = await scrape(token);
      assert.equal(res.status, 401);
      assert.doesNotMatch(await res.text(), /nodeherd_test_gauge/);
    }
  });

  test('a token that authenticates but may not get /metrics: 403', async () => {
    const res = await scrape(agentToken);
    assert.equal(res.status, 403);
    assert.doesNotMatch(await res.text(), /nodeherd_test_gauge/);
  });

  test('a token allowed get on /metrics (the admin here): the metrics', async () => {
    const res = await scrape(adminToken(local));
    assert.equal(res.status, 200);
    assert.match(await res.text(), /nodeherd_test_gauge/);
  });

  test('the probes need no token', async () => {
    for (const path of ['/healthz', '/readyz']) assert.equal((await fetch(`${url}${path}`)).status, 200);
  });

  test('nodeherd-controller authenticates /metrics by default; without it, the default address is loopback', () => {
    const parse = (args: string[]) =>
      controllerCommand()
        .exitOverride()
        .parse(['node', 'nodeherd-controller', ...args])
        .opts<ControllerFlags>();
    assert.equal(parse([]).metricsAuth, true);
    assert.equal(parse(['--metrics-auth=false']).metricsAuth, false);
    assert.equal(metricsListenAddress(parse([])), ':8080');
    assert.equal(metricsListenAddress(parse(['--metrics-auth=false'])), '127.0.0.1:8080');
    assert.equal(metricsListenAddress(parse(['--metrics-auth=false', '--metrics-address=:9090'])), ':9090');
  });
});

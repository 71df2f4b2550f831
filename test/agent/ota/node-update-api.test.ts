// The node's over-the-air update API on a real agent's local HTTP server (port 0), against the
// embedded API server: GET /v1/update shows the available revision with its plan, POST applies it by
// setting the node's desired revision; refusals are JSON Status answers with a reason.

import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { AgentHttpServer } from '../../../src/agent/http/agent-http-server.ts';
import { mountNodeUpdateApi } from '../../../src/agent/ota/node-update-routes.ts';
import {
  AVAILABLE_REVISION_ANNOTATION,
  CURRENT_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
} from '../../../src/api/node-protocol.ts';
import { eventually } from '../../support/eventually.ts';
import {
  type Cluster,
  createPool,
  createRevision,
  demoServiceSpec,
  getNode,
  startCluster,
  startNode,
  type TestNode,
} from '../agent-harness.ts';

interface Answer {
  status: number;
  body: Record<string, unknown> & { reason?: string; plan?: Record<string, unknown> };
}

describe('node update API (OTA)', () => {
  let cluster: Cluster;
  let node: TestNode;
  let http: AgentHttpServer;
  let base: string;
  let apiStopped = false;

  const call = async (method: 'GET' | 'POST', body?: unknown): Promise<Answer> => {
    const response = await fetch(`${base}/v1/update`, {
      method,
      ...(body !== undefined
        ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }
        : {}),
    });
    assert.equal(response.headers.get('content-type'), 'application/json');
    return { status: response.status, body: (await response.json()) as Answer['body'] };
  };

  const offer = async (revision: string) => {
    await cluster.admin.patch(`/api/v1/nodes/${node.name}`, {
      metadata: { annotations: { [AVAILABLE_REVISION_ANNOTATION]: revision } },
    });
    // The agent sees it through its Node watch.
    await eventually('agent sees the offer', async () =>
      (await call('GET')).status !== 404 ? true : undefined,
    );
  };

  before(async () => {
    cluster = await startCluster();
    await createPool(cluster, 'ota', { nodeSelector: { matchLabels: { role: 'edge' } } });
    await createPool(cluster, 'other', { nodeSelector: { matchLabels: { role: 'core' } } });
    await cluster.admin.create('/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'ota-1', labels: { role: 'edge' } },
    });
    node = await startNode(cluster, 'ota-1', {
      createNode: false,
      // Restarts take a while, so a second request finds the first one still applying.
      systemd: { durations: { restart: 1500 } },
    });
    http = new AgentHttpServer(node.agent, { port: 0 });
    mountNodeUpdateApi(http, node.agent.updates);
    const { port } = await http.listen();
    base = `http://127.0.0.1:${port}`;
  });
  after(async () => {
    await http?.close();
    await node?.stop();
    if (!apiStopped) await cluster?.stop();
    else {
      cluster.admin.close();
      rmSync(cluster.dir, { recursive: true, force: true });
    }
  });

  it('refuses with 404 NoUpdateAvailable while nothing is offered', async () => {
    const get = await call('GET');
    assert.equal(get.status, 404);
    assert.equal(get.body.reason, 'NoUpdateAvailable');
    assert.equal(get.body.kind, 'Status');
    const post = await call('POST');
    assert.equal(post.status, 404);
    assert.equal(post.body.reason, 'NoUpdateAvailable');
    const node1 = await getNode(cluster, node.name);
    assert.equal(
      node1.metadata?.annotations?.[DESIRED_REVISION_ANNOTATION],
      undefined,
      'nothing was applied',
    );
  });

  it('shows an offered revision with its plan and applies it on POST', async () => {
    const first = await createRevision(cluster, 'ota', demoServiceSpec('1'));
    await offer(first.metadata.name);
    const get = await call('GET');
    assert.equal(get.status, 200);
    assert.equal(get.body.availableRevision, first.metadata.name);
    assert.equal(get.body.pool, 'ota');
    assert.equal(get.body.currentRevision, undefined);
    assert.match(String(get.body.plan?.summary), /1 file added/);

    const post = await call('POST', { revision: first.metadata.name });
    assert.equal(post.status, 202);
    assert.equal(post.body.revision, first.metadata.name);
    await eventually('first revision applied', async () => {
      const a = (await getNode(cluster, node.name)).metadata?.annotations ?? {};
      return a[CURRENT_REVISION_ANNOTATION] === first.metadata.name && a['nodeherd.io/state'] === 'Done'
        ? true
        : undefined;
    });
    // Applied: nothing left to pull.
    const again = await call('GET');
    assert.equal(again.status, 404);
    assert.match(String(again.body.message), /already runs revision/);
  });

  it('plans from the last applied revision (restarts) and refuses a second apply while one runs', async () => {
    const second = await createRevision(cluster, 'ota', demoServiceSpec('2'));
    await offer(second.metadata.name);
    const get = await call('GET');
    assert.equal(get.status, 200);
    assert.deepEqual(get.body.plan?.restartedUnits, ['demo.service']);
    assert.equal(get.body.plan?.disruption, 'Restart');
    assert.equal(get.body.plan?.drainNeeded, false);
    assert.equal(get.body.plan?.rebootNeeded, false);

    const stale = await call('POST', { revision: 'ota-somethingelse' });
    assert.equal(stale.status, 409);
    assert.equal(stale.body.reason, 'RevisionMismatch');

    assert.equal((await call('POST')).status, 202);
    const busy = await call('POST');
    assert.equal(busy.status, 409);
    assert.equal(busy.body.reason, 'ApplyInProgress');
    await eventually('second revision applied', async () => {
      const a = (await getNode(cluster, node.name)).metadata?.annotations ?? {};
      return a[CURRENT_REVISION_ANNOTATION] === second.metadata.name && a['nodeherd.io/state'] === 'Done'
        ? true
        : undefined;
    });
  });

  it('refuses a revision of a pool that does not select this node (409 WrongPool)', async () => {
    const foreign = await createRevision(cluster, 'other', demoServiceSpec('x'));
    await offer(foreign.metadata.name);
    const post = await call('POST');
    assert.equal(post.status, 409);
    assert.equal(post.body.reason, 'WrongPool');
    const a = (await getNode(cluster, node.name)).metadata?.annotations ?? {};
    assert.notEqual(a[DESIRED_REVISION_ANNOTATION], foreign.metadata.name);
  });

  it('refuses with 503 ApiServerUnreachable when the API server is gone', async () => {
    const third = await createRevision(cluster, 'ota', demoServiceSpec('3'));
    await offer(third.metadata.name);
    await cluster.api.stop();
    apiStopped = true;
    const post = await call('POST');
    assert.equal(post.status, 503);
    assert.equal(post.body.reason, 'ApiServerUnreachable');
    const get = await call('GET');
    assert.equal(get.status, 503);
  });
});

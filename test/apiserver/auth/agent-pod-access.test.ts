import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ResourceAttributes } from '../../../src/apiserver/auth/authorizer.ts';
import { agentMayUseBoundPod, type PodRequest } from '../../../src/apiserver/auth/node-bound-pods.ts';
import type { KubeObject } from '../../../src/apiserver/storage/types.ts';
import { isKubeError } from '../../../src/kube/kube-error.ts';
import { LightKubeClient } from '../../../src/kube/light/light-kube-client.ts';
import { authorize } from '../../../src/profile/nodeherd-authorization.ts';
import { nodeherdIdentities } from '../../../src/profile/nodeherd-identities.ts';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';

describe('agentMayUseBoundPod', () => {
  const agent = nodeherdIdentities.identityFor('node', 'edge-1');
  const podOn =
    (node: string | undefined): (() => KubeObject | undefined) =>
    () => ({ metadata: { name: 'p' }, spec: { nodeName: node } });
  const request = (over: Partial<PodRequest> = {}): PodRequest => ({
    verb: 'get',
    group: '',
    resource: 'pods',
    subresource: undefined,
    namespace: 'default',
    name: 'p',
    ...over,
  });
  const table: { name: string; request: PodRequest; pod: () => KubeObject | undefined; allowed: boolean }[] =
    [
      { name: 'get of a pod on its node', request: request(), pod: podOn('edge-1'), allowed: true },
      {
        name: 'delete of a pod on its node',
        request: request({ verb: 'delete' }),
        pod: podOn('edge-1'),
        allowed: true,
      },
      {
        name: 'a pod that does not exist (404 follows)',
        request: request(),
        pod: () => undefined,
        allowed: true,
      },
      {
        name: 'a pod on another node',
        request: request({ verb: 'delete' }),
        pod: podOn('edge-2'),
        allowed: false,
      },
      { name: 'an unscheduled pod', request: request(), pod: podOn(undefined), allowed: false },
      { name: 'patch', request: request({ verb: 'patch' }), pod: podOn('edge-1'), allowed: false },
      { name: 'update', request: request({ verb: 'update' }), pod: podOn('edge-1'), allowed: false },
      {
        name: 'create',
        request: request({ verb: 'create', name: undefined }),
        pod: podOn('edge-1'),
        allowed: false,
      },
      {
        name: 'deletecollection',
        request: request({ verb: 'deletecollection', name: undefined }),
        pod: podOn('edge-1'),
        allowed: false,
      },
      {
        name: 'pods/status',
        request: request({ verb: 'get', subresource: 'status' }),
        pod: podOn('edge-1'),
        allowed: false,
      },
      {
        name: 'pods/eviction',
        request: request({ verb: 'create', subresource: 'eviction' }),
        pod: podOn('edge-1'),
        allowed: false,
      },
      {
        name: 'a secret of that name',
        request: request({ resource: 'secrets' }),
        pod: podOn('edge-1'),
        allowed: false,
      },
      {
        name: 'pods of another group',
        request: request({ group: 'metrics.k8s.io' }),
        pod: podOn('edge-1'),
        allowed: false,
      },
    ];
  for (const row of table) {
    test(`${row.allowed ? 'allows' : 'denies'} ${row.name}`, () => {
      assert.equal(agentMayUseBoundPod(agent, row.request, row.pod), row.allowed);
    });
  }

  test('only agents: the controller and admin go through their own rules', () => {
    assert.equal(
      agentMayUseBoundPod(nodeherdIdentities.identityFor('controller'), request(), podOn('edge-1')),
      false,
    );
    assert.equal(
      agentMayUseBoundPod(nodeherdIdentities.identityFor('admin'), request(), podOn('edge-1')),
      false,
    );
  });

  test('does not load the pod for requests it cannot allow anyway', () => {
    let loads = 0;
    agentMayUseBoundPod(agent, request({ verb: 'patch' }), () => {
      loads++;
      return undefined;
    });
    assert.equal(loads, 0);
  });
});

describe('an agent and the pods of its node, through the API server', () => {
  let local: LocalApiServer;
  let admin: LightKubeClient;
  let agent: LightKubeClient;
  let agentToken: string;
  const pods = '/api/v1/namespaces/default/pods';

  const createPod = (name: string, nodeName?: string) =>
    admin.create(pods, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'main', image: 'busybox' }] },
    });

  async function status(request: () => Promise<unknown>): Promise<number> {
    try {
      await request();
      return 200;
    } catch (err) {
      if (isKubeError(err, 403)) return 403;
      if (isKubeError(err, 404)) return 404;
      throw err;
    }
  }

  before(async () => {
    local = await startLocalApiServer();
    admin = LightKubeClient.fromKubeconfig(local.kubeconfigPath);
    const path = join(local.dataDir, 'edge-1.kubeconfig');
    agentToken = await local.server.issueCredential('node', 'edge-1', path);
    agent = LightKubeClient.fromKubeconfig(path);
    await createPod('mine-a', 'edge-1');
    await createPod('mine-b', 'edge-1');
    await createPod('theirs', 'edge-2');
    await createPod('pending');
  });
  after(async () => {
    agent?.close();
    admin?.close();
    await local?.stop();
  });

  test('gets and deletes pods bound to its own node', async () => {
    const pod = await agent.get(`${pods}/mine-a`);
    assert.equal((pod.spec as { nodeName?: string }).nodeName, 'edge-1');
    await agent.delete(`${pods}/mine-b`);
    assert.equal(await status(() => admin.get(`${pods}/mine-b`)), 404);
  });

  test("is refused another node's pod and an unscheduled one, and the pods survive", async () => {
    assert.equal(await status(() => agent.get(`${pods}/theirs`)), 403);
    assert.equal(await status(() => agent.delete(`${pods}/theirs`)), 403);
    assert.equal(await status(() => agent.delete(`${pods}/pending`)), 403);
    assert.equal(await status(() => admin.get(`${pods}/theirs`)), 200);
    assert.equal(await status(() => admin.get(`${pods}/pending`)), 200);
  });

  test('gets 404 for a pod that does not exist', async () => {
    assert.equal(await status(() => agent.get(`${pods}/nowhere`)), 404);
    assert.equal(await status(() => agent.delete(`${pods}/nowhere`)), 404);
  });

  // Issue 31: a DELETE is authorized when its headers arrive, but its body (DeleteOptions) is read
  // later. A pod that did not exist at authorization and is created on another node before the body
  // ends must not be deleted: the stored pod is judged inside the delete itself.
  test("a delete authorized while the pod was missing does not remove another node's pod created meanwhile", async () => {
    const url = new URL(`${local.server.url}${pods}/later`);
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'DeleteOptions' });
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpsRequest(
        url,
        {
          method: 'DELETE',
          ca: local.server.caPem,
          headers: {
            authorization: `Bearer ${agentToken}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.flushHeaders();
      // The headers are authorized now; the body follows once the pod exists on edge-2.
      void sleep(300)
        .then(() => createPod('later', 'edge-2'))
        .then(() => req.end(body), reject);
    });
    const { status: code, text } = await answer;
    assert.equal(code, 403, text);
    assert.match(text, /bound to node \\"edge-2\\"/);
    const survivor = await admin.get(`${pods}/later`);
    assert.equal((survivor.spec as { nodeName?: string }).nodeName, 'edge-2');
  });

  test('every other pod request stays denied', async () => {
    assert.equal(
      await status(() => agent.patch(`${pods}/mine-a`, { metadata: { labels: { x: 'y' } } })),
      403,
    );
    assert.equal(
      await status(() => agent.patch(`${pods}/mine-a/status`, { status: { phase: 'Failed' } })),
      403,
    );
    assert.equal(await status(() => agent.get(`${pods}/mine-a/status`)), 403);
    assert.equal(
      await status(() =>
        agent.create(pods, {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'new' },
          spec: { nodeName: 'edge-1' },
        }),
      ),
      403,
    );
    assert.equal(await status(() => agent.list(pods)), 403);
    assert.equal(await status(() => agent.delete(pods)), 403);
    assert.equal(await status(() => agent.list(pods, { fieldSelector: 'spec.nodeName=edge-2' })), 403);
    // What it could do before is unchanged.
    const own = await agent.list('/api/v1/pods', { fieldSelector: 'spec.nodeName=edge-1' });
    assert.deepEqual(
      own.items.map((p) => p.metadata?.name),
      ['mine-a'],
    );
    assert.equal(await status(() => agent.get('/api/v1/namespaces/default/secrets/anything')), 403);
  });
});

describe('the controller identity has what the DaemonSet updater needs, and no more of it', () => {
  const controller = nodeherdIdentities.identityFor('controller');
  const rights: { attrs: ResourceAttributes; allowed: boolean }[] = [
    { attrs: { verb: 'list', group: 'apps', resource: 'daemonsets' }, allowed: true },
    { attrs: { verb: 'watch', group: 'apps', resource: 'daemonsets' }, allowed: true },
    { attrs: { verb: 'list', group: 'apps', resource: 'controllerrevisions' }, allowed: true },
    { attrs: { verb: 'watch', group: 'apps', resource: 'controllerrevisions' }, allowed: true },
    { attrs: { verb: 'watch', group: '', resource: 'pods' }, allowed: true },
    {
      attrs: { verb: 'delete', group: '', resource: 'pods', namespace: 'default', name: 'p' },
      allowed: true,
    },
    {
      attrs: {
        verb: 'patch',
        group: '',
        resource: 'pods',
        subresource: 'status',
        namespace: 'default',
        name: 'p',
      },
      allowed: true,
    },
    { attrs: { verb: 'create', group: '', resource: 'events', namespace: 'default' }, allowed: true },
    {
      attrs: { verb: 'patch', group: '', resource: 'events', namespace: 'default', name: 'e' },
      allowed: true,
    },
    // It never creates pods or ControllerRevisions: the DaemonSet controller does.
    { attrs: { verb: 'create', group: '', resource: 'pods', namespace: 'default' }, allowed: false },
    {
      attrs: { verb: 'create', group: 'apps', resource: 'controllerrevisions', namespace: 'default' },
      allowed: false,
    },
    {
      attrs: { verb: 'delete', group: 'apps', resource: 'daemonsets', namespace: 'default', name: 'd' },
      allowed: false,
    },
  ];
  for (const { attrs, allowed } of rights) {
    const what = `${attrs.verb} ${attrs.group || 'core'}/${attrs.resource}${attrs.subresource ? `/${attrs.subresource}` : ''}`;
    test(`${allowed ? 'may' : 'may not'} ${what}`, () => {
      assert.equal(authorize(controller, attrs).allowed, allowed);
    });
  }
});

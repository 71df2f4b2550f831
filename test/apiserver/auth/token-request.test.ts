// TokenRequest on the embedded API server, driven by kubectl (`kubectl create token`) and the light
// client: node-bound ServiceAccount tokens, what they authenticate as, and kube's rules for when they
// stop working (bound pod deleted or replaced, expiry, another audience, a forged signature).

import assert from 'node:assert/strict';
import { createPublicKey, verify } from 'node:crypto';
import { after, before, test } from 'node:test';
import {
  AGENT_DAEMONSET_SERVICE_ACCOUNT,
  AGENT_NAMESPACE,
  CONTROLLER_SERVICE_ACCOUNT,
} from '../../../src/api/users.ts';
import { authenticateServiceAccountToken } from '../../../src/apiserver/auth/token-request.ts';
import { KubeError } from '../../../src/kube/kube-error.ts';
import { LightKubeClient } from '../../../src/kube/light/light-kube-client.ts';
import type { KubeObject } from '../../../src/kube/light/types.ts';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';

let local: LocalApiServer;
let admin: LightKubeClient;
// The agents' namespace (seeded by the server's bootstrap policy), where the DaemonSet runs.
const NS = AGENT_NAMESPACE;
const SA = AGENT_DAEMONSET_SERVICE_ACCOUNT;
const TOKEN_PATH = `/api/v1/namespaces/${NS}/serviceaccounts/${SA}/token`;

before(async () => {
  local = await startLocalApiServer();
  admin = LightKubeClient.fromKubeconfig(local.kubeconfigPath);
  // The server keeps namespace nodeherd-agents itself (deploy/'s policy, seeded at start).
  for (const name of [SA, CONTROLLER_SERVICE_ACCOUNT, 'someone-else']) {
    await admin
      .create(`/api/v1/namespaces/${NS}/serviceaccounts`, {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name },
      })
      .catch((error: KubeError) => {
        if (error.status !== 409) throw error;
      });
  }
  for (const name of ['node-a', 'node-b']) {
    await admin.create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name } });
  }
});

after(async () => {
  admin?.close();
  await local?.stop();
});

async function createPod(name: string, nodeName: string, serviceAccountName = SA): Promise<KubeObject> {
  return admin.create(`/api/v1/namespaces/${NS}/pods`, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { nodeName, serviceAccountName, containers: [{ name: 'agent', image: 'agent' }] },
  });
}

async function tokenFor(body: Record<string, unknown>, path = TOKEN_PATH): Promise<string> {
  const answer = await admin.create<KubeObject & { status: { token: string } }>(path, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: body,
  });
  return answer.status.token;
}

function clientWith(token: string): LightKubeClient {
  return new LightKubeClient({ server: local.server.url, caPem: local.server.caPem, token });
}

function claimsOf(token: string): Record<string, any> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
}

async function statusOf(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
    return 200;
  } catch (error) {
    assert.ok(error instanceof KubeError, String(error));
    return error.status;
  }
}

test('kubectl create token issues a pod-bound token whose claims name the pod and its node', async () => {
  const pod = await createPod('agent-kubectl', 'node-a');
  const result = await local.kubectl([
    'create',
    'token',
    SA,
    '-n',
    NS,
    '--bound-object-kind',
    'Pod',
    '--bound-object-name',
    'agent-kubectl',
    '--duration',
    '2h',
  ]);
  assert.equal(result.code, 0, result.stderr);
  const token = result.stdout.trim();
  const claims = claimsOf(token);
  assert.equal(claims.sub, `system:serviceaccount:${NS}:${SA}`);
  assert.equal(claims.exp - claims.iat, 7200);
  assert.deepEqual(claims['kubernetes.io'].pod, { name: 'agent-kubectl', uid: pod.metadata?.uid });
  const node = await admin.get('/api/v1/nodes/node-a');
  assert.deepEqual(claims['kubernetes.io'].node, { name: 'node-a', uid: node.metadata?.uid });

  const user = authenticateServiceAccountToken(
    local.server.serviceAccountTokens,
    local.server.boundObjects,
    token,
  );
  assert.ok(user);
  assert.deepEqual(user.groups, [
    'system:serviceaccounts',
    `system:serviceaccounts:${NS}`,
    'system:authenticated',
  ]);
  assert.deepEqual(user.extra['authentication.kubernetes.io/node-name'], ['node-a']);
  assert.deepEqual(user.extra['authentication.kubernetes.io/pod-uid'], [pod.metadata?.uid]);
  assert.match(user.extra['authentication.kubernetes.io/credential-id']![0]!, /^JTI=[0-9a-f-]{36}$/);
});

test('the DaemonSet agent token of node-a acts as the agent of node-a, and only of node-a', async () => {
  await createPod('agent-a', 'node-a');
  const agent = clientWith(
    await tokenFor({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'agent-a' } }),
  );
  try {
    await agent.patch('/api/v1/nodes/node-a', { metadata: { annotations: { 'nodeherd.io/state': 'Idle' } } });
    // The refusal names who asked: the agent of node-a, not the ServiceAccount.
    await assert.rejects(
      agent.patch('/api/v1/nodes/node-b', { metadata: { annotations: { x: 'y' } } }),
      (error: KubeError) => error.status === 403 && /"nodeherd:agent:node-a"/.test(error.message),
    );
  } finally {
    agent.close();
  }
});

test('a Node-bound token of the agent ServiceAccount is that node’s agent; other ServiceAccounts are not agents', async () => {
  const nodeBound = clientWith(await tokenFor({ boundObjectRef: { kind: 'Node', name: 'node-b' } }));
  const unbound = clientWith(await tokenFor({}));
  await createPod('other-a', 'node-a', 'someone-else');
  const other = clientWith(
    await tokenFor(
      { boundObjectRef: { kind: 'Pod', name: 'other-a' } },
      `/api/v1/namespaces/${NS}/serviceaccounts/someone-else/token`,
    ),
  );
  try {
    assert.equal(await statusOf(nodeBound.get('/api/v1/nodes/node-b')), 200);
    assert.equal(await statusOf(nodeBound.get('/api/v1/nodes/node-a')), 403);
    // Not bound to any node: nothing confines it, so it is no agent at all.
    assert.equal(await statusOf(unbound.get('/api/v1/nodes/node-a')), 401);
    assert.equal(await statusOf(other.get('/api/v1/nodes/node-a')), 401);
  } finally {
    nodeBound.close();
    unbound.close();
    other.close();
  }
});

test('a token stops working when its pod is deleted, even if a pod of the same name comes back', async () => {
  await createPod('agent-gone', 'node-a');
  const agent = clientWith(await tokenFor({ boundObjectRef: { kind: 'Pod', name: 'agent-gone' } }));
  try {
    assert.equal(await statusOf(agent.get('/api/v1/nodes/node-a')), 200);
    await admin.delete(`/api/v1/namespaces/${NS}/pods/agent-gone`, { gracePeriodSeconds: 0 });
    assert.equal(await statusOf(agent.get('/api/v1/nodes/node-a')), 401);
    await createPod('agent-gone', 'node-a'); // same name, another uid
    assert.equal(await statusOf(agent.get('/api/v1/nodes/node-a')), 401);
  } finally {
    agent.close();
  }
});

test('expired, wrong-audience and forged tokens are refused; the JWKS verifies a real one', async () => {
  await createPod('agent-checks', 'node-a');
  const token = await tokenFor({ boundObjectRef: { kind: 'Pod', name: 'agent-checks' } });
  const issued = claimsOf(token);
  const { serviceAccountTokens, boundObjects } = local.server;
  assert.ok(authenticateServiceAccountToken(serviceAccountTokens, boundObjects, token, issued.iat + 3000));
  assert.equal(
    authenticateServiceAccountToken(serviceAccountTokens, boundObjects, token, issued.exp + 61),
    undefined,
    'expired (beyond the 60 s leeway)',
  );
  const forAnother = await tokenFor({
    audiences: ['vault'],
    boundObjectRef: { kind: 'Pod', name: 'agent-checks' },
  });
  const vaultClient = clientWith(forAnother);
  assert.equal(await statusOf(vaultClient.get('/api/v1/nodes/node-a')), 401);
  vaultClient.close();

  const [header, , signature] = token.split('.');
  const forged = `${header}.${Buffer.from(JSON.stringify({ ...issued, 'kubernetes.io': { ...issued['kubernetes.io'], node: { name: 'node-b', uid: '' } } })).toString('base64url')}.${signature}`;
  assert.equal(authenticateServiceAccountToken(serviceAccountTokens, boundObjects, forged), undefined);

  // The published key verifies the signature, as an external OIDC verifier would.
  const published = await local.kubectl(['get', '--raw', '/openid/v1/jwks']);
  assert.equal(published.code, 0, published.stderr);
  const jwks = JSON.parse(published.stdout) as { keys: Record<string, string>[] };
  const key = createPublicKey({ key: jwks.keys[0]!, format: 'jwk' });
  const [h, p, s] = token.split('.') as [string, string, string];
  assert.ok(
    verify(
      'sha256',
      Buffer.from(`${h}.${p}`),
      { key, dsaEncoding: 'ieee-p1363' },
      Buffer.from(s, 'base64url'),
    ),
  );
});

test('bad TokenRequests are refused with the field named, and nothing is issued', async () => {
  const tooShort = admin.create(TOKEN_PATH, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { expirationSeconds: 60 },
  });
  await assert.rejects(tooShort, (error: KubeError) => {
    assert.equal(error.status, 422);
    assert.match(
      error.message,
      /spec\.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes/,
    );
    return true;
  });
  await assert.rejects(
    admin.create(TOKEN_PATH, {
      kind: 'TokenRequest',
      spec: { boundObjectRef: { kind: 'Secret', name: 'x' } },
    }),
    (error: KubeError) => error.status === 422 && /spec\.boundObjectRef\.kind/.test(error.message),
  );
  await assert.rejects(
    admin.create(TOKEN_PATH, {
      kind: 'TokenRequest',
      spec: { boundObjectRef: { kind: 'Pod', name: 'no-such-pod' } },
    }),
    (error: KubeError) => error.status === 404 && /pods "no-such-pod" not found/.test(error.message),
  );
  await assert.rejects(
    admin.create(`/api/v1/namespaces/${NS}/serviceaccounts/absent/token`, { kind: 'TokenRequest', spec: {} }),
    (error: KubeError) => error.status === 404,
  );
  // An agent may not mint tokens, not even for itself.
  await createPod('agent-mint', 'node-a');
  const agent = clientWith(await tokenFor({ boundObjectRef: { kind: 'Pod', name: 'agent-mint' } }));
  assert.equal(await statusOf(agent.create(TOKEN_PATH, { kind: 'TokenRequest', spec: {} })), 403);
  agent.close();
});

test('the issuer discovery documents are served', async () => {
  const { serviceAccountTokens } = local.server;
  const config = serviceAccountTokens.openidConfiguration(`${local.server.url}/openid/v1/jwks`);
  assert.equal(config.issuer, 'https://kubernetes.default.svc.cluster.local');
  const result = await local.kubectl(['get', '--raw', '/.well-known/openid-configuration']);
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(JSON.parse(result.stdout), config);
  const jwks = await local.kubectl(['get', '--raw', '/openid/v1/jwks']);
  assert.equal(JSON.parse(jwks.stdout).keys[0].kid, serviceAccountTokens.keyId);
});

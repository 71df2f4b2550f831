// Impersonation (issue 33): `kubectl --as`/`--as-group` and `kubectl auth can-i --as` with real
// kubectl against the embedded server. The impersonated user has its own rights, never the caller's;
// a caller the authorizer does not allow the `impersonate` verb gets 403 and nothing happens; the
// audit line names both users.

import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';

describe('impersonation through kubectl', () => {
  let local: LocalApiServer;
  let agentKubeconfig: string;
  let agentToken: string;
  let adminToken: string;
  const logLines: Record<string, unknown>[] = [];

  before(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n'))
          if (line.trim()) logLines.push(JSON.parse(line));
        done();
      },
    });
    local = await startLocalApiServer({ logger: pino({ level: 'info' }, sink) });
    agentKubeconfig = join(local.dataDir, 'edge-1.kubeconfig');
    agentToken = await local.server.issueCredential('node', 'edge-1', agentKubeconfig);
    adminToken = local.kubeConfig().getCurrentUser()?.token ?? '';
    for (const node of ['edge-1', 'edge-2']) {
      const created = await local.kubectl(['create', '-f', '-'], {
        input: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: node } }),
      });
      assert.equal(created.code, 0, created.stderr);
    }
  });
  after(() => local?.stop());

  function send(
    token: string,
    method: string,
    path: string,
    headers: Record<string, string | string[]>,
    body?: string,
  ): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const req = httpsRequest(`${local.server.url}${path}`, {
        method,
        ca: local.server.caPem,
        headers: { authorization: `Bearer ${token}`, ...headers },
      });
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  const asAgent = ['--as', 'nodeherd:agent:edge-1', '--as-group', 'nodeherd:agents'];

  test('the admin acting as an agent has the agent rights, not its own', async () => {
    const own = await local.kubectl(['get', 'node', 'edge-1', '-o', 'name', ...asAgent]);
    assert.equal(own.code, 0, own.stderr);
    assert.equal(own.stdout.trim(), 'node/edge-1');
    const other = await local.kubectl(['get', 'node', 'edge-2', ...asAgent]);
    assert.notEqual(other.code, 0);
    assert.match(other.stderr, /Forbidden|forbidden/);
    assert.match(other.stderr, /nodeherd:agent:edge-1/);
    const secrets = await local.kubectl(['get', 'secrets', '-n', 'kube-system', ...asAgent]);
    assert.notEqual(secrets.code, 0);
    assert.match(secrets.stderr, /forbidden/);
    const label = await local.kubectl(['label', 'node', 'edge-1', 'team=x', ...asAgent]);
    assert.notEqual(label.code, 0, 'an agent may not label its Node, impersonated or not');
    const node = await local.kubectl(['get', 'node', 'edge-1', '-o', 'jsonpath={.metadata.labels.team}']);
    assert.equal(node.stdout, '');
  });

  test('auth can-i --as answers for the impersonated user', async () => {
    const canDelete = await local.kubectl(['auth', 'can-i', 'delete', 'nodes', ...asAgent]);
    assert.equal(canDelete.stdout.trim(), 'no');
    assert.equal(canDelete.code, 1);
    const canGetOwn = await local.kubectl(['auth', 'can-i', 'get', 'node/edge-1', ...asAgent]);
    assert.equal(canGetOwn.stdout.trim(), 'yes', canGetOwn.stderr);
    const alice = await local.kubectl(['auth', 'can-i', 'get', 'pods', '--as', 'alice']);
    assert.equal(alice.stdout.trim(), 'no');
    const masters = await local.kubectl([
      'auth',
      'can-i',
      'delete',
      'nodes',
      '--as',
      'alice',
      '--as-group',
      'system:masters',
    ]);
    assert.equal(masters.stdout.trim(), 'yes', masters.stderr);
    const controller = await local.kubectl([
      'auth',
      'can-i',
      'list',
      'nodeconfigs.nodeherd.io',
      '--as',
      'system:serviceaccount:nodeherd:nodeherd-controller',
    ]);
    assert.equal(controller.stdout.trim(), 'yes', controller.stderr);
  });

  test('auth whoami --as names the impersonated user, its groups and extra', async () => {
    const who = await local.kubectl([
      'auth',
      'whoami',
      '-o',
      'json',
      '--as',
      'alice',
      '--as-group',
      'devs',
      '--as-group',
      'ops',
      '--as-uid',
      'u-1',
    ]);
    assert.equal(who.code, 0, who.stderr);
    const info = JSON.parse(who.stdout).status.userInfo;
    assert.equal(info.username, 'alice');
    assert.equal(info.uid, 'u-1');
    assert.deepEqual(info.groups, ['devs', 'ops', 'system:authenticated']);
    // Extra (kubectl's --as-user-extra is newer than some kubectl here): the header itself.
    const raw = await send(
      adminToken,
      'POST',
      '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      {
        'impersonate-user': 'alice',
        'impersonate-extra-team%2Fcolour': ['blue', 'green'],
        'content-type': 'application/json',
      },
      JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
    );
    assert.equal(raw.status, 201, raw.text);
    assert.deepEqual(JSON.parse(raw.text).status.userInfo.extra, { 'team/colour': ['blue', 'green'] });
  });

  test('a caller not allowed to impersonate gets 403 and nothing is done', async () => {
    const escalate = await local.kubectl(
      ['create', 'namespace', 'taken-over', '--as', 'nodeherd:admin', '--as-group', 'system:masters'],
      { kubeconfig: agentKubeconfig },
    );
    assert.notEqual(escalate.code, 0);
    assert.match(escalate.stderr, /cannot impersonate resource "users"/);
    const exists = await local.kubectl(['get', 'namespace', 'taken-over']);
    assert.notEqual(exists.code, 0);
    assert.match(exists.stderr, /NotFound|not found/);
    // Asking for a group alone, as the agent, still needs the impersonate verb on that group.
    const canI = await local.kubectl(['auth', 'can-i', 'get', 'secrets', '--as', 'nodeherd:agent:edge-2'], {
      kubeconfig: agentKubeconfig,
    });
    assert.notEqual(canI.code, 0);
    assert.match(canI.stderr, /impersonate/);
  });

  test('a group, uid or extra without a user is 400', async () => {
    const answer = await send(agentToken, 'GET', '/api/v1/namespaces', {
      'impersonate-group': 'system:masters',
    });
    assert.equal(answer.status, 400, answer.text);
    assert.match(answer.text, /without impersonating a user/);
  });

  test('the audit line names the caller and the impersonated user', async () => {
    await local.kubectl(['get', 'node', 'edge-1', ...asAgent]);
    const line = logLines.find(
      (l) => l.msg === 'impersonated request' && l.impersonatedUser === 'nodeherd:agent:edge-1',
    );
    assert.ok(line, 'an impersonated request is logged');
    assert.equal(line.user, 'nodeherd:admin');
    assert.equal(typeof line.auditId, 'string');
  });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RequestAttributes } from '../../../src/apiserver/auth/authorizer.ts';
import { forbiddenError, unauthorizedError } from '../../../src/apiserver/auth/denials.ts';
import { authorize } from '../../../src/profile/nodeherd-authorization.ts';
import { nodeherdIdentities } from '../../../src/profile/nodeherd-identities.ts';

test('401 renders the Status a real API server sends', () => {
  assert.deepEqual(unauthorizedError().toStatus(), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'Unauthorized',
    reason: 'Unauthorized',
    code: 401,
  });
});

test('403 for a resource names user, verb, resource with subresource, group and the rule', () => {
  const agent = nodeherdIdentities.identityFor('node', 'n1');
  const attrs: RequestAttributes = {
    verb: 'patch',
    group: '',
    resource: 'nodes',
    subresource: 'status',
    name: 'n2',
  };
  const decision = authorize(agent, attrs);
  assert.equal(decision.allowed, false);
  const error = forbiddenError(agent, attrs, decision.allowed ? '' : decision.reason);
  const status = error.toStatus();
  assert.equal(status.code, 403);
  assert.equal(status.reason, 'Forbidden');
  assert.equal(
    status.message,
    'nodes/status "n2" is forbidden: User "nodeherd:agent:n1" cannot patch resource "nodes/status" in API group "": node agent nodeherd:agent:n1 may only patch its own Node "n1"',
  );
  assert.deepEqual(status.details, { name: 'n2', group: '', kind: 'nodes/status' });
});

test('403 for a custom resource list carries the group and no name', () => {
  const controller = nodeherdIdentities.identityFor('controller');
  const error = forbiddenError(
    controller,
    { verb: 'deletecollection', group: 'nodeherd.io', resource: 'nodeconfigpools' },
    'because',
  );
  assert.equal(
    error.message,
    'nodeconfigpools.nodeherd.io is forbidden: User "system:serviceaccount:nodeherd:nodeherd-controller" cannot deletecollection resource "nodeconfigpools" in API group "nodeherd.io": because',
  );
});

test('403 for a non-resource path names the path', () => {
  const error = forbiddenError(
    nodeherdIdentities.identityFor('node', 'n1'),
    { verb: 'get', path: '/metrics' },
    'not for agents',
  );
  assert.equal(error.code, 403);
  assert.equal(
    error.message,
    'forbidden: User "nodeherd:agent:n1" cannot get path "/metrics": not for agents',
  );
});

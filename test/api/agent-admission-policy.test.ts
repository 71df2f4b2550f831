// The evaluator against the policy nodeherd ships (deploy/agent/admission-policy.yaml): what an agent
// may and may not write, decided as kube-apiserver would decide it.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import {
  type AdmissionAttributes,
  evaluateAdmissionPolicy,
} from '../../src/apiserver/cel/admission-policy.ts';

const docs = parseAllDocuments(
  readFileSync(new URL('../../deploy/agent/admission-policy.yaml', import.meta.url), 'utf8'),
).map((d) => d.toJS() as Record<string, unknown>);
const policy = docs.find((d) => d.kind === 'ValidatingAdmissionPolicy')!;
const binding = docs.find((d) => d.kind === 'ValidatingAdmissionPolicyBinding')!;

const agent = { username: 'nodeherd:agent:node-1', groups: ['nodeherd:agents', 'system:authenticated'] };
const saAgent = {
  username: 'system:serviceaccount:nodeherd-agents:node-1',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:nodeherd-agents', 'system:authenticated'],
};
const core = (resource: string) => ({ group: '', version: 'v1', resource });
const node = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: { 'kubernetes.io/hostname': name }, annotations: {} },
  spec: { podCIDR: '10.0.0.0/24' },
  ...extra,
});
const event = (about: Record<string, unknown>, namespace = 'default') => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'e1', namespace },
  involvedObject: about,
  reason: 'Applied',
});

function decide(a: AdmissionAttributes) {
  return evaluateAdmissionPolicy(policy, a, binding);
}

function assertAllowed(a: AdmissionAttributes) {
  const d = decide(a);
  assert.equal(d.matched, true, 'the policy applies');
  assert.deepEqual(d.failures, []);
  assert.equal(d.allowed, true);
}

function assertDenied(a: AdmissionAttributes, messagePart: string) {
  const d = decide(a);
  assert.equal(d.matched, true, 'the policy applies');
  assert.equal(d.allowed, false);
  assert.ok(
    d.failures.some((f) => f.message.includes(messagePart) && f.reason === 'Forbidden'),
    `a Forbidden failure saying "${messagePart}" in ${JSON.stringify(d.failures)}`,
  );
}

test('an agent may update the status and annotations of its own Node', () => {
  const old = node('node-1');
  assertAllowed({
    operation: 'UPDATE',
    resource: core('nodes'),
    subResource: 'status',
    name: 'node-1',
    object: { ...old, status: { conditions: [{ type: 'NodeConfigReady', status: 'True' }] } },
    oldObject: old,
    userInfo: agent,
  });
  const annotated = node('node-1');
  (annotated.metadata as { annotations: Record<string, string> }).annotations[
    'nodeherd.io/current-revision'
  ] = 'rev-2';
  assertAllowed({
    operation: 'UPDATE',
    resource: core('nodes'),
    name: 'node-1',
    object: annotated,
    oldObject: old,
    userInfo: saAgent,
  });
});

test('an absent labels map and an empty one are the same', () => {
  const old = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' }, spec: {} };
  const updated = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', labels: {} }, spec: {} };
  assertAllowed({
    operation: 'UPDATE',
    resource: core('nodes'),
    name: 'node-1',
    object: updated,
    oldObject: old,
    userInfo: agent,
  });
});

test("an agent may not change its Node's labels or spec, nor touch another Node", () => {
  const old = node('node-1');
  const relabelled = node('node-1');
  (relabelled.metadata as { labels: Record<string, string> }).labels.role = 'control-plane';
  assertDenied(
    {
      operation: 'UPDATE',
      resource: core('nodes'),
      name: 'node-1',
      object: relabelled,
      oldObject: old,
      userInfo: agent,
    },
    "may not change its Node's labels, spec",
  );
  assertDenied(
    {
      operation: 'UPDATE',
      resource: core('nodes'),
      name: 'node-1',
      object: node('node-1', { spec: { unschedulable: true } }),
      oldObject: old,
      userInfo: agent,
    },
    "may not change its Node's labels, spec",
  );
  assertDenied(
    {
      operation: 'UPDATE',
      resource: core('nodes'),
      subResource: 'status',
      name: 'node-2',
      object: node('node-2'),
      oldObject: node('node-2'),
      userInfo: agent,
    },
    'only update or patch its own Node',
  );
  assertDenied(
    { operation: 'DELETE', resource: core('nodes'), name: 'node-1', oldObject: old, userInfo: agent },
    'never create or delete',
  );
  assertDenied(
    { operation: 'CREATE', resource: core('nodes'), name: 'node-9', object: node('node-9'), userInfo: agent },
    'never create or delete',
  );
});

test('an agent may delete pods bound to its Node only', () => {
  const pod = (nodeName?: string) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default' },
    spec: nodeName ? { nodeName, containers: [] } : { containers: [] },
  });
  const del = (p: Record<string, unknown>): AdmissionAttributes => ({
    operation: 'DELETE',
    resource: core('pods'),
    name: 'p',
    namespace: 'default',
    oldObject: p,
    userInfo: agent,
  });
  assertAllowed(del(pod('node-1')));
  assertDenied(del(pod('node-2')), 'only delete pods bound to its own Node');
  assertDenied(del(pod()), 'only delete pods bound to its own Node');
  assertDenied(
    {
      operation: 'CREATE',
      resource: core('pods'),
      name: 'p',
      namespace: 'default',
      object: pod('node-1'),
      userInfo: agent,
    },
    'only delete pods',
  );
});

test('an agent may create Events about its own Node in the allowed namespaces, of either API', () => {
  const own = { kind: 'Node', name: 'node-1' };
  const create = (
    object: Record<string, unknown>,
    resource = core('events'),
    namespace = 'default',
  ): AdmissionAttributes => ({
    operation: 'CREATE',
    resource,
    name: 'e1',
    namespace,
    object,
    userInfo: agent,
  });
  assertAllowed(create(event(own)));
  assertAllowed(create(event(own, 'nodeherd'), core('events'), 'nodeherd'));
  const v1 = {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: 'e1', namespace: 'default' },
    regarding: own,
  };
  assertAllowed(create(v1, { group: 'events.k8s.io', version: 'v1', resource: 'events' }));
  assertDenied(create(event({ kind: 'Node', name: 'node-2' })), 'only create Events about its own Node');
  assertDenied(
    create(event({ kind: 'Pod', name: 'node-1', namespace: 'default' })),
    'only create Events about its own Node',
  );
  assertDenied(
    create(event(own, 'kube-system'), core('events'), 'kube-system'),
    'in namespaces default, nodeherd',
  );
  assertDenied(create(event({ name: 'node-1' })), 'only create Events about its own Node');
});

test('the policy does not apply to other users or other resources', () => {
  const admin = { username: 'kubernetes-admin', groups: ['system:masters'] };
  const d = decide({
    operation: 'DELETE',
    resource: core('nodes'),
    name: 'node-1',
    oldObject: node('node-1'),
    userInfo: admin,
  });
  assert.deepEqual(d, { matched: false, allowed: true, failures: [], warnings: [] });
  const cm = decide({
    operation: 'CREATE',
    resource: core('configmaps'),
    name: 'x',
    namespace: 'default',
    object: { metadata: { name: 'x' } },
    userInfo: agent,
  });
  assert.equal(cm.matched, false);
});

test('a member of the agents group with a name of no known form is refused', () => {
  assertDenied(
    {
      operation: 'UPDATE',
      resource: core('nodes'),
      subResource: 'status',
      name: 'node-1',
      object: node('node-1'),
      oldObject: node('node-1'),
      userInfo: { username: 'someone-else', groups: ['nodeherd:agents'] },
    },
    'must be the user nodeherd:agent:<node>',
  );
});

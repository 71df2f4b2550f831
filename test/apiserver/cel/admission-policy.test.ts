// ValidatingAdmissionPolicy evaluation, case by case against kube-apiserver's documented behaviour.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type AdmissionAttributes,
  compileAdmissionPolicy,
  denialMessage,
  evaluateAdmissionPolicy,
} from '../../../src/apiserver/cel/admission-policy.ts';

const user = { username: 'alice', groups: ['dev', 'system:authenticated'], extra: { team: ['blue'] } };

function policy(spec: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'p' },
    spec: {
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: ['apps'],
            apiVersions: ['v1'],
            operations: ['*'],
            resources: ['deployments', 'deployments/scale'],
          },
        ],
      },
      ...spec,
    },
  };
}

const deployment = (replicas: number, labels: Record<string, string> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'prod', labels },
  spec: { replicas },
});

const attrs = (over: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
  operation: 'CREATE',
  resource: { group: 'apps', version: 'v1', resource: 'deployments' },
  name: 'web',
  namespace: 'prod',
  object: deployment(3),
  userInfo: user,
  ...over,
});

test('resource rules: operations, groups, resources and subresources as kube matches them', () => {
  const p = policy({ validations: [{ expression: 'false' }] });
  assert.equal(evaluateAdmissionPolicy(p, attrs()).matched, true);
  assert.equal(
    evaluateAdmissionPolicy(p, attrs({ subResource: 'status' })).matched,
    false,
    'deployments/status not listed',
  );
  assert.equal(evaluateAdmissionPolicy(p, attrs({ subResource: 'scale' })).matched, true);
  assert.equal(
    evaluateAdmissionPolicy(p, attrs({ resource: { group: '', version: 'v1', resource: 'deployments' } }))
      .matched,
    false,
  );
  const star = policy({
    matchConstraints: {
      resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['UPDATE'], resources: ['*'] }],
    },
    validations: [{ expression: 'false' }],
  });
  assert.equal(evaluateAdmissionPolicy(star, attrs()).matched, false, 'CREATE is not UPDATE');
  assert.equal(
    evaluateAdmissionPolicy(star, attrs({ operation: 'UPDATE', oldObject: deployment(3) })).matched,
    true,
  );
  assert.equal(
    evaluateAdmissionPolicy(star, attrs({ operation: 'UPDATE', subResource: 'status' })).matched,
    false,
    "'*' covers no subresource",
  );
  const allSub = policy({
    matchConstraints: {
      resourceRules: [
        {
          apiGroups: ['*'],
          apiVersions: ['*'],
          operations: ['*'],
          resources: ['*/status'],
          scope: 'Namespaced',
        },
      ],
      excludeResourceRules: [
        { apiGroups: [''], apiVersions: ['*'], operations: ['*'], resources: ['pods/status'] },
      ],
    },
    validations: [{ expression: 'false' }],
  });
  assert.equal(evaluateAdmissionPolicy(allSub, attrs({ subResource: 'status' })).matched, true);
  assert.equal(
    evaluateAdmissionPolicy(allSub, attrs({ subResource: 'status', namespace: '' })).matched,
    false,
    'scope Namespaced',
  );
  assert.equal(
    evaluateAdmissionPolicy(
      allSub,
      attrs({ resource: { group: '', version: 'v1', resource: 'pods' }, subResource: 'status' }),
    ).matched,
    false,
    'excluded',
  );
  const named = policy({
    matchConstraints: {
      resourceRules: [
        {
          apiGroups: ['apps'],
          apiVersions: ['v1'],
          operations: ['*'],
          resources: ['deployments'],
          resourceNames: ['db'],
        },
      ],
    },
  });
  assert.equal(evaluateAdmissionPolicy(named, attrs()).matched, false);
  assert.equal(evaluateAdmissionPolicy(named, attrs({ name: 'db' })).matched, true);
});

test('object and namespace selectors', () => {
  const p = policy({
    matchConstraints: {
      resourceRules: [
        { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['*'], resources: ['deployments'] },
      ],
      objectSelector: { matchLabels: { tier: 'web' } },
      namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }] },
    },
    validations: [{ expression: 'true' }],
  });
  const prodNs = { metadata: { name: 'prod', labels: { env: 'prod' } } };
  assert.equal(
    evaluateAdmissionPolicy(p, attrs({ object: deployment(1, { tier: 'web' }), namespaceObject: prodNs }))
      .matched,
    true,
  );
  assert.equal(
    evaluateAdmissionPolicy(p, attrs({ object: deployment(1), namespaceObject: prodNs })).matched,
    false,
  );
  assert.equal(
    evaluateAdmissionPolicy(
      p,
      attrs({
        object: deployment(1),
        oldObject: deployment(1, { tier: 'web' }),
        operation: 'UPDATE',
        namespaceObject: prodNs,
      }),
    ).matched,
    true,
    'the old object matching is enough',
  );
  assert.equal(
    evaluateAdmissionPolicy(p, attrs({ object: deployment(1, { tier: 'web' }) })).matched,
    false,
    'namespace without labels',
  );
});

test('validations: message, messageExpression, reason, default message; object and oldObject per operation', () => {
  const p = policy({
    validations: [
      { expression: 'object.spec.replicas <= 5', message: 'too many replicas', reason: 'Forbidden' },
      {
        expression: "object.metadata.name.startsWith('app-')",
        messageExpression: "'name ' + object.metadata.name + ' lacks the app- prefix'",
      },
      { expression: 'has(object.metadata.labels.team)' },
    ],
  });
  const d = evaluateAdmissionPolicy(p, attrs({ object: deployment(7) }));
  assert.equal(d.allowed, false);
  assert.deepEqual(d.failures, [
    { expression: 'object.spec.replicas <= 5', message: 'too many replicas', reason: 'Forbidden' },
    {
      expression: "object.metadata.name.startsWith('app-')",
      message: 'name web lacks the app- prefix',
      reason: 'Invalid',
    },
    {
      expression: 'has(object.metadata.labels.team)',
      message: 'failed expression: has(object.metadata.labels.team)',
      reason: 'Invalid',
    },
  ]);
  assert.equal(
    denialMessage('p', 'b', d.failures[0]!),
    "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: too many replicas",
  );
  const nulls = policy({ validations: [{ expression: 'object == null && oldObject.spec.replicas == 3' }] });
  assert.equal(
    evaluateAdmissionPolicy(nulls, attrs({ operation: 'DELETE', oldObject: deployment(3) })).allowed,
    true,
  );
  const created = policy({ validations: [{ expression: 'oldObject == null' }] });
  assert.equal(
    evaluateAdmissionPolicy(created, attrs({ oldObject: deployment(1) })).allowed,
    true,
    'CREATE has no oldObject',
  );
});

test('request variable: userInfo, operation, resource, namespace, dryRun', () => {
  const p = policy({
    validations: [
      {
        expression:
          "request.userInfo.username == 'alice' && 'dev' in request.userInfo.groups && request.userInfo.extra.team == ['blue'] && " +
          "request.operation == 'CREATE' && request.resource.group == 'apps' && request.subResource == '' && " +
          "request.namespace == 'prod' && request.name == 'web' && request.dryRun == true && request.userInfo.uid == ''",
      },
    ],
  });
  assert.deepEqual(evaluateAdmissionPolicy(p, attrs({ dryRun: true })).failures, []);
  assert.equal(evaluateAdmissionPolicy(p, attrs()).allowed, false);
});

test('variables are evaluated lazily (an unused broken one is harmless) and may use earlier ones', () => {
  const p = policy({
    variables: [
      { name: 'replicas', expression: 'object.spec.replicas' },
      { name: 'big', expression: 'variables.replicas > 4' },
      { name: 'broken', expression: 'object.spec.missing > 1' },
    ],
    validations: [
      { expression: '!variables.big', messageExpression: "'replicas: ' + string(variables.replicas)" },
    ],
  });
  assert.deepEqual(evaluateAdmissionPolicy(p, attrs({ object: deployment(2) })).failures, []);
  assert.deepEqual(
    evaluateAdmissionPolicy(p, attrs({ object: deployment(9) })).failures.map((f) => f.message),
    ['replicas: 9'],
  );
  const uses = policy({
    variables: [{ name: 'broken', expression: 'object.spec.missing > 1' }],
    validations: [{ expression: 'variables.broken' }],
  });
  const d = evaluateAdmissionPolicy(uses, attrs());
  assert.equal(d.allowed, false);
  assert.match(d.failures[0]!.message, /^expression 'variables.broken' resulted in error: .*missing/);
});

test('matchConditions: all must be true; an error falls under failurePolicy', () => {
  const p = (failurePolicy: string) =>
    policy({
      failurePolicy,
      matchConditions: [
        { name: 'not-admin', expression: "!('system:masters' in request.userInfo.groups)" },
        { name: 'has-replicas', expression: 'object.spec.replicas > 0' },
      ],
      validations: [{ expression: 'false', message: 'no' }],
    });
  assert.equal(evaluateAdmissionPolicy(p('Fail'), attrs()).allowed, false);
  const admin = attrs({ userInfo: { username: 'root', groups: ['system:masters'] } });
  assert.equal(evaluateAdmissionPolicy(p('Fail'), admin).matched, false);
  const noSpec = attrs({ object: { metadata: { name: 'web' } } });
  const failed = evaluateAdmissionPolicy(p('Fail'), noSpec);
  assert.equal(failed.allowed, false);
  assert.match(failed.failures[0]!.message, /^expression 'object.spec.replicas > 0' resulted in error/);
  const ignored = evaluateAdmissionPolicy(p('Ignore'), noSpec);
  assert.deepEqual([ignored.matched, ignored.allowed, ignored.failures], [true, true, []]);
});

test('an expression that does not compile fails closed or is ignored per failurePolicy', () => {
  const bad = (failurePolicy: string) =>
    policy({ failurePolicy, validations: [{ expression: 'object.spec.replicas >' }] });
  const d = evaluateAdmissionPolicy(bad('Fail'), attrs());
  assert.equal(d.allowed, false);
  assert.match(d.failures[0]!.message, /resulted in error: compilation failed/);
  assert.equal(evaluateAdmissionPolicy(bad('Ignore'), attrs()).allowed, true);
  const authz = evaluateAdmissionPolicy(
    policy({ validations: [{ expression: "authorizer.group('').resource('x').check('get').allowed()" }] }),
    attrs(),
  );
  assert.equal(authz.allowed, false, 'authorizer is not available here: fails closed');
});

test('binding: validationActions Warn/Audit allow with warnings; matchResources narrows', () => {
  const p = policy({ validations: [{ expression: 'object.spec.replicas < 2', message: 'keep it small' }] });
  const warn = { spec: { policyName: 'p', validationActions: ['Warn'] } };
  const d = evaluateAdmissionPolicy(p, attrs(), warn);
  assert.deepEqual(d.allowed, true);
  assert.deepEqual(d.warnings, ["Validation failed for ValidatingAdmissionPolicy 'p': keep it small"]);
  const both = evaluateAdmissionPolicy(p, attrs(), { spec: { validationActions: ['Deny', 'Warn'] } });
  assert.deepEqual([both.allowed, both.warnings.length], [false, 1]);
  const narrowed = {
    spec: {
      validationActions: ['Deny'],
      matchResources: { namespaceSelector: { matchLabels: { env: 'staging' } } },
    },
  };
  assert.equal(
    evaluateAdmissionPolicy(
      p,
      attrs({ namespaceObject: { metadata: { labels: { env: 'prod' } } } }),
      narrowed,
    ).matched,
    false,
  );
});

test('a policy is compiled once and evaluated many times', () => {
  const compiled = compileAdmissionPolicy(
    policy({ validations: [{ expression: 'object.spec.replicas % 2 == 0' }] }),
  );
  assert.equal(compiled.name, 'p');
  for (let i = 0; i < 10; i++)
    assert.equal(compiled.evaluate(attrs({ object: deployment(i) })).allowed, i % 2 === 0);
});

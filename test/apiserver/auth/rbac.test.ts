// RBAC objects (issue 33): Roles, ClusterRoles (aggregated too), RoleBindings and ClusterRoleBindings
// are served and enforced by the embedded server, evaluated as kube's RBAC authorizer does; exercised
// with real kubectl (`apply`, `--as`, `auth can-i --as`, `auth can-i --list`).

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';

const RBAC = 'rbac.authorization.k8s.io/v1';

const objects = [
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } },
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } },
  {
    apiVersion: RBAC,
    kind: 'Role',
    metadata: { name: 'pod-reader', namespace: 'team' },
    rules: [
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['configmaps'], resourceNames: ['cm1'], verbs: ['get'] },
    ],
  },
  {
    apiVersion: RBAC,
    kind: 'RoleBinding',
    metadata: { name: 'alice-reads', namespace: 'team' },
    subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }],
    roleRef: { kind: 'Role', name: 'pod-reader', apiGroup: 'rbac.authorization.k8s.io' },
  },
  {
    apiVersion: RBAC,
    kind: 'ClusterRole',
    metadata: { name: 'team-view' },
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate-to-view': 'true' } }] },
  },
  {
    apiVersion: RBAC,
    kind: 'ClusterRole',
    metadata: { name: 'node-reader', labels: { 'example.com/aggregate-to-view': 'true' } },
    rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list'] }],
  },
  {
    apiVersion: RBAC,
    kind: 'ClusterRoleBinding',
    metadata: { name: 'devs-view' },
    subjects: [{ kind: 'Group', name: 'devs', apiGroup: 'rbac.authorization.k8s.io' }],
    roleRef: { kind: 'ClusterRole', name: 'team-view', apiGroup: 'rbac.authorization.k8s.io' },
  },
  {
    apiVersion: RBAC,
    kind: 'ClusterRole',
    metadata: { name: 'impersonate-carol' },
    rules: [{ apiGroups: [''], resources: ['users'], resourceNames: ['carol'], verbs: ['impersonate'] }],
  },
  {
    apiVersion: RBAC,
    kind: 'ClusterRoleBinding',
    metadata: { name: 'controller-impersonates-carol' },
    subjects: [{ kind: 'ServiceAccount', name: 'nodeherd-controller', namespace: 'nodeherd' }],
    roleRef: { kind: 'ClusterRole', name: 'impersonate-carol', apiGroup: 'rbac.authorization.k8s.io' },
  },
  {
    apiVersion: RBAC,
    kind: 'RoleBinding',
    metadata: { name: 'carol-reads', namespace: 'other' },
    subjects: [{ kind: 'User', name: 'carol', apiGroup: 'rbac.authorization.k8s.io' }],
    roleRef: { kind: 'ClusterRole', name: 'team-view', apiGroup: 'rbac.authorization.k8s.io' },
  },
];

describe('RBAC objects through kubectl', () => {
  let local: LocalApiServer;
  let controllerKubeconfig: string;

  const canI = async (...args: string[]) => {
    const run = await local.kubectl(['auth', 'can-i', ...args]);
    return run.stdout.trim();
  };

  before(async () => {
    local = await startLocalApiServer();
    controllerKubeconfig = join(local.dataDir, 'controller.kubeconfig');
    await local.server.issueCredential('controller', undefined, controllerKubeconfig);
    const applied = await local.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }),
    });
    assert.equal(applied.code, 0, applied.stderr);
    for (const name of ['cm1', 'cm2']) {
      const cm = await local.kubectl(['create', 'configmap', name, '-n', 'team']);
      assert.equal(cm.code, 0, cm.stderr);
    }
  });
  after(() => local?.stop());

  test('kubectl gets the four kinds back', async () => {
    const roles = await local.kubectl(['get', 'roles,rolebindings', '-n', 'team', '-o', 'name']);
    assert.equal(roles.code, 0, roles.stderr);
    assert.deepEqual(roles.stdout.trim().split('\n').sort(), [
      'role.rbac.authorization.k8s.io/pod-reader',
      'rolebinding.rbac.authorization.k8s.io/alice-reads',
    ]);
    const cluster = await local.kubectl(['get', 'clusterrolebinding', 'devs-view']);
    assert.equal(cluster.code, 0, cluster.stderr);
    assert.match(cluster.stdout, /devs-view/);
  });

  test('a RoleBinding grants its Role in its namespace only', async () => {
    assert.equal(await canI('list', 'pods', '-n', 'team', '--as', 'alice'), 'yes');
    assert.equal(await canI('list', 'pods', '-n', 'other', '--as', 'alice'), 'no');
    assert.equal(await canI('create', 'pods', '-n', 'team', '--as', 'alice'), 'no');
    assert.equal(await canI('list', 'pods', '-n', 'team', '--as', 'mallory'), 'no');
    const list = await local.kubectl(['get', 'pods', '-n', 'team', '--as', 'alice']);
    assert.equal(list.code, 0, list.stderr);
    const create = await local.kubectl(['create', 'configmap', 'x', '-n', 'team', '--as', 'alice']);
    assert.notEqual(create.code, 0);
    assert.match(create.stderr, /forbidden/);
  });

  test('resourceNames confine a rule to the objects named', async () => {
    assert.equal(await canI('get', 'configmap/cm1', '-n', 'team', '--as', 'alice'), 'yes');
    assert.equal(await canI('get', 'configmap/cm2', '-n', 'team', '--as', 'alice'), 'no');
    const cm1 = await local.kubectl(['get', 'configmap', 'cm1', '-n', 'team', '--as', 'alice']);
    assert.equal(cm1.code, 0, cm1.stderr);
    const cm2 = await local.kubectl(['get', 'configmap', 'cm2', '-n', 'team', '--as', 'alice']);
    assert.notEqual(cm2.code, 0);
  });

  test('an aggregated ClusterRole has the rules of the roles it selects, bound to a group', async () => {
    const role = await local.kubectl(['get', 'clusterrole', 'team-view', '-o', 'json']);
    assert.deepEqual(JSON.parse(role.stdout).rules, [
      { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list'] },
    ]);
    assert.equal(await canI('list', 'nodes', '--as', 'bob', '--as-group', 'devs'), 'yes');
    assert.equal(await canI('list', 'nodes', '--as', 'bob'), 'no');
    // A new labelled role joins; removing the label leaves.
    const add = await local.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: RBAC,
        kind: 'ClusterRole',
        metadata: { name: 'ns-reader', labels: { 'example.com/aggregate-to-view': 'true' } },
        rules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['get'] }],
      }),
    });
    assert.equal(add.code, 0, add.stderr);
    let allowed = '';
    for (let i = 0; i < 50 && allowed !== 'yes'; i++) {
      allowed = await canI('get', 'namespaces', '--as', 'bob', '--as-group', 'devs');
    }
    assert.equal(allowed, 'yes');
    await local.kubectl(['label', 'clusterrole', 'ns-reader', 'example.com/aggregate-to-view-']);
    for (let i = 0; i < 50 && allowed !== 'no'; i++) {
      allowed = await canI('get', 'namespaces', '--as', 'bob', '--as-group', 'devs');
    }
    assert.equal(allowed, 'no');
  });

  test('a ClusterRole bound by a RoleBinding applies in that namespace only', async () => {
    assert.equal(await canI('get', 'nodes', '--as', 'carol'), 'no');
    // Asked about namespace "other", kube's RBAC answers from that namespace's bindings; a real
    // request for a cluster-scoped Node has no namespace, and is refused.
    assert.equal(await canI('get', 'nodes', '-n', 'other', '--as', 'carol'), 'yes');
    const nodes = await local.kubectl(['get', 'nodes', '--as', 'carol']);
    assert.notEqual(nodes.code, 0);
    assert.match(nodes.stderr, /forbidden/);
  });

  test('impersonation granted by RBAC: the controller may act as carol, not as anyone else', async () => {
    const asCarol = await local.kubectl(
      ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}', '--as', 'carol'],
      {
        kubeconfig: controllerKubeconfig,
      },
    );
    assert.equal(asCarol.code, 0, asCarol.stderr);
    assert.equal(asCarol.stdout, 'carol');
    const asAlice = await local.kubectl(['get', 'pods', '-n', 'team', '--as', 'alice'], {
      kubeconfig: controllerKubeconfig,
    });
    assert.notEqual(asAlice.code, 0);
    assert.match(asAlice.stderr, /cannot impersonate resource "users"/);
  });

  test('auth can-i --list shows what RBAC grants', async () => {
    const list = await local.kubectl(['auth', 'can-i', '--list', '-n', 'team', '--as', 'alice']);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /pods\s+\[\]\s+\[\]\s+\[get list watch\]/);
    assert.match(list.stdout, /configmaps\s+\[\]\s+\[cm1\]\s+\[get\]/);
  });

  test('bad roles and bindings are refused with the field named, and roleRef never changes', async () => {
    const noVerbs = await local.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: RBAC,
        kind: 'Role',
        metadata: { name: 'bad', namespace: 'team' },
        rules: [{ apiGroups: [''], resources: ['pods'] }],
      }),
    });
    assert.notEqual(noVerbs.code, 0);
    assert.match(noVerbs.stderr, /rules\[0\]\.verbs: Required value/);
    const urls = await local.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: RBAC,
        kind: 'Role',
        metadata: { name: 'bad', namespace: 'team' },
        rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
      }),
    });
    assert.notEqual(urls.code, 0);
    assert.match(urls.stderr, /rules\[0\]\.nonResourceURLs/);
    const moved = await local.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        ...objects[3],
        roleRef: { kind: 'ClusterRole', name: 'team-view', apiGroup: 'rbac.authorization.k8s.io' },
      }),
    });
    assert.notEqual(moved.code, 0);
    assert.match(moved.stderr, /cannot change roleRef/);
    const saWithoutNamespace = await local.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: RBAC,
        kind: 'ClusterRoleBinding',
        metadata: { name: 'bad' },
        subjects: [{ kind: 'ServiceAccount', name: 'x' }],
        roleRef: { kind: 'ClusterRole', name: 'team-view', apiGroup: 'rbac.authorization.k8s.io' },
      }),
    });
    assert.notEqual(saWithoutNamespace.code, 0);
    assert.match(saWithoutNamespace.stderr, /subjects\[0\]\.namespace: Required value/);
    const none = await local.kubectl(['get', 'role', 'bad', '-n', 'team']);
    assert.notEqual(none.code, 0);
  });

  test('writing roles and bindings grants no more than the writer holds, unless escalate or bind is granted', async () => {
    const grant = await local.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          {
            apiVersion: RBAC,
            kind: 'ClusterRole',
            metadata: { name: 'rbac-writer' },
            rules: [
              {
                apiGroups: ['rbac.authorization.k8s.io'],
                resources: ['roles', 'rolebindings'],
                verbs: ['create', 'get', 'update', 'patch'],
              },
            ],
          },
          {
            apiVersion: RBAC,
            kind: 'RoleBinding',
            metadata: { name: 'controller-writes-rbac', namespace: 'team' },
            subjects: [{ kind: 'ServiceAccount', name: 'nodeherd-controller', namespace: 'nodeherd' }],
            roleRef: { kind: 'ClusterRole', name: 'rbac-writer', apiGroup: 'rbac.authorization.k8s.io' },
          },
        ],
      }),
    });
    assert.equal(grant.code, 0, grant.stderr);
    const asController = (input: object) =>
      local.kubectl(['create', '-f', '-'], {
        input: JSON.stringify(input),
        kubeconfig: controllerKubeconfig,
      });
    const role = (name: string, rules: object[]) => ({
      apiVersion: RBAC,
      kind: 'Role',
      metadata: { name, namespace: 'team' },
      rules,
    });
    // It reads pods everywhere, so it may hand that on; it reads no Secrets in team, so it may not.
    const held = await asController(
      role('pods-too', [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }]),
    );
    assert.equal(held.code, 0, held.stderr);
    const secrets = await asController(
      role('secrets', [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }]),
    );
    assert.notEqual(secrets.code, 0);
    assert.match(
      secrets.stderr,
      /attempting to grant RBAC permissions not currently held: get secrets in namespace "team"/,
    );
    const wildcard = await asController(role('all', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]));
    assert.notEqual(wildcard.code, 0);
    // Binding a role it does not hold is refused; binding pod-reader, whose rules it holds, is not.
    const binding = (name: string, roleName: string, kind = 'Role') => ({
      apiVersion: RBAC,
      kind: 'RoleBinding',
      metadata: { name, namespace: 'team' },
      subjects: [{ kind: 'User', name: 'eve', apiGroup: 'rbac.authorization.k8s.io' }],
      roleRef: { kind, name: roleName, apiGroup: 'rbac.authorization.k8s.io' },
    });
    const bindWriter = await asController(binding('eve-writes', 'rbac-writer', 'ClusterRole'));
    assert.equal(bindWriter.code, 0, 'it holds rbac-writer itself in team');
    const bindImpersonate = await asController(
      binding('eve-impersonates', 'impersonate-carol', 'ClusterRole'),
    );
    assert.equal(bindImpersonate.code, 0, 'it holds impersonate on carol');
    assert.equal(await canI('create', 'roles', '-n', 'team', '--as', 'eve'), 'yes');
    const other = await local.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: RBAC,
        kind: 'ClusterRole',
        metadata: { name: 'secret-reader' },
        rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
      }),
    });
    assert.equal(other.code, 0, other.stderr);
    const bindSecrets = await asController(binding('eve-secrets', 'secret-reader', 'ClusterRole'));
    assert.notEqual(bindSecrets.code, 0);
    assert.match(bindSecrets.stderr, /not currently held/);
    // With bind on that role, it may.
    const bindGrant = await local.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          {
            apiVersion: RBAC,
            kind: 'ClusterRole',
            metadata: { name: 'bind-secret-reader' },
            rules: [
              {
                apiGroups: ['rbac.authorization.k8s.io'],
                resources: ['clusterroles'],
                resourceNames: ['secret-reader'],
                verbs: ['bind'],
              },
            ],
          },
          {
            apiVersion: RBAC,
            kind: 'RoleBinding',
            metadata: { name: 'controller-binds', namespace: 'team' },
            subjects: [{ kind: 'ServiceAccount', name: 'nodeherd-controller', namespace: 'nodeherd' }],
            roleRef: {
              kind: 'ClusterRole',
              name: 'bind-secret-reader',
              apiGroup: 'rbac.authorization.k8s.io',
            },
          },
        ],
      }),
    });
    assert.equal(bindGrant.code, 0, bindGrant.stderr);
    const bound = await asController(binding('eve-secrets', 'secret-reader', 'ClusterRole'));
    assert.equal(bound.code, 0, bound.stderr);
    assert.equal(await canI('get', 'secrets', '-n', 'team', '--as', 'eve'), 'yes');
    assert.equal(await canI('get', 'secrets', '-n', 'nodeherd', '--as', 'eve'), 'no');
  });

  test('kubectl create role|rolebinding|clusterrole|clusterrolebinding (protobuf bodies) work', async () => {
    const runs = [
      [
        'create',
        'role',
        'proto-reader',
        '-n',
        'team',
        '--verb=get',
        '--resource=secrets',
        '--resource-name=s1',
      ],
      ['create', 'rolebinding', 'proto-reader', '-n', 'team', '--role=proto-reader', '--user=frank'],
      ['create', 'clusterrole', 'proto-nodes', '--verb=list', '--resource=nodes'],
      ['create', 'clusterrolebinding', 'proto-nodes', '--clusterrole=proto-nodes', '--group=ops'],
    ];
    for (const args of runs) {
      const run = await local.kubectl(args);
      assert.equal(run.code, 0, `${args.join(' ')}: ${run.stderr}`);
    }
    assert.equal(await canI('get', 'secret/s1', '-n', 'team', '--as', 'frank'), 'yes');
    assert.equal(await canI('get', 'secret/s2', '-n', 'team', '--as', 'frank'), 'no');
    assert.equal(await canI('list', 'nodes', '--as', 'gina', '--as-group', 'ops'), 'yes');
    const binding = await local.kubectl(['get', 'rolebinding', 'proto-reader', '-n', 'team', '-o', 'json']);
    assert.deepEqual(JSON.parse(binding.stdout).subjects, [
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'frank' },
    ]);
  });
});

// Conformance: `kubectl auth can-i` (SelfSubjectAccessReview, SelfSubjectRulesReview with --list) and
// `kubectl auth whoami` (SelfSubjectReview), with every kubectl version found on the machine, as the
// admin and as the controller identity.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { kubectlBinaries } from '../../support/kubectl-versions.ts';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(binary: string, kubeconfig: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      binary,
      args,
      { env: { ...process.env, KUBECONFIG: kubeconfig, HOME: join(kubeconfig, '..') }, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err
          ? typeof (err as { code?: unknown }).code === 'number'
            ? Number((err as { code: number }).code)
            : 1
          : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const binaries = kubectlBinaries();

describe('kubectl auth', { skip: binaries.length === 0 ? 'no kubectl on this machine' : false }, () => {
  let local: LocalApiServer;
  let controller: string;
  before(async () => {
    local = await startLocalApiServer();
    controller = join(local.dataDir, 'controller', 'kubeconfig');
    await local.server.issueCredential('controller', undefined, controller);
  });
  after(() => local.stop());

  for (const { version, path } of binaries) {
    describe(`kubectl ${version}`, () => {
      test('auth can-i answers yes and no from the authorizer', async () => {
        const admin = await run(path, local.kubeconfigPath, ['auth', 'can-i', 'delete', 'nodes']);
        assert.equal(admin.code, 0, admin.stderr);
        assert.equal(admin.stdout.trim(), 'yes');
        const evict = await run(path, controller, [
          'auth',
          'can-i',
          'create',
          'pods',
          '--subresource=eviction',
          '-n',
          'default',
        ]);
        assert.equal(evict.stdout.trim(), 'yes', evict.stderr);
        const denied = await run(path, controller, ['auth', 'can-i', 'delete', 'nodes']);
        assert.equal(denied.code, 1, denied.stderr);
        assert.equal(denied.stdout.trim(), 'no');
        const lease = await run(path, controller, [
          'auth',
          'can-i',
          'update',
          'leases.coordination.k8s.io',
          '-n',
          'nodeherd',
        ]);
        assert.equal(lease.stdout.trim(), 'yes', lease.stderr);
        const otherNamespace = await run(path, controller, [
          'auth',
          'can-i',
          'update',
          'leases.coordination.k8s.io',
          '-n',
          'default',
        ]);
        assert.equal(otherNamespace.stdout.trim(), 'no', otherNamespace.stderr);
      });
      test('auth can-i --list shows the controller’s rules', async () => {
        const list = await run(path, controller, ['auth', 'can-i', '--list', '-n', 'nodeherd']);
        assert.equal(list.code, 0, list.stderr);
        assert.match(list.stdout, /leases\.coordination\.k8s\.io\s+\[\]\s+\[\]\s+\[.*create/);
        // Only what it uses of its own group (issue 31): revisions it writes, pools it patches.
        assert.match(
          list.stdout,
          /nodeconfigrevisions\.nodeherd\.io\s+\[\]\s+\[\]\s+\[get list watch create delete\]/,
        );
        assert.match(list.stdout, /nodeconfigpools\.nodeherd\.io\s+\[\]\s+\[\]\s+\[get list watch patch\]/);
        assert.doesNotMatch(list.stdout, /\*\.nodeherd\.io/);
      });
      test('auth whoami names the identity and its groups', async () => {
        const admin = await run(path, local.kubeconfigPath, ['auth', 'whoami', '-o', 'json']);
        assert.equal(admin.code, 0, admin.stderr);
        const review = JSON.parse(admin.stdout);
        assert.equal(review.kind, 'SelfSubjectReview');
        assert.equal(review.status.userInfo.username, 'nodeherd:admin');
        assert.deepEqual(review.status.userInfo.groups, ['system:masters', 'system:authenticated']);
        const table = await run(path, controller, ['auth', 'whoami']);
        assert.equal(table.code, 0, table.stderr);
        assert.match(table.stdout, /Username\s+system:serviceaccount:nodeherd:nodeherd-controller/);
      });
    });
  }
});

// Conformance: kubectl's server-side apply and diff, with every kubectl version on the machine.
// `apply --server-side` creates and updates, conflicts with another field manager and takes over with
// --force-conflicts; `diff` (client- and server-side) is clean on an unchanged manifest and shows a
// changed one; an object created by client-side `kubectl apply` moves to server-side apply.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { kubectlBinaries } from '../../support/kubectl-versions.ts';
import {
  type KubectlResult,
  type LocalApiServer,
  startLocalApiServer,
} from '../../support/local-apiserver.ts';
import { json, raw } from './support.ts';

const binaries = kubectlBinaries();

const daemonSet = (name: string, image: string) =>
  json({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'main', image, env: [{ name: 'A', value: '1' }] }] },
      },
    },
  });

const configMap = (name: string, data: Record<string, string>) =>
  json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data });

const nodeConfig = (name: string, files: string[]) =>
  json({
    apiVersion: 'nodeherd.io/v1alpha1',
    kind: 'NodeConfig',
    metadata: { name },
    spec: { files: files.map((path) => ({ path, content: { inline: { data: `${path}\n` } } })) },
  });

describe('kubectl server-side apply and diff', {
  skip: binaries.length === 0 && 'no kubectl on this machine',
}, () => {
  let local: LocalApiServer;
  before(async () => {
    local = await startLocalApiServer();
  });
  after(() => local?.stop());

  for (const { version, path } of binaries) {
    describe(`kubectl ${version}`, () => {
      const id = version.replace('.', '-');
      const run = (args: string[], input?: string): Promise<KubectlResult> =>
        local.kubectl(args, { binary: path, ...(input !== undefined ? { input } : {}) });
      const ok = async (args: string[], input?: string) => {
        const result = await run(args, input);
        assert.equal(
          result.code,
          0,
          `kubectl ${version} ${args.join(' ')}:\n${result.stderr}${result.stdout}`,
        );
        return result.stdout;
      };
      const live = async (path: string) => (await raw(local, { path })).json;
      const cmPath = (name: string) => `/api/v1/namespaces/default/configmaps/${name}`;

      test('apply --server-side creates, updates, conflicts with another manager, and --force-conflicts takes over', async () => {
        const name = `ssa-${id}`;
        assert.match(
          await ok(['apply', '--server-side', '-f', '-'], configMap(name, { a: '1', b: '2' })),
          /serverside-applied/,
        );
        let object = await live(cmPath(name));
        assert.deepEqual(object.data, { a: '1', b: '2' });
        assert.deepEqual(
          object.metadata.managedFields.map((e: any) => [e.manager, e.operation]),
          [['kubectl', 'Apply']],
        );
        await ok(['apply', '--server-side', '-f', '-'], configMap(name, { a: '3' }));
        object = await live(cmPath(name));
        assert.deepEqual(object.data, { a: '3' }, 'b is no longer applied by anyone: removed');

        const refused = await run(
          ['apply', '--server-side', '--field-manager=other', '-f', '-'],
          configMap(name, { a: '4' }),
        );
        assert.notEqual(refused.code, 0);
        assert.match(refused.stderr, /Apply failed with 1 conflict: conflict with "kubectl": \.data\.a/);
        assert.equal((await live(cmPath(name))).data.a, '3');

        await ok(
          ['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', '-'],
          configMap(name, { a: '4' }),
        );
        object = await live(cmPath(name));
        assert.equal(object.data.a, '4');
        const owners = object.metadata.managedFields
          .filter((e: any) => e.fieldsV1?.['f:data']?.['f:a'])
          .map((e: any) => e.manager);
        assert.deepEqual(owners, ['other']);
      });

      test('diff is clean on an unchanged manifest and shows a changed one (client- and server-side)', async () => {
        const ssa = `diff-ssa-${id}`;
        const csa = `diff-csa-${id}`;
        await ok(['apply', '--server-side', '-f', '-'], configMap(ssa, { a: '1' }));
        await ok(['apply', '-f', '-'], configMap(csa, { a: '1' }));
        await ok(['apply', '--server-side', '-f', '-'], nodeConfig(`diff-nc-${id}`, ['/etc/a']));
        await ok(['apply', '-f', '-'], nodeConfig(`diff-nc-csa-${id}`, ['/etc/a']));
        await ok(['apply', '--server-side', '-f', '-'], daemonSet(`diff-ds-${id}`, 'nginx:1'));
        await ok(['apply', '-f', '-'], daemonSet(`diff-ds-csa-${id}`, 'nginx:1'));
        for (const [manifest, how] of [
          [configMap(ssa, { a: '1' }), ['--server-side']],
          [configMap(ssa, { a: '1' }), []],
          [configMap(csa, { a: '1' }), []],
          [nodeConfig(`diff-nc-${id}`, ['/etc/a']), ['--server-side']],
          [nodeConfig(`diff-nc-csa-${id}`, ['/etc/a']), []],
          [daemonSet(`diff-ds-${id}`, 'nginx:1'), ['--server-side']],
          [daemonSet(`diff-ds-csa-${id}`, 'nginx:1'), []],
        ] as const) {
          const clean = await run(['diff', ...how, '-f', '-'], manifest);
          assert.equal(
            clean.code,
            0,
            `diff ${how.join(' ')} of an unchanged object:\n${clean.stdout}${clean.stderr}`,
          );
          assert.equal(clean.stdout, '');
        }
        for (const [manifest, how, line] of [
          [configMap(ssa, { a: '2' }), ['--server-side'], /^\+ {2}a: "2"$/m],
          [configMap(csa, { a: '2' }), [], /^\+ {2}a: "2"$/m],
          [
            nodeConfig(`diff-nc-${id}`, ['/etc/a', '/etc/b']),
            ['--server-side'],
            /^\+ {2}- content:$|^\+ {4}path: \/etc\/b$/m,
          ],
          [daemonSet(`diff-ds-${id}`, 'nginx:2'), ['--server-side'], /^\+ {8}image: nginx:2$/m],
          [daemonSet(`diff-ds-csa-${id}`, 'nginx:2'), [], /^\+ {8}image: nginx:2$/m],
        ] as const) {
          const changed = await run(['diff', ...how, '-f', '-'], manifest);
          assert.equal(
            changed.code,
            1,
            `diff ${how.join(' ')} of a changed object:\n${changed.stdout}${changed.stderr}`,
          );
          assert.match(changed.stdout, line);
          // generation moves on a spec change, as on a cluster; resourceVersion and managedFields do not show.
          assert.doesNotMatch(changed.stdout, /^[-+] .*(resourceVersion|managedFields)/m);
        }
      });

      test('an object created by client-side apply moves to apply --server-side', async () => {
        const name = `csa-${id}`;
        await ok(['apply', '-f', '-'], configMap(name, { a: '1', b: '2' }));
        let object = await live(cmPath(name));
        assert.deepEqual(
          object.metadata.managedFields.map((e: any) => [e.manager, e.operation]),
          [['kubectl-client-side-apply', 'Update']],
        );
        // A changed field kubectl last applied itself is no conflict.
        await ok(['apply', '--server-side', '-f', '-'], configMap(name, { a: '5', b: '2' }));
        object = await live(cmPath(name));
        assert.deepEqual(object.data, { a: '5', b: '2' });
        // kubectl owns what it applied: a field dropped from the manifest goes.
        await ok(['apply', '--server-side', '-f', '-'], configMap(name, { a: '5' }));
        object = await live(cmPath(name));
        assert.deepEqual(object.data, { a: '5' });
        const clean = await run(['diff', '--server-side', '-f', '-'], configMap(name, { a: '5' }));
        assert.equal(clean.code, 0, clean.stdout + clean.stderr);
      });
    });
  }
});

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { loadKubeConfig } from '../../src/kube/kube-config.ts';

const dir = mkdtempSync(join(tmpdir(), 'nodeherd-kubeconfig-'));
const path = join(dir, 'config');
writeFileSync(
  path,
  `apiVersion: v1
kind: Config
current-context: one
clusters:
- name: a
  cluster: { server: https://a.example:6443 }
- name: b
  cluster: { server: https://b.example:6443 }
users:
- name: u
  user: { token: secret }
contexts:
- name: one
  context: { cluster: a, user: u }
- name: two
  context: { cluster: b, user: u }
`,
);

describe('kubeconfig loading', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('--kubeconfig and its current context', () => {
    assert.equal(loadKubeConfig({ kubeconfig: path }).getCurrentCluster()?.server, 'https://a.example:6443');
  });

  test('--context picks another context', () => {
    assert.equal(
      loadKubeConfig({ kubeconfig: path, context: 'two' }).getCurrentCluster()?.server,
      'https://b.example:6443',
    );
  });

  test('an unknown context is an error that lists the known ones', () => {
    assert.throws(
      () => loadKubeConfig({ kubeconfig: path, context: 'three' }),
      /context "three" is not in the kubeconfig \(it has: one, two\)/,
    );
  });

  test('$KUBECONFIG when no file is given', () => {
    const saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = path;
    try {
      assert.equal(loadKubeConfig().getCurrentContext(), 'one');
    } finally {
      if (saved === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = saved;
    }
  });
});

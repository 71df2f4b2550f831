// `kubectl apply -k` of deploy/ and of every overlay in examples/overlays (which between them use every
// kustomize component under deploy/components) against the embedded API server (issue 33): each
// applies without an error, and `kubectl diff -k` right after finds nothing to change, so every object
// of every kind deploy/ ships is served and stored as applied. The node-credential table
// (node-credentials.test.ts) runs against what was applied.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type LocalApiServer, startLocalApiServer } from '../support/local-apiserver.ts';

const root = join(import.meta.dirname, '../..');
const overlays = readdirSync(join(root, 'examples/overlays')).map((name) => `examples/overlays/${name}`);
const components = readdirSync(join(root, 'deploy/components')).map((name) => `deploy/components/${name}`);

/**
 * The two Prometheus Operator kinds the prometheus component uses, as the operator's CRDs serve them
 * (its schemas are large; what matters here is that the kinds are served): a cluster with the operator
 * installed, which is what that overlay is for.
 */
function operatorCrd(kind: string, plural: string): string {
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.monitoring.coreos.com
spec:
  group: monitoring.coreos.com
  scope: Namespaced
  names: { kind: ${kind}, listKind: ${kind}List, plural: ${plural}, singular: ${kind.toLowerCase()} }
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, x-kubernetes-preserve-unknown-fields: true }
`;
}

describe('kubectl apply -k against the embedded API server', () => {
  let local: LocalApiServer;
  before(async () => {
    local = await startLocalApiServer();
    const crds = [
      operatorCrd('ServiceMonitor', 'servicemonitors'),
      operatorCrd('PrometheusRule', 'prometheusrules'),
    ];
    const installed = await local.kubectl(['apply', '-f', '-'], { input: crds.join('---\n') });
    assert.equal(installed.code, 0, installed.stderr);
  });
  after(() => local?.stop());

  test('every component is used by an overlay, so each is applied below', () => {
    const used = overlays
      .map((dir) => readFileSync(join(root, dir, 'kustomization.yaml'), 'utf8'))
      .join('\n');
    for (const component of components) assert.ok(used.includes(component), `${component} is in an overlay`);
  });

  for (const dir of ['deploy', ...overlays]) {
    test(`${dir} applies, and is then what the server holds`, async () => {
      const applied = await local.kubectl(['apply', '-k', join(root, dir)]);
      assert.equal(applied.code, 0, applied.stderr);
      assert.doesNotMatch(applied.stderr, /error|no matches for kind/i);
      const diff = await local.kubectl(['diff', '-k', join(root, dir)]);
      assert.equal(diff.code, 0, `kubectl diff after apply: ${diff.stdout}${diff.stderr}`);
    });
  }
});

// Conformance: deleting CRDs whose custom resources hold finalizers. Each terminating CRD waits for
// its own instances (as kube-apiserver's customresourcecleanup finalizer does) and goes once they are
// gone — two at once included: one CRD's pending wait must not take the other's.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';
import { customResourceDefinition, json, kubectlApply, kubectlOk, raw, waitFor } from './support.ts';

const GROUP = 'deletion.example.com';
const HOLD = 'example.com/hold';

function crd(plural: string, kind: string) {
  return customResourceDefinition({
    group: GROUP,
    scope: 'Namespaced',
    plural,
    kind,
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  });
}

const KINDS = [
  { plural: 'anchors', kind: 'Anchor' },
  { plural: 'buoys', kind: 'Buoy' },
  { plural: 'cleats', kind: 'Cleat' },
];

describe('CRD deletion', () => {
  let local: LocalApiServer;
  const instancePath = (plural: string) => `/apis/${GROUP}/v1/namespaces/default/${plural}/held`;
  const crdPath = (plural: string) =>
    `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${plural}.${GROUP}`;

  before(async () => {
    local = await startLocalApiServer();
    await kubectlApply(
      local,
      KINDS.map((k) => crd(k.plural, k.kind)),
    );
    await kubectlOk(local, [
      'wait',
      '--for=condition=Established',
      '--timeout=20s',
      ...KINDS.map((k) => `crd/${k.plural}.${GROUP}`),
    ]);
  });
  after(() => local.stop());

  test('CRDs deleted together each wait for their own held instances, and each goes once they are gone', async () => {
    await kubectlApply(
      local,
      KINDS.map((k) => ({
        apiVersion: `${GROUP}/v1`,
        kind: k.kind,
        metadata: { name: 'held', namespace: 'default', finalizers: [HOLD] },
      })),
    );
    for (const k of KINDS) {
      const res = await raw(local, { method: 'DELETE', path: crdPath(k.plural) });
      assert.equal(res.status, 200, res.text);
    }
    // Each instance is being deleted and held by its finalizer; each CRD waits for it.
    for (const k of KINDS) {
      await waitFor(`${k.plural}'s instance to be terminating`, async () => {
        const res = await raw(local, { path: instancePath(k.plural) });
        return res.status === 200 && res.json.metadata.deletionTimestamp !== undefined;
      });
      const held = await raw(local, { path: crdPath(k.plural) });
      assert.equal(held.status, 200, `${k.plural}: the CRD stays while its instance does`);
      assert.ok(held.json.metadata.deletionTimestamp);
    }
    // Released one after another: every CRD goes, not only the first to be retried.
    for (const k of KINDS) {
      const res = await raw(local, {
        method: 'PATCH',
        path: instancePath(k.plural),
        contentType: 'application/merge-patch+json',
        body: json({ metadata: { finalizers: null } }),
      });
      assert.equal(res.status, 200, res.text);
    }
    for (const k of KINDS) {
      await waitFor(
        `CRD ${k.plural}.${GROUP} to be gone`,
        async () => (await raw(local, { path: crdPath(k.plural) })).status === 404,
        30_000,
      );
    }
  });
});

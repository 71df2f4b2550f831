// NodeConfigRevision's identifying fields are immutable through CEL rules in its CRD, so any API server
// (not only the embedded one, whose validator also refuses every spec change) keeps them.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { customResourceDefinitions } from '../../src/api/crds.ts';
import { applyCustomResourceDefinitionDefaults } from '../../src/apiserver/schema/crd-defaults.ts';
import { validateCustomResourceDefinition } from '../../src/apiserver/schema/crd-validation.ts';
import { raw } from '../apiserver/conformance/support.ts';
import { type LocalApiServer, startLocalApiServer } from '../support/local-apiserver.ts';
import { revisionOf, secretSnapshot } from '../support/nodeherd-objects.ts';

const PATH = '/apis/nodeherd.io/v1alpha1/nodeconfigrevisions';
let local: LocalApiServer;

before(async () => {
  local = await startLocalApiServer();
});
after(() => local.stop());

test("nodeherd's CRDs, rules included, are valid CRDs", () => {
  for (const crd of customResourceDefinitions()) {
    const obj = structuredClone(crd) as Record<string, any>;
    applyCustomResourceDefinitionDefaults(obj);
    assert.deepEqual(validateCustomResourceDefinition(obj), [], obj.metadata.name);
  }
});

test("a revision's pool, revision, hash and hashAlgorithm cannot change", async () => {
  const revision = revisionOf('p', {}, 1, { configName: 'c', secrets: () => secretSnapshot('') });
  const created = await raw(local, { method: 'POST', path: PATH, body: JSON.stringify(revision) });
  assert.equal(created.status, 201, created.text);
  const changed = structuredClone(created.json);
  changed.spec.hash = 'f'.repeat(64);
  changed.spec.revision = 2;
  changed.spec.pool = 'q';
  changed.spec.hashAlgorithm = 'other';
  const res = await raw(local, {
    method: 'PUT',
    path: `${PATH}/${changed.metadata.name}`,
    body: JSON.stringify(changed),
  });
  assert.equal(res.status, 422, res.text);
  const causes = res.json.details.causes as { reason: string; field: string; message: string }[];
  for (const field of ['spec.pool', 'spec.revision', 'spec.hash', 'spec.hashAlgorithm']) {
    assert.ok(
      causes.some(
        (c) =>
          c.field === field && c.reason === 'FieldValueInvalid' && c.message.endsWith(': field is immutable'),
      ),
      `${field} refused by its CEL rule: ${res.text}`,
    );
  }
  // Metadata may still change (the rules are transition rules on unchanged values).
  const labelled = structuredClone(created.json);
  labelled.metadata.labels = { note: 'x' };
  const ok = await raw(local, {
    method: 'PUT',
    path: `${PATH}/${labelled.metadata.name}`,
    body: JSON.stringify(labelled),
  });
  assert.equal(ok.status, 200, ok.text);
});

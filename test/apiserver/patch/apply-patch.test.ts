import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  APPLY_PATCH,
  applyPatch,
  JSON_PATCH,
  MERGE_PATCH,
  patchMediaType,
  STRATEGIC_MERGE_PATCH,
  supportedPatchTypes,
} from '../../../src/apiserver/patch/apply-patch.ts';
import { assertApiError } from './assert-api-error.ts';

const builtin = { builtin: true };
const custom = { builtin: false };

function node(): Record<string, any> {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'node-1', labels: { a: '1' }, annotations: { note: 'x' } },
    spec: {},
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

function nodeConfigPool(): Record<string, any> {
  return {
    apiVersion: 'nodeherd.io/v1alpha1',
    kind: 'NodeConfigPool',
    metadata: { name: 'workers' },
    spec: { paused: false, nodeSelector: { role: 'worker' }, items: [{ name: 'a' }] },
  };
}

test('each patch type is chosen by Content-Type, parameters and case ignored', () => {
  const cases = [
    {
      type: 'application/merge-patch+json; charset=utf-8',
      body: '{"metadata":{"labels":{"env":"prod"}}}',
      check: (r: any) => assert.deepEqual(r.metadata.labels, { a: '1', env: 'prod' }),
    },
    {
      type: 'Application/JSON-Patch+JSON',
      body: '[{"op":"add","path":"/metadata/labels/env","value":"prod"}]',
      check: (r: any) => assert.deepEqual(r.metadata.labels, { a: '1', env: 'prod' }),
    },
    {
      type: STRATEGIC_MERGE_PATCH,
      body: '{"status":{"conditions":[{"type":"NodeConfigReady","status":"True"}]}}',
      check: (r: any) =>
        assert.deepEqual(
          r.status.conditions.map((c: any) => c.type),
          ['NodeConfigReady', 'Ready'],
        ),
    },
  ];
  for (const c of cases) c.check(applyPatch(c.type, node(), c.body, 'Node', builtin));
});

test('merge patch on a list replaces it, strategic merge patch on the same list merges it', () => {
  const body = '{"status":{"conditions":[{"type":"NodeConfigReady","status":"True"}]}}';
  assert.deepEqual(applyPatch(MERGE_PATCH, node(), body, 'Node', builtin).status.conditions, [
    { type: 'NodeConfigReady', status: 'True' },
  ]);
  assert.equal(applyPatch(STRATEGIC_MERGE_PATCH, node(), body, 'Node', builtin).status.conditions.length, 2);
});

test('bodies arrive as Buffers; the stored object is not modified', () => {
  const stored = node();
  const result = applyPatch(
    MERGE_PATCH,
    stored,
    Buffer.from('{"metadata":{"annotations":{"note":null}}}'),
    'Node',
    builtin,
  );
  assert.deepEqual(result.metadata.annotations, {});
  assert.deepEqual(stored, node());
});

test('custom resources take merge and JSON patches (kubectl apply / edit on a CRD)', () => {
  const merged = applyPatch(
    MERGE_PATCH,
    nodeConfigPool(),
    '{"spec":{"paused":true,"items":[{"name":"b"}]}}',
    'NodeConfigPool',
    custom,
  );
  assert.deepEqual(merged.spec, { paused: true, nodeSelector: { role: 'worker' }, items: [{ name: 'b' }] });
  const patched = applyPatch(
    JSON_PATCH,
    nodeConfigPool(),
    '[{"op":"replace","path":"/spec/paused","value":true}]',
    'NodeConfigPool',
    custom,
  );
  assert.equal(patched.spec.paused, true);
});

test('unsupported patch types are 415 with the list of accepted types', () => {
  const builtinAccepted =
    'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json';
  const customAccepted =
    'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json';
  const cases = [
    { type: STRATEGIC_MERGE_PATCH, opts: custom, message: customAccepted },
    { type: APPLY_PATCH, opts: builtin, message: builtinAccepted },
    { type: 'application/json', opts: builtin, message: builtinAccepted },
    { type: '', opts: custom, message: customAccepted },
  ];
  for (const c of cases) {
    assertApiError(
      () => applyPatch(c.type, nodeConfigPool(), '{}', 'NodeConfigPool', c.opts),
      415,
      'UnsupportedMediaType',
      c.message,
    );
  }
});

test('bodies that are not JSON are 400 BadRequest', () => {
  const cases = [
    {
      type: MERGE_PATCH,
      body: '{"metadata":',
      message: 'error decoding patch: unexpected end of JSON input',
    },
    { type: JSON_PATCH, body: 'xyz', message: "error decoding patch: invalid character 'x'" },
    { type: STRATEGIC_MERGE_PATCH, body: '', message: 'unexpected end of JSON input' },
    {
      type: MERGE_PATCH,
      body: '["a"]',
      message:
        'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}',
    },
    {
      type: MERGE_PATCH,
      body: 'null',
      message:
        'error decoding patch: json: cannot unmarshal null into Go value of type map[string]interface {}',
    },
    {
      type: JSON_PATCH,
      body: '{"op":"add"}',
      message: 'json: cannot unmarshal object into Go value of type jsonpatch.Patch',
    },
  ];
  for (const c of cases) {
    assertApiError(() => applyPatch(c.type, node(), c.body, 'Node', builtin), 400, 'BadRequest', c.message);
  }
});

test('a JSON patch that does not apply is 422 Invalid', () => {
  const err = assertApiError(
    () =>
      applyPatch(
        JSON_PATCH,
        node(),
        '[{"op":"test","path":"/spec/unschedulable","value":true}]',
        'Node',
        builtin,
      ),
    422,
    'Invalid',
    'the server rejected our request due to an error in our request',
  );
  assert.deepEqual(err.toStatus().details, {
    causes: [{ message: 'testing value /spec/unschedulable failed: test failed' }],
  });
});

test('a JSON patch that turns the object into something else is 422 Invalid on field "patch"', () => {
  const err = assertApiError(
    () => applyPatch(JSON_PATCH, node(), '[{"op":"replace","path":"","value":[1]}]', 'Node', builtin),
    422,
    'Invalid',
    'Node "node-1" is invalid: patch: Invalid value: "[1]": the patched document must be a JSON object, not array',
  );
  assert.equal(err.details?.causes?.[0]?.field, 'patch');
});

test('supportedPatchTypes and patchMediaType', () => {
  assert.deepEqual(supportedPatchTypes(false), [JSON_PATCH, MERGE_PATCH]);
  assert.deepEqual(supportedPatchTypes(true), [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH]);
  assert.equal(patchMediaType(' application/merge-patch+json ; charset=UTF-8'), MERGE_PATCH);
  assert.equal(patchMediaType(undefined), '');
});

// Conformance: bad input gets the Status error a real API server gives (code, reason, details) and
// changes nothing: malformed JSON/YAML, wrong kind or version for the URL, invalid names and labels,
// oversize bodies, unknown patch types, mismatched names and namespaces.

import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { after, before, describe, test } from 'node:test';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';
import { adminToken, assertStatus, json, kubectlOk, type RawResponse, raw } from './support.ts';

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

describe('bad input', () => {
  let local: LocalApiServer;
  let revision: number;

  const post = (body: string, contentType?: string, path = CONFIGMAPS) =>
    raw(local, { method: 'POST', path, body, ...(contentType ? { contentType } : {}) });

  before(async () => {
    local = await startLocalApiServer();
    await kubectlOk(
      local,
      ['apply', '-f', '-'],
      json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target' }, data: { a: '1' } }),
    );
    revision = local.server.store.currentRevision();
  });
  after(async () => {
    await local.stop();
  });

  test('malformed JSON and YAML are 400 BadRequest', async () => {
    assertStatus(await post('{"apiVersion": "v1", "kind": '), 400, 'BadRequest');
    assertStatus(await post('not json at all'), 400, 'BadRequest');
    assertStatus(await post('[1, 2]'), 400, 'BadRequest');
    assertStatus(await post(''), 400, 'BadRequest');
    assertStatus(await post('kind: ConfigMap\n  bad: [indent', 'application/yaml'), 400, 'BadRequest');
    const put = await raw(local, { method: 'PUT', path: `${CONFIGMAPS}/target`, body: '{"metadata":' });
    assertStatus(put, 400, 'BadRequest');
    const patch = await raw(local, {
      method: 'PATCH',
      path: `${CONFIGMAPS}/target`,
      contentType: 'application/merge-patch+json',
      body: '{"data":',
    });
    assertStatus(patch, 400, 'BadRequest');
    const jsonPatch = await raw(local, {
      method: 'PATCH',
      path: `${CONFIGMAPS}/target`,
      contentType: 'application/json-patch+json',
      body: json({ op: 'add' }),
    });
    assertStatus(jsonPatch, 400, 'BadRequest');
  });

  test('a YAML body is accepted like JSON', async () => {
    const res = await post(
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  k: v\n',
      'application/yaml',
    );
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json.data.k, 'v');
    await raw(local, { method: 'DELETE', path: `${CONFIGMAPS}/from-yaml` });
    revision = local.server.store.currentRevision();
  });

  test('the wrong kind or apiVersion for the URL is 400', async () => {
    const kind = await post(json({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } }));
    assertStatus(kind, 400, 'BadRequest');
    assert.match(kind.json.message, /Secret/);
    const version = await post(json({ apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'x' } }));
    assertStatus(version, 400, 'BadRequest');
    const ns = await post(
      json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'other' } }),
    );
    assertStatus(ns, 400, 'BadRequest');
    const name = await raw(local, {
      method: 'PUT',
      path: `${CONFIGMAPS}/target`,
      body: json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other' } }),
    });
    assertStatus(name, 400, 'BadRequest');
    const rvOnCreate = await post(
      json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', resourceVersion: '5' } }),
    );
    assertStatus(rvOnCreate, 400, 'BadRequest');
  });

  test('invalid names and labels are 422 Invalid with field paths', async () => {
    const cases: [string, string, string][] = [
      ['Bad_Name', CONFIGMAPS, 'ConfigMap'],
      ['a'.repeat(254), CONFIGMAPS, 'ConfigMap'],
      ['-leading-dash', CONFIGMAPS, 'ConfigMap'],
      ['dots.are.not.labels', '/api/v1/namespaces', 'Namespace'],
    ];
    for (const [name, path, kind] of cases) {
      const res = await post(json({ apiVersion: 'v1', kind, metadata: { name } }), undefined, path);
      assertStatus(res, 422, 'Invalid');
      assert.equal(res.json.details.kind, kind);
      assert.equal(res.json.details.name, name);
      const cause = res.json.details.causes.find((c: { field: string }) => c.field === 'metadata.name');
      assert.ok(cause, `a metadata.name cause for ${name}: ${res.text}`);
      assert.equal(cause.reason, 'FieldValueInvalid');
    }
    const missing = await post(json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }));
    assertStatus(missing, 422, 'Invalid');
    assert.equal(missing.json.details.causes[0].field, 'metadata.name');
    assert.equal(missing.json.details.causes[0].reason, 'FieldValueRequired');
    const labels = await post(
      json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ok', labels: { 'bad key!': 'v' } } }),
    );
    assertStatus(labels, 422, 'Invalid');
    assert.ok(
      labels.json.details.causes.some((c: { field: string }) => c.field.startsWith('metadata.labels')),
      labels.text,
    );
    // kubectl shows the same.
    const out = await local.kubectl(['create', '-f', '-'], {
      input: json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Bad_Name' } }),
    });
    assert.notEqual(out.code, 0);
    assert.match(out.stderr, /ConfigMap "Bad_Name" is invalid: metadata\.name: Invalid value: "Bad_Name"/);
  });

  test('an oversize body is 413, declared or streamed', async () => {
    const huge = json({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'huge' },
      data: { blob: 'x'.repeat(4 * 1024 * 1024) },
    });
    assertStatus(await post(huge), 413, 'RequestEntityTooLarge');
    // Without Content-Length (chunked): the server counts as it reads.
    const chunked = await new Promise<RawResponse>((resolve, reject) => {
      const r = httpsRequest(
        new URL(CONFIGMAPS, local.server.url),
        {
          method: 'POST',
          ca: local.server.caPem,
          agent: false,
          headers: { Authorization: `Bearer ${adminToken(local)}`, 'Content-Type': 'application/json' },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => {
            text += d;
          });
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: JSON.parse(text) }),
          );
        },
      );
      r.on('error', reject);
      const buffer = Buffer.from(huge);
      for (let i = 0; i < buffer.length; i += 64 * 1024) r.write(buffer.subarray(i, i + 64 * 1024));
      r.end();
    });
    assertStatus(chunked, 413, 'RequestEntityTooLarge');
    assert.equal((await raw(local, { path: `${CONFIGMAPS}/huge` })).status, 404);
  });

  test('unknown patch types are 415 UnsupportedMediaType; server-side apply is not one of them', async () => {
    for (const contentType of [
      'application/foo',
      'text/plain',
      'application/json',
      'application/apply-patch+cbor',
    ]) {
      const res = await raw(local, {
        method: 'PATCH',
        path: `${CONFIGMAPS}/target`,
        contentType,
        body: json({ data: { a: '2' } }),
      });
      assertStatus(res, 415, 'UnsupportedMediaType');
    }
    // An apply names its field manager (kube: 422 on PatchOptions).
    const body = json({ apiVersion: 'v1', kind: 'ConfigMap', data: { a: '2' } });
    const contentType = 'application/apply-patch+yaml';
    const unnamed = await raw(local, { method: 'PATCH', path: `${CONFIGMAPS}/target`, contentType, body });
    assertStatus(unnamed, 422, 'Invalid');
    assert.equal(
      unnamed.json.message,
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
    // Named, it is accepted (dry run: this suite changes nothing).
    const named = await raw(local, {
      method: 'PATCH',
      path: `${CONFIGMAPS}/target?fieldManager=conformance&force=true&dryRun=All`,
      contentType,
      body,
    });
    assert.equal(named.status, 200, named.text);
    assert.equal(named.json.data.a, '2');
  });

  test('a protobuf body that cannot be decoded is refused with a Status', async () => {
    // The magic prefix alone: 415 while protobuf is not decoded, 400 once it is.
    const res = await post('\x6b\x38\x73\x00', 'application/vnd.kubernetes.protobuf');
    if (res.status === 415) assertStatus(res, 415, 'UnsupportedMediaType');
    else assertStatus(res, 400, 'BadRequest');
  });

  test('unknown resources and unsupported methods have Status bodies', async () => {
    const unknown = await raw(local, { path: '/api/v1/namespaces/default/widgets' });
    assertStatus(unknown, 404, 'NotFound');
    const group = await raw(local, { path: '/apis/nope.example.com/v1/things' });
    assertStatus(group, 404, 'NotFound');
    const missing = await raw(local, { path: `${CONFIGMAPS}/absent` });
    assertStatus(missing, 404, 'NotFound');
    assert.deepEqual(missing.json.details, { name: 'absent', group: '', kind: 'configmaps' });
    assert.equal(missing.json.message, 'configmaps "absent" not found');
    const postNamed = await raw(local, {
      method: 'POST',
      path: `${CONFIGMAPS}/target`,
      body: json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target' } }),
    });
    assertStatus(postNamed, 405, 'MethodNotAllowed');
    const badQuery = await raw(local, { path: `${CONFIGMAPS}?limit=-1` });
    assertStatus(badQuery, 400, 'BadRequest');
    const dryRun = await post(
      json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }),
      undefined,
      `${CONFIGMAPS}?dryRun=Some`,
    );
    assertStatus(dryRun, 400, 'BadRequest');
  });

  test('none of it changed anything', async () => {
    assert.equal(local.server.store.currentRevision(), revision);
    const target = (await raw(local, { path: `${CONFIGMAPS}/target` })).json;
    assert.deepEqual(target.data, { a: '1' });
  });
});

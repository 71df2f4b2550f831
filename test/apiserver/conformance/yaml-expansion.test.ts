// A YAML body whose aliases repeat a large value expands far past what was read (3 MiB naming a 1 MiB
// string 99 times is 100 MiB of objects): refused as bad input, in a create and in a server-side apply,
// before it is expanded, and nothing is stored.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';
import { assertStatus, raw } from './support.ts';

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

/** A ConfigMap in YAML whose 99 data keys all alias one 1 MiB string. */
function expandingConfigMap(name: string): string {
  const aliases = Array.from({ length: 99 }, (_, i) => `  k${i}: *big`).join('\n');
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: &big ${'x'.repeat(1024 * 1024)}\n${aliases}\n`;
}

describe('YAML alias expansion', () => {
  let local: LocalApiServer;
  before(async () => {
    local = await startLocalApiServer();
  });
  after(async () => {
    await local.stop();
  });

  test('a create whose aliases expand past the body limit is 400 and stores nothing', async () => {
    const revision = local.server.store.currentRevision();
    const res = await raw(local, {
      method: 'POST',
      path: CONFIGMAPS,
      contentType: 'application/yaml',
      body: expandingConfigMap('expanding'),
    });
    assertStatus(res, 400, 'BadRequest');
    assert.match(res.text, /aliases expand the document past 3145728 bytes/);
    assert.equal(local.server.store.currentRevision(), revision);
  });

  test('a server-side apply whose aliases expand past the body limit is 400 and stores nothing', async () => {
    const revision = local.server.store.currentRevision();
    const res = await raw(local, {
      method: 'PATCH',
      path: `${CONFIGMAPS}/expanding?fieldManager=attacker`,
      contentType: 'application/apply-patch+yaml',
      body: expandingConfigMap('expanding'),
    });
    assertStatus(res, 400, 'BadRequest');
    assert.equal(local.server.store.currentRevision(), revision);
  });

  test('the same aliases over a small value are still accepted', async () => {
    const aliases = Array.from({ length: 99 }, (_, i) => `  k${i}: *small`).join('\n');
    const res = await raw(local, {
      method: 'POST',
      path: CONFIGMAPS,
      contentType: 'application/yaml',
      body: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: aliased\ndata:\n  a: &small value\n${aliases}\n`,
    });
    assert.equal(res.status, 201, res.text);
  });
});

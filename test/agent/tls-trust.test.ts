// The agent process trusts no default CA (src/agent/tls-trust.ts): its API connections, which name the
// cluster's CA, still verify; a connection naming none fails; an HTTPS health probe, which verifies
// nothing, still answers.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { get as httpsGet } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { getCACertificates } from 'node:tls';
import { NodeProbeRunner } from '../../src/agent/apply/health-probe.ts';
import { trustOnlyNamedCas } from '../../src/agent/tls-trust.ts';
import { ensurePki } from '../../src/apiserver/auth/certificates.ts';
import { HttpsTransport } from '../../src/kube/https-transport.ts';
import { RequestCounters } from '../../src/kube/request-counters.ts';
import { type ScriptedPeer, startScriptedPeer } from '../kube/scripted-https-peer.ts';

let peer: ScriptedPeer;

before(async () => {
  peer = await startScriptedPeer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end('{"kind":"Status"}');
  });
  trustOnlyNamedCas();
});

after(async () => {
  await peer.close();
});

test('no default CA is left', () => {
  assert.deepEqual(getCACertificates('default'), []);
});

test("a connection naming the cluster's CA verifies", async () => {
  const transport = new HttpsTransport(
    { server: peer.url, caPem: peer.caPem, token: 'a-node-token' },
    new RequestCounters(),
  );
  assert.deepEqual(await transport.json('GET', '/api'), { kind: 'Status' });
});

test('a connection naming another CA, or none, is refused', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'nodeherd-tls-trust-'));
  try {
    const other = await ensurePki(dir);
    const transport = new HttpsTransport(
      { server: peer.url, caPem: other.caPem, token: 'a-node-token' },
      new RequestCounters(),
    );
    await assert.rejects(transport.json('GET', '/api'), /certificate/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  await assert.rejects(
    new Promise((resolve, reject) => httpsGet(`${peer.url}/api`, resolve).on('error', reject)),
    /certificate/,
  );
});

test('an HTTPS health probe, which verifies nothing, still answers', async () => {
  const result = await new NodeProbeRunner().run({ http: { url: `${peer.url}/healthz` } }, 5000);
  assert.equal(result.ok, true, result.detail);
});

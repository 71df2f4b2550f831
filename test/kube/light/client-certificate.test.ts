// A client certificate from the kubeconfig (inline data, or files beside it) authenticates the light
// client: the server asks for a certificate, checks it against its client CA and sees the subject.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { TLSSocket } from 'node:tls';
import { ensurePki } from '../../../src/apiserver/auth/certificates.ts';
import { LightKubeClient } from '../../../src/kube/light/light-kube-client.ts';

const dir = mkdtempSync(join(tmpdir(), 'nodeherd-client-cert-'));
let server: Server;
let url = '';
let caPem = '';
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

before(async () => {
  const pki = await ensurePki(join(dir, 'server'));
  caPem = pki.caPem;
  openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'client-ca.key');
  openssl(
    'req',
    '-x509',
    '-new',
    '-key',
    'client-ca.key',
    '-subj',
    '/CN=client-ca',
    '-days',
    '1',
    '-out',
    'client-ca.crt',
  );
  openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'client.key');
  openssl(
    'req',
    '-new',
    '-key',
    'client.key',
    '-subj',
    '/O=system:masters/CN=cert-user',
    '-out',
    'client.csr',
  );
  openssl(
    'x509',
    '-req',
    '-in',
    'client.csr',
    '-CA',
    'client-ca.crt',
    '-CAkey',
    'client-ca.key',
    '-CAcreateserial',
    '-days',
    '1',
    '-out',
    'client.crt',
  );
  server = createServer(
    {
      cert: pki.certPem,
      key: pki.keyPem,
      ca: readFileSync(join(dir, 'client-ca.crt')),
      requestCert: true,
      rejectUnauthorized: true,
    },
    (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          kind: 'Node',
          metadata: { name: peer.subject.CN, labels: { auth: String(req.headers.authorization) } },
        }),
      );
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

function kubeconfig(user: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: c',
    '  cluster:',
    `    server: ${url}`,
    `    certificate-authority-data: ${b64(caPem)}`,
    'users:',
    '- name: u',
    '  user:',
    user,
    'contexts:',
    '- name: x',
    '  context:',
    '    cluster: c',
    '    user: u',
    'current-context: x',
    '',
  ].join('\n');
}

test('inline client-certificate-data and client-key-data authenticate, with no bearer token sent', async () => {
  const path = join(dir, 'inline.kubeconfig');
  const cert = readFileSync(join(dir, 'client.crt'), 'utf8');
  const key = readFileSync(join(dir, 'client.key'), 'utf8');
  writeFileSync(
    path,
    kubeconfig(`    client-certificate-data: ${b64(cert)}\n    client-key-data: ${b64(key)}`),
  );
  const client = LightKubeClient.fromKubeconfig(path);
  try {
    const seen = await client.get('/api/v1/nodes/me');
    assert.equal(seen.metadata?.name, 'cert-user');
    assert.equal(seen.metadata?.labels?.auth, 'undefined');
  } finally {
    client.close();
  }
});

test('client-certificate and client-key files are read relative to the kubeconfig', async () => {
  const path = join(dir, 'files.kubeconfig');
  writeFileSync(path, kubeconfig('    client-certificate: client.crt\n    client-key: client.key'));
  const client = LightKubeClient.fromKubeconfig(path);
  try {
    assert.equal((await client.get('/api/v1/nodes/me')).metadata?.name, 'cert-user');
  } finally {
    client.close();
  }
});

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import {
  ensurePki,
  type Pki,
  parseSubjectAltName,
  pkiPaths,
} from '../../../src/apiserver/auth/certificates.ts';
import { writeKubeconfigFile } from '../../../src/kube/kubeconfig-file.ts';

const run = promisify(execFile);
const root = mkdtempSync(join(tmpdir(), 'nodeherd-pki-'));
after(() => rmSync(root, { recursive: true, force: true }));

let dirs = 0;
function freshDataDir(): string {
  return mkdtempSync(join(root, `data-${dirs++}-`));
}

const DAY = 24 * 60 * 60 * 1000;

async function commandExists(command: string): Promise<boolean> {
  try {
    await run('sh', ['-c', `command -v ${command}`]);
    return true;
  } catch {
    return false;
  }
}

async function serve(pki: Pki): Promise<{ server: Server; port: number }> {
  const server = createServer({ key: pki.keyPem, cert: pki.certPem }, (req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        gitVersion: 'v1.32.0-nodeherd',
        major: '1',
        minor: '32',
        auth: req.headers.authorization,
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '::', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

// Connects to `address`, verifying the server's certificate for `host` against `ca` only.
function fetchOverTls(options: {
  address: string;
  host?: string;
  port: number;
  ca: string;
}): Promise<string> {
  const host = options.host ?? options.address;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host,
        port: options.port,
        path: '/version',
        ca: options.ca,
        agent: false,
        // Resolve any host name to the address under test, so DNS SANs can be exercised too.
        lookup: (_hostname, opts, callback) => {
          const family = options.address.includes(':') ? 6 : 4;
          if ((opts as { all?: boolean }).all) callback(null, [{ address: options.address, family }]);
          else (callback as (e: null, a: string, f: number) => void)(null, options.address, family);
        },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve(body));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

test('first start creates a CA and a serving certificate with private keys at 0600', async () => {
  const dataDir = freshDataDir();
  const pki = await ensurePki(dataDir);
  assert.deepEqual(pki.generated, { ca: true, server: true });
  const paths = pkiPaths(dataDir);
  assert.equal(readFileSync(paths.caCert, 'utf8'), pki.caPem);
  assert.equal(readFileSync(paths.serverCert, 'utf8'), pki.certPem);
  assert.equal(readFileSync(paths.serverKey, 'utf8'), pki.keyPem);
  assert.equal(statSync(paths.caKey).mode & 0o777, 0o600);
  assert.equal(statSync(paths.serverKey).mode & 0o777, 0o600);
  assert.equal(statSync(paths.dir).mode & 0o777, 0o700);

  const ca = new X509Certificate(pki.caPem);
  const cert = new X509Certificate(pki.certPem);
  assert.equal(ca.ca, true);
  assert.equal(cert.ca, false);
  assert.ok(cert.checkIssued(ca));
  assert.ok(cert.verify(ca.publicKey));
  const caYears = (Date.parse(ca.validTo) - Date.now()) / (365 * DAY);
  assert.ok(caYears > 9.9 && caYears < 10.1, `CA valid for ${caYears} years`);
  assert.equal(cert.checkHost('localhost'), 'localhost');
  assert.equal(cert.checkIP('127.0.0.1'), '127.0.0.1');
  assert.equal(cert.checkIP('::1'), '::1');
  assert.equal(cert.checkIP('10.1.2.3'), undefined);
  assert.doesNotMatch(pki.keyPem, /CERTIFICATE/);
  assert.match(pki.keyPem, /^-----BEGIN PRIVATE KEY-----/);
});

test('a real TLS client trusting only the CA connects via 127.0.0.1, localhost, ::1 and extra SANs', async () => {
  const pki = await ensurePki(freshDataDir(), { extraSans: ['127.0.0.2', 'api.nodeherd.test'] });
  const { server, port } = await serve(pki);
  try {
    for (const target of [
      { address: '127.0.0.1' },
      { address: '127.0.0.1', host: 'localhost' },
      { address: '::1' },
      { address: '127.0.0.2' },
      { address: '127.0.0.1', host: 'api.nodeherd.test' },
    ]) {
      const body = JSON.parse(await fetchOverTls({ ...target, port, ca: pki.caPem }));
      assert.equal(body.gitVersion, 'v1.32.0-nodeherd', JSON.stringify(target));
    }
    // An address the certificate does not name is refused by hostname verification...
    await assert.rejects(fetchOverTls({ address: '127.0.0.3', port, ca: pki.caPem }), {
      code: 'ERR_TLS_CERT_ALTNAME_INVALID',
    });
    // ...and a client that trusts another CA refuses the chain.
    const otherCa = (await ensurePki(freshDataDir())).caPem;
    await assert.rejects(fetchOverTls({ address: '127.0.0.1', port, ca: otherCa }), (error: Error) =>
      /UNABLE_TO_VERIFY_LEAF_SIGNATURE|unable to verify/i.test(
        `${(error as NodeJS.ErrnoException).code} ${error.message}`,
      ),
    );
  } finally {
    server.close();
  }
});

test('later starts reuse the CA and the serving certificate', async () => {
  const dataDir = freshDataDir();
  const first = await ensurePki(dataDir, { extraSans: ['10.0.0.1', 'Node-1.Example.'] });
  // Same SANs spelled differently: no re-issue.
  const second = await ensurePki(dataDir, { extraSans: ['node-1.example', '10.0.0.1', 'localhost'] });
  assert.deepEqual(second.generated, { ca: false, server: false });
  assert.equal(second.caPem, first.caPem);
  assert.equal(second.certPem, first.certPem);
  assert.equal(second.keyPem, first.keyPem);
});

test('changed SANs re-issue the serving certificate under the same CA', async () => {
  const dataDir = freshDataDir();
  const first = await ensurePki(dataDir, { extraSans: ['10.0.0.1'] });
  const second = await ensurePki(dataDir, { extraSans: ['10.0.0.1', 'fd00::1'] });
  assert.deepEqual(second.generated, { ca: false, server: true });
  assert.equal(second.caPem, first.caPem);
  assert.notEqual(second.certPem, first.certPem);
  assert.notEqual(second.keyPem, first.keyPem);
  const cert = new X509Certificate(second.certPem);
  assert.equal(cert.checkIP('fd00:0:0::1'), 'fd00:0:0::1');
  assert.ok(cert.verify(new X509Certificate(first.caPem).publicKey));
  // Dropping a SAN also re-issues: the certificate must not keep naming an address we gave up.
  const third = await ensurePki(dataDir, {});
  assert.equal(third.generated.server, true);
  assert.equal(new X509Certificate(third.certPem).checkIP('10.0.0.1'), undefined);
});

test('a serving certificate expiring within 30 days is renewed; the CA is kept', async () => {
  const dataDir = freshDataDir();
  const first = await ensurePki(dataDir);
  const at340Days = new Date(Date.now() + 340 * DAY);
  const renewed = await ensurePki(dataDir, { now: at340Days });
  assert.deepEqual(renewed.generated, { ca: false, server: true });
  assert.equal(renewed.caPem, first.caPem);
  const validTo = Date.parse(new X509Certificate(renewed.certPem).validTo);
  assert.ok(validTo > at340Days.getTime() + 300 * DAY);
  // 300 days in, the original would still have had more than 30 days left.
  const dataDir2 = freshDataDir();
  const kept = await ensurePki(dataDir2);
  assert.equal((await ensurePki(dataDir2, { now: new Date(Date.now() + 300 * DAY) })).certPem, kept.certPem);
});

test('a damaged or mismatched serving key, or a lost CA key, is replaced', async () => {
  const dataDir = freshDataDir();
  const paths = pkiPaths(dataDir);
  const first = await ensurePki(dataDir);

  writeFileSync(paths.serverKey, 'garbage');
  const repaired = await ensurePki(dataDir);
  assert.deepEqual(repaired.generated, { ca: false, server: true });

  // A key from another data dir does not match the certificate.
  writeFileSync(paths.serverKey, (await ensurePki(freshDataDir())).keyPem);
  assert.equal((await ensurePki(dataDir)).generated.server, true);

  unlinkSync(paths.caKey);
  const rebuilt = await ensurePki(dataDir);
  assert.deepEqual(rebuilt.generated, { ca: true, server: true });
  assert.notEqual(rebuilt.caPem, first.caPem);
  assert.ok(new X509Certificate(rebuilt.certPem).verify(new X509Certificate(rebuilt.caPem).publicKey));
});

test('concurrent calls for one data dir agree on one PKI', async () => {
  const dataDir = freshDataDir();
  const results = await Promise.all([ensurePki(dataDir), ensurePki(dataDir), ensurePki(dataDir)]);
  assert.equal(new Set(results.map((pki) => pki.caPem)).size, 1);
  assert.equal(new Set(results.map((pki) => pki.certPem)).size, 1);
  assert.equal(results.filter((pki) => pki.generated.ca).length, 1);
});

test('SANs are classified and canonicalised; garbage is rejected', () => {
  assert.deepEqual(parseSubjectAltName('[::1]'), { type: 'ip', value: '::1' });
  assert.deepEqual(parseSubjectAltName('0:0:0:0:0:0:0:1'), { type: 'ip', value: '::1' });
  assert.deepEqual(parseSubjectAltName(' 192.168.7.1 '), { type: 'ip', value: '192.168.7.1' });
  assert.deepEqual(parseSubjectAltName('Host.Example.'), { type: 'dns', value: 'host.example' });
  assert.deepEqual(parseSubjectAltName('*.nodes.test'), { type: 'dns', value: '*.nodes.test' });
  for (const bad of ['', 'under_score', 'http://x', 'a..b', '-lead.example']) {
    assert.throws(() => parseSubjectAltName(bad), /invalid subject alternative name/);
  }
});

test('openssl verifies the chain for TLS server use', async (t) => {
  if (!(await commandExists('openssl'))) return t.skip('openssl not installed');
  const dataDir = freshDataDir();
  await ensurePki(dataDir, { extraSans: ['192.0.2.10'] });
  const paths = pkiPaths(dataDir);
  const { stdout } = await run('openssl', [
    'verify',
    '-CAfile',
    paths.caCert,
    '-purpose',
    'sslserver',
    paths.serverCert,
  ]);
  assert.equal(stdout.trim(), `${paths.serverCert}: OK`);
  const { stdout: ipCheck } = await run('openssl', [
    'x509',
    '-in',
    paths.serverCert,
    '-noout',
    '-checkip',
    '192.0.2.10',
  ]);
  assert.match(ipCheck, /does match certificate/);
  // The CA must be usable as a CA (basic constraints + keyCertSign), checked against itself.
  const { stdout: caCheck } = await run('openssl', ['verify', '-CAfile', paths.caCert, paths.caCert]);
  assert.equal(caCheck.trim(), `${paths.caCert}: OK`);
});

test("Go's TLS stack (kubectl) trusts the CA from a kubeconfig and sends the bearer token", async (t) => {
  if (!(await commandExists('kubectl'))) return t.skip('kubectl not installed');
  const dataDir = freshDataDir();
  const pki = await ensurePki(dataDir);
  const { server, port } = await serve(pki);
  try {
    for (const host of ['127.0.0.1', 'localhost', '[::1]']) {
      const kubeconfig = join(dataDir, `kubeconfig-${host.replace(/\W/g, '')}`);
      await writeKubeconfigFile(kubeconfig, {
        server: `https://${host}:${port}`,
        caPem: pki.caPem,
        token: 'tok-123',
      });
      const { stdout } = await run('kubectl', [
        '--kubeconfig',
        kubeconfig,
        '--cache-dir',
        join(dataDir, 'kube-cache'),
        'get',
        '--raw',
        '/version',
      ]);
      const body = JSON.parse(stdout);
      assert.equal(body.gitVersion, 'v1.32.0-nodeherd');
      assert.equal(body.auth, 'Bearer tok-123');
    }
  } finally {
    server.close();
  }
});

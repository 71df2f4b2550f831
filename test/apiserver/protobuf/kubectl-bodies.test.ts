// End to end with the real kubectl (1.32): its generator commands send protobuf bodies, and each
// must decode to exactly what the same command prints with --dry-run=client -o json (less the
// `creationTimestamp: null` Go writes for an unset time). The bodies are captured by a throwaway
// HTTP server that answers with the decoded object, the way the API server would.
//
// A second part puts a translating proxy (protobuf in, JSON out) in front of the real embedded API
// server, so the decoded objects also go through its validation and storage and read back intact.
// Skipped when kubectl is not installed.

import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { ensurePki, pkiPaths } from '../../../src/apiserver/auth/certificates.ts';
import { ApiError } from '../../../src/apiserver/errors.ts';
import { BUILTIN_PROTOBUF_MESSAGES } from '../../../src/apiserver/kinds/registration.ts';
import { decodeProtobufObject } from '../../../src/apiserver/protobuf/decode.ts';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';

const kubectlMissing = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status !== 0;
const run = promisify(execFile);

interface Captured {
  method: string;
  path: string;
  contentType: string;
  accept: string;
  body: Buffer;
}

let work = '';

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    );
  });
}

function close(server: http.Server | undefined): Promise<void> {
  return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
}

async function readAll(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function kubectl(server: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run('kubectl', ['--server', server, '--token', 'not-checked', ...args], {
    env: { ...process.env, HOME: work, KUBECONFIG: join(work, 'no-kubeconfig') },
    timeout: 60_000,
  });
}

/** What --dry-run=client -o json prints, without the null creationTimestamp of an unset time. */
async function dryRun(server: string, args: string[]): Promise<Record<string, any>> {
  const { stdout } = await kubectl(server, [...args, '--dry-run=client', '-o', 'json']);
  const obj = JSON.parse(stdout) as Record<string, any>;
  assert.equal(obj.metadata.creationTimestamp, null);
  delete obj.metadata.creationTimestamp;
  return obj;
}

before(() => {
  work = mkdtempSync(join(tmpdir(), 'nodeherd-protobuf-'));
  writeFileSync(join(work, 'app.properties'), 'mode=prod\nlevel=3\n');
  writeFileSync(join(work, 'blob.bin'), Buffer.from([0x00, 0x01, 0xfe, 0xff, 0x80]));
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('kubectl create bodies decode to what --dry-run=client prints', { skip: kubectlMissing }, () => {
  let server: http.Server | undefined;
  let address = '';
  let captured: Captured[] = [];

  before(async () => {
    server = http.createServer(async (req, res) => {
      const body = await readAll(req);
      const url = new URL(req.url ?? '/', 'http://x');
      if (req.method === 'GET' && url.pathname === '/version') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ major: '1', minor: '32', gitVersion: 'v1.32.0' }));
        return;
      }
      if (req.method !== 'POST') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify(new ApiError(404, 'NotFound', 'not here').toStatus()));
        return;
      }
      captured.push({
        method: req.method,
        path: url.pathname,
        contentType: req.headers['content-type'] ?? '',
        accept: req.headers.accept ?? '',
        body,
      });
      try {
        const obj = decodeProtobufObject(body, BUILTIN_PROTOBUF_MESSAGES);
        if (obj.kind === 'TokenRequest') obj.status = { token: 'issued-token', expirationTimestamp: null };
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify(obj));
      } catch (err) {
        const status = err instanceof ApiError ? err : new ApiError(500, 'InternalError', String(err));
        res.writeHead(status.code, { 'content-type': 'application/json' });
        res.end(JSON.stringify(status.toStatus()));
      }
    });
    address = await listen(server);
  });

  after(() => close(server));

  /** Runs the command for real, returns the one request body it sent, decoded. */
  async function sent(args: string[], path: string): Promise<Record<string, unknown>> {
    captured = [];
    await kubectl(address, args);
    assert.equal(captured.length, 1, `one POST expected, got ${captured.map((c) => c.path).join(', ')}`);
    const request = captured[0]!;
    assert.equal(request.path, path);
    assert.equal(request.contentType, 'application/vnd.kubernetes.protobuf');
    assert.match(request.accept, /application\/json/);
    assert.deepEqual([...request.body.subarray(0, 4)], [0x6b, 0x38, 0x73, 0x00]);
    return decodeProtobufObject(request.body, BUILTIN_PROTOBUF_MESSAGES);
  }

  async function check(args: string[], path: string): Promise<Record<string, unknown>> {
    const decoded = await sent(args, path);
    assert.deepEqual(decoded, await dryRun(address, args));
    return decoded;
  }

  test('configmap from literals, a text file and a binary file', async () => {
    const decoded = await check(
      [
        'create',
        'configmap',
        'c1',
        '-n',
        'team-a',
        '--from-literal=a=b',
        '--from-literal=empty=',
        `--from-file=${join(work, 'app.properties')}`,
        `--from-file=${join(work, 'blob.bin')}`,
      ],
      '/api/v1/namespaces/team-a/configmaps',
    );
    assert.deepEqual(decoded, {
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { name: 'c1', namespace: 'team-a' },
      data: { a: 'b', empty: '', 'app.properties': 'mode=prod\nlevel=3\n' },
      binaryData: { 'blob.bin': 'AAH+/4A=' },
    });
  });

  test('configmap from an env file, with a hash suffix', async () => {
    const decoded = await check(
      ['create', 'configmap', 'c2', `--from-env-file=${join(work, 'app.properties')}`, '--append-hash'],
      '/api/v1/namespaces/default/configmaps',
    );
    assert.deepEqual(decoded.data, { mode: 'prod', level: '3' });
    assert.match((decoded.metadata as { name: string }).name, /^c2-[a-z0-9]{10}$/);
  });

  test('secret generic with a type, literals and a binary file', async () => {
    const decoded = await check(
      [
        'create',
        'secret',
        'generic',
        's1',
        '--type=example.com/opaque',
        '--from-literal=user=admin',
        `--from-file=key=${join(work, 'blob.bin')}`,
      ],
      '/api/v1/namespaces/default/secrets',
    );
    assert.deepEqual(decoded.data, { user: 'YWRtaW4=', key: 'AAH+/4A=' });
    assert.equal(decoded.type, 'example.com/opaque');
  });

  test('secret docker-registry', async () => {
    const decoded = await check(
      [
        'create',
        'secret',
        'docker-registry',
        'pull',
        '--docker-server=registry.example.com',
        '--docker-username=u',
        '--docker-password=p',
      ],
      '/api/v1/namespaces/default/secrets',
    );
    assert.equal(decoded.type, 'kubernetes.io/dockerconfigjson');
  });

  test('secret tls', async () => {
    const pkiDir = join(work, 'pki-data');
    await ensurePki(pkiDir);
    const paths = pkiPaths(pkiDir);
    const decoded = await check(
      ['create', 'secret', 'tls', 'tls1', `--cert=${paths.serverCert}`, `--key=${paths.serverKey}`],
      '/api/v1/namespaces/default/secrets',
    );
    const data = decoded.data as Record<string, string>;
    assert.equal(Buffer.from(data['tls.crt']!, 'base64').toString(), readFileSync(paths.serverCert, 'utf8'));
    assert.equal(decoded.type, 'kubernetes.io/tls');
  });

  test('namespace', async () => {
    const decoded = await check(['create', 'namespace', 'ns1'], '/api/v1/namespaces');
    assert.deepEqual(decoded, {
      kind: 'Namespace',
      apiVersion: 'v1',
      metadata: { name: 'ns1' },
      spec: {},
      status: {},
    });
  });

  test('serviceaccount', async () => {
    const decoded = await check(
      ['create', 'serviceaccount', 'sa1', '-n', 'kube-system'],
      '/api/v1/namespaces/kube-system/serviceaccounts',
    );
    assert.deepEqual(decoded, {
      kind: 'ServiceAccount',
      apiVersion: 'v1',
      metadata: { name: 'sa1', namespace: 'kube-system' },
    });
  });

  test('poddisruptionbudget with a percentage and a selector', async () => {
    const decoded = await check(
      [
        'create',
        'poddisruptionbudget',
        'pdb1',
        '--selector=app=web,tier notin (cache)',
        '--max-unavailable=25%',
      ],
      '/apis/policy/v1/namespaces/default/poddisruptionbudgets',
    );
    assert.deepEqual(decoded.spec, {
      selector: {
        matchLabels: { app: 'web' },
        matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['cache'] }],
      },
      maxUnavailable: '25%',
    });
  });

  test('token requests (no dry-run to compare with): audiences, duration and bound object', async () => {
    const decoded = await sent(
      [
        'create',
        'token',
        'sa1',
        '--audience=https://a.example',
        '--audience=b',
        '--duration=2h',
        '--bound-object-kind=Pod',
        '--bound-object-name=p1',
        '--bound-object-uid=0f0e0d0c',
      ],
      '/api/v1/namespaces/default/serviceaccounts/sa1/token',
    );
    assert.deepEqual(decoded, {
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: {},
      spec: {
        audiences: ['https://a.example', 'b'],
        expirationSeconds: 7200,
        boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p1', uid: '0f0e0d0c' },
      },
      status: { token: '' },
    });
  });
});

describe('decoded kubectl bodies are accepted by the embedded API server', { skip: kubectlMissing }, () => {
  let local: LocalApiServer | undefined;
  let proxy: http.Server | undefined;
  let address = '';

  before(async () => {
    local = await startLocalApiServer();
    const token = local.kubeConfig().getCurrentUser()!.token!;
    const target = new URL(local.server.url);
    proxy = http.createServer(async (req, res) => {
      let body = await readAll(req);
      const headers: http.OutgoingHttpHeaders = { ...req.headers, authorization: `Bearer ${token}` };
      delete headers.host;
      if (req.headers['content-type'] === 'application/vnd.kubernetes.protobuf') {
        try {
          body = Buffer.from(JSON.stringify(decodeProtobufObject(body, BUILTIN_PROTOBUF_MESSAGES)));
          headers['content-type'] = 'application/json';
        } catch (err) {
          const status = err as ApiError;
          res.writeHead(status.code, { 'content-type': 'application/json' });
          res.end(JSON.stringify(status.toStatus()));
          return;
        }
      }
      headers['content-length'] = String(body.length);
      const upstream = https.request(
        {
          hostname: target.hostname,
          port: target.port,
          path: req.url,
          method: req.method,
          headers,
          rejectUnauthorized: false,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', (err) => {
        res.writeHead(502);
        res.end(String(err));
      });
      upstream.end(body);
    });
    address = await listen(proxy);
  });

  after(async () => {
    await close(proxy);
    await local?.stop();
  });

  async function get(args: string[]): Promise<Record<string, any>> {
    return JSON.parse((await kubectl(address, ['get', ...args, '-o', 'json'])).stdout) as Record<string, any>;
  }

  test('configmap, secret, namespace, serviceaccount and poddisruptionbudget round-trip', async () => {
    await kubectl(address, ['create', 'namespace', 'proto']);
    await kubectl(address, [
      'create',
      'configmap',
      'c1',
      '-n',
      'proto',
      '--from-literal=a=b',
      `--from-file=${join(work, 'blob.bin')}`,
    ]);
    await kubectl(address, ['create', 'secret', 'generic', 's1', '-n', 'proto', '--from-literal=user=admin']);
    await kubectl(address, ['create', 'serviceaccount', 'sa1', '-n', 'proto']);
    await kubectl(address, [
      'create',
      'pdb',
      'pdb1',
      '-n',
      'proto',
      '--selector=app=web',
      '--min-available=1',
    ]);

    const ns = await get(['namespace', 'proto']);
    assert.equal(ns.metadata.name, 'proto');
    const cm = await get(['configmap', 'c1', '-n', 'proto']);
    assert.deepEqual(cm.data, { a: 'b' });
    assert.deepEqual(cm.binaryData, { 'blob.bin': 'AAH+/4A=' });
    const secret = await get(['secret', 's1', '-n', 'proto']);
    assert.deepEqual(secret.data, { user: 'YWRtaW4=' });
    const sa = await get(['serviceaccount', 'sa1', '-n', 'proto']);
    assert.equal(sa.metadata.namespace, 'proto');
    const pdb = await get(['pdb', 'pdb1', '-n', 'proto']);
    assert.deepEqual(pdb.spec, { minAvailable: 1, selector: { matchLabels: { app: 'web' } } });
  });
});

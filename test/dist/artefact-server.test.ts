// The artefact handler nodeherd-init downloads from: plain files of the dist directory under
// /nodeherd/agent/, strong ETags from the .sha256 files, nothing outside the directory, and HTTPS with
// the control plane's own certificate.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ensurePki } from '../../src/apiserver/auth/certificates.ts';
import {
  artefactsOptions,
  type ControllerFlags,
  controllerCommand,
} from '../../src/controller/controller-command.ts';
import {
  type ArtefactServer,
  createArtefactHandler,
  startArtefactServer,
} from '../../src/dist/artefact-server.ts';
import { eventually } from '../support/eventually.ts';

let dir: string;
let server: ArtefactServer;
const bundle = Buffer.from('#!/usr/bin/env node\n// nodeherd-agent test\nconsole.log("hi");\n');
const digest = createHash('sha256').update(bundle).digest('hex');

interface Response {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function get(url: string, options: { method?: string; headers?: Record<string, string>; ca?: string } = {}) {
  return new Promise<Response>((resolve, reject) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      target,
      {
        method: options.method ?? 'GET',
        headers: options.headers,
        ...(options.ca ? { ca: options.ca } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nodeherd-artefacts-'));
  await writeFile(join(dir, 'nodeherd-agent.mjs'), bundle);
  await writeFile(join(dir, 'nodeherd-agent.mjs.sha256'), `${digest}  nodeherd-agent.mjs\n`);
  await writeFile(join(dir, '.runtime-source.json'), '{}');
  await mkdir(join(dir, 'sub'));
  await writeFile(join(dir, 'sub', 'inner'), 'x');
  server = await startArtefactServer({ directory: dir });
});

after(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

test('serves an artefact with its length, type and its sha256 as a strong ETag', async () => {
  const res = await get(`${server.url}/nodeherd-agent.mjs`);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, bundle);
  assert.equal(res.headers['content-length'], String(bundle.length));
  assert.equal(res.headers['content-type'], 'text/javascript; charset=utf-8');
  assert.equal(res.headers.etag, `"${digest}"`);
  assert.equal(res.headers['cache-control'], 'no-cache');

  const sum = await get(`${server.url}/nodeherd-agent.mjs.sha256`);
  assert.equal(sum.status, 200);
  assert.equal(sum.body.toString(), `${digest}  nodeherd-agent.mjs\n`);
  assert.equal(sum.headers['content-type'], 'text/plain; charset=utf-8');
});

test('HEAD and a matching If-None-Match send no body', async () => {
  const head = await get(`${server.url}/nodeherd-agent.mjs`, { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.headers['content-length'], String(bundle.length));
  assert.equal(head.body.length, 0);
  const cached = await get(`${server.url}/nodeherd-agent.mjs`, {
    headers: { 'If-None-Match': `"${digest}"` },
  });
  assert.equal(cached.status, 304);
  assert.equal(cached.body.length, 0);
  const stale = await get(`${server.url}/nodeherd-agent.mjs`, { headers: { 'If-None-Match': '"other"' } });
  assert.equal(stale.status, 200);
});

test('nothing but plain files directly in the directory is served', async () => {
  for (const path of [
    'missing',
    '.runtime-source.json',
    'sub',
    'sub/inner',
    '..%2f..%2fetc%2fpasswd',
    '%2e%2e',
    '%ZZ',
    '',
  ]) {
    const res = await get(`${server.url}/${path}`);
    assert.equal(res.status, 404, path);
  }
  const post = await get(`${server.url}/nodeherd-agent.mjs`, { method: 'POST' });
  assert.equal(post.status, 405);
  assert.equal(post.headers.allow, 'GET, HEAD');
});

test('the handler leaves requests outside its prefix to the next handler', () => {
  const handler = createArtefactHandler({ directory: dir });
  let touched = false;
  const res = new Proxy(
    {},
    {
      get() {
        touched = true;
        return () => undefined;
      },
    },
  );
  const req = { url: '/api/v1/nodes', method: 'GET', headers: {} } as unknown as IncomingMessage;
  const handled = handler(req, res as ServerResponse);
  assert.equal(handled, false);
  assert.equal(touched, false);
  assert.throws(() => createArtefactHandler({ directory: dir, prefix: 'agent' }), /prefix/);
});

test('over HTTPS with the control plane certificate, trusted through its CA', async () => {
  const pkiDir = await mkdtemp(join(tmpdir(), 'nodeherd-artefacts-pki-'));
  try {
    const pki = await ensurePki(pkiDir);
    const tls = await startArtefactServer({ directory: dir, cert: pki.certPem, key: pki.keyPem });
    try {
      assert.match(tls.url, /^https:\/\/127\.0\.0\.1:\d+\/nodeherd\/agent$/);
      const res = await get(`${tls.url}/nodeherd-agent.mjs`, { ca: pki.caPem });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, bundle);
      await assert.rejects(get(`${tls.url}/nodeherd-agent.mjs`), /self.signed|unable to verify|certificate/i);
    } finally {
      await tls.close();
    }
  } finally {
    await rm(pkiDir, { recursive: true, force: true });
  }
});

test('a certificate from files (a renewed Secret) is used for new connections once the files change', async () => {
  const work = await mkdtemp(join(tmpdir(), 'nodeherd-artefacts-reload-'));
  try {
    const first = await ensurePki(join(work, 'first'));
    const second = await ensurePki(join(work, 'second')); // another CA altogether
    const certFile = join(work, 'tls.crt');
    const keyFile = join(work, 'tls.key');
    await writeFile(certFile, first.certPem);
    await writeFile(keyFile, first.keyPem);
    const tls = await startArtefactServer({ directory: dir, certFile, keyFile, reloadIntervalMs: 20 });
    try {
      assert.equal((await get(`${tls.url}/nodeherd-agent.mjs`, { ca: first.caPem })).status, 200);
      await assert.rejects(get(`${tls.url}/nodeherd-agent.mjs`, { ca: second.caPem }), /certificate|verify/i);
      await writeFile(certFile, second.certPem);
      await writeFile(keyFile, second.keyPem);
      const renewed = await eventually('the renewed certificate to be served', async () => {
        const res = await get(`${tls.url}/nodeherd-agent.mjs`, { ca: second.caPem }).catch(() => undefined);
        return res?.status === 200 ? res : undefined;
      });
      assert.deepEqual(renewed.body, bundle);
    } finally {
      await tls.close();
    }
    await assert.rejects(
      startArtefactServer({ directory: dir, certFile }),
      /certFile and keyFile go together/,
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
});

test('the controller serves artefacts only over HTTPS: its flags say which one is missing', () => {
  const parse = (args: string[]) =>
    artefactsOptions(
      controllerCommand()
        .exitOverride()
        .parse(['node', 'c', ...args])
        .opts<ControllerFlags>(),
    );
  assert.equal(parse([]), undefined);
  assert.throws(
    () => parse(['--artefacts-dir=/d']),
    /--artefacts-dir needs --artefacts-tls-cert-file and --artefacts-tls-key-file/,
  );
  assert.throws(() => parse(['--artefacts-tls-cert-file=/c']), /need --artefacts-dir/);
  assert.deepEqual(
    parse(['--artefacts-dir=/d', '--artefacts-tls-cert-file=/c', '--artefacts-tls-key-file=/k']),
    {
      directory: '/d',
      address: ':8443',
      certFile: '/c',
      keyFile: '/k',
    },
  );
});

// The request chain (src/apiserver/chain/) is the seam later work plugs into: stages run in order, each
// answers, refuses or passes on, and may act after the rest has run; a body is read once whoever asks;
// admission stages' checks all run. docs/apiserver.md lists every stage of the server's chain in the
// order they run, so the page and the code cannot drift apart (a new stage adds its row there).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { ApiRequest, RequestChain, type RequestStage } from '../../../src/apiserver/chain/request-chain.ts';
import type { AdmissionRequest } from '../../../src/apiserver/objects/object-service.ts';
import { startLocalApiServer } from '../../support/local-apiserver.ts';

const root = join(import.meta.dirname, '../../..');

function fakeRequest(body = '', url = '/api/v1/namespaces/default/configmaps'): IncomingMessage {
  const req = Readable.from([Buffer.from(body)]) as unknown as IncomingMessage;
  Object.assign(req, { url, method: 'POST', headers: { 'content-length': String(body.length) } });
  return req;
}
const fakeResponse = {} as ServerResponse;

function recording(name: string, log: string[], answer = false): RequestStage {
  return {
    name,
    async handle(_request, next) {
      log.push(`${name} before`);
      if (answer) return;
      await next();
      log.push(`${name} after`);
    },
  };
}

test('stages run in order until one answers, and may act after the rest has run', async () => {
  const log: string[] = [];
  const chain = new RequestChain([
    recording('first', log),
    recording('second', log),
    recording('answering', log, true),
    recording('never', log),
  ]);
  await chain.run(fakeRequest(), fakeResponse);
  assert.deepEqual(log, ['first before', 'second before', 'answering before', 'second after', 'first after']);
});

test('a refusal stops the chain and reaches the stages before it', async () => {
  const seen: unknown[] = [];
  const chain = new RequestChain([
    {
      name: 'errors',
      async handle(_request, next) {
        await next().catch((err: unknown) => seen.push(err));
      },
    },
    {
      name: 'refusing',
      handle: () => Promise.reject(new Error('refused')),
    },
    recording('never', []),
  ]);
  await chain.run(fakeRequest(), fakeResponse);
  assert.equal((seen[0] as Error).message, 'refused');
});

test('a chain whose stages all pass the request on fails, rather than leaving it unanswered', async () => {
  const chain = new RequestChain([recording('only', [])]);
  await assert.rejects(chain.run(fakeRequest(), fakeResponse), /no stage of the request chain answered/);
});

test('the body is read once, whichever stage asks first', async () => {
  const request = new ApiRequest(fakeRequest('{"a":1}'), fakeResponse);
  const first = await request.body();
  const second = await request.body();
  assert.equal(first.toString(), '{"a":1}');
  assert.equal(second, first);
});

test('the URL is read as request info; the identity is there only after authentication', () => {
  const request = new ApiRequest(fakeRequest('', '/api/v1/namespaces/ns/pods/p?watch=1'), fakeResponse);
  assert.equal(request.url.searchParams.get('watch'), '1');
  assert.equal(request.info.isResourceRequest, true);
  assert.equal(request.info.verb, 'create');
  assert.throws(() => request.authenticated, /before authentication/);
});

test('every admission check a stage adds runs on a write, in the order added', () => {
  const request = new ApiRequest(fakeRequest(), fakeResponse);
  assert.equal(request.admit, undefined);
  const ran: string[] = [];
  request.admission.push(() => ran.push('node restriction'));
  request.admission.push(() => ran.push('policies'));
  request.admit!({ operation: 'CREATE' } as AdmissionRequest);
  assert.deepEqual(ran, ['node restriction', 'policies']);
  request.admission.push(() => {
    throw new Error('denied');
  });
  assert.throws(() => request.admit!({ operation: 'DELETE' } as AdmissionRequest), /denied/);
});

test("docs/apiserver.md lists every stage of the server's chain, in the order they run", async () => {
  const local = await startLocalApiServer();
  try {
    const names = local.server.chain.stages.map((stage) => stage.name);
    // The page is the contract later work reads: it lists every stage, in the order they run.
    const at = (name: string) => names.indexOf(name);
    assert.ok(at('authentication') >= 0 && at('authentication') < at('authorization'));
    assert.ok(at('authorization') < at('node restriction') && at('node restriction') < at('resources'));
    const page = readFileSync(join(root, 'docs/apiserver.md'), 'utf8');
    const rows = names.map((name) => page.indexOf(`| ${name} |`));
    for (const [i, name] of names.entries())
      assert.ok(rows[i]! >= 0, `docs/apiserver.md has no row for "${name}"`);
    assert.deepEqual(
      rows,
      [...rows].sort((a, b) => a - b),
      'docs/apiserver.md lists the stages in another order',
    );
  } finally {
    await local.stop();
  }
});

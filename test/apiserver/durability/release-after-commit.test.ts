// The API server group-commits writes: inside the process a write is visible before its commit, so every
// answer and every watch event must be held until the state it reflects is durable. This test watches
// every byte the server hands to a socket (through Node's http diagnostics channel, without touching the
// server) and checks that no resourceVersion in it is above the store's durable revision at that moment,
// while one pipelining connection mixes creates, patches, conflicting updates, deletes, gets and lists,
// and a watch follows along.

import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ServerResponse } from 'node:http';
import { Agent, request } from 'node:https';
import { after, test } from 'node:test';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';
import { PipelinedConnection } from './pipelined-client.ts';

const BASE = '/api/v1/namespaces/default/configmaps';
const ROUNDS = 60;
const DEPTH = 12;

let local: LocalApiServer | undefined;
after(async () => {
  await local?.stop();
});

test('no answer or watch event leaves the server before the writes it reflects are durable', async () => {
  local = await startLocalApiServer();
  const server = local.server;
  const violations: string[] = [];
  let checkedChunks = 0;
  const check = (chunk: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const text = Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk);
    let newest = 0;
    for (const match of text.matchAll(/"resourceVersion":"(\d+)"/g))
      newest = Math.max(newest, Number(match[1]));
    checkedChunks++;
    const durable = server.store.durableRevision();
    if (newest > durable) violations.push(`sent resourceVersion ${newest} while only ${durable} was durable`);
  };
  const observe = (message: unknown) => {
    const res = (message as { response: ServerResponse }).response;
    const write = res.write;
    const end = res.end;
    res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
      check(chunk);
      return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof res.write;
    res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
      check(chunk);
      return (end as (...args: unknown[]) => ServerResponse).call(this, chunk, ...rest);
    } as typeof res.end;
  };
  subscribe('http.server.request.start', observe);
  try {
    const kc = local.kubeConfig();
    const token = kc.getCurrentUser()!.token!;
    const ca = Buffer.from(kc.getCurrentCluster()!.caData!, 'base64');

    // A watch on the configmaps, counting the events it receives.
    const agent = new Agent({ ca });
    let watchedEvents = 0;
    const watch = request(new URL(`${BASE}?watch=1&resourceVersion=0`, server.url), {
      agent,
      headers: { Authorization: `Bearer ${token}` },
    });
    watch.on('response', (res) => {
      res.on('data', (chunk: Buffer) => {
        watchedEvents += chunk
          .toString('utf8')
          .split('\n')
          .filter((line) => line.includes('"type"')).length;
      });
    });
    watch.on('error', () => {});
    watch.end();

    const pipe = await PipelinedConnection.connect(server.url, token, ca);
    const statuses = new Map<number, number>();
    let written = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const replies = [];
      for (let i = 0; i < DEPTH; i++) {
        const name = `cm-${round}-${i % 4}`;
        const kind = i % 6;
        if (i < 4) {
          replies.push(
            pipe.request('POST', BASE, {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name },
              data: { i: String(i) },
            }),
          );
        } else if (kind === 0 || kind === 1) {
          replies.push(
            pipe.request(
              'PATCH',
              `${BASE}/${name}`,
              { data: { patched: String(i) } },
              'application/merge-patch+json',
            ),
          );
        } else if (kind === 2) {
          // A stale resourceVersion: 409, answered only after the write it conflicts with is durable.
          replies.push(
            pipe.request('PUT', `${BASE}/${name}`, {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name, resourceVersion: '1' },
              data: {},
            }),
          );
        } else if (kind === 3) {
          replies.push(pipe.request('GET', `${BASE}/${name}`));
        } else if (kind === 4) {
          replies.push(pipe.request('GET', `${BASE}?limit=5`));
        } else {
          replies.push(pipe.request('DELETE', `${BASE}/cm-${round}-3`));
        }
      }
      for (const reply of await Promise.all(replies)) {
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
        if (reply.status === 201 || (reply.status === 200 && reply.json?.kind === 'ConfigMap')) written++;
      }
    }
    pipe.close();
    // The watch sees the writes too (its events are checked like any other bytes).
    const deadline = Date.now() + 60_000;
    while (watchedEvents < ROUNDS * 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    watch.destroy();
    agent.destroy();

    assert.ok((statuses.get(201) ?? 0) >= ROUNDS * 4, `creates answered: ${JSON.stringify([...statuses])}`);
    assert.ok((statuses.get(409) ?? 0) > 0, 'stale updates conflicted');
    assert.ok(written > 0 && watchedEvents >= ROUNDS * 4, `watch saw ${watchedEvents} events`);
    assert.ok(checkedChunks > ROUNDS * DEPTH, `only ${checkedChunks} chunks observed`);
    assert.deepEqual(violations, []);
  } finally {
    unsubscribe('http.server.request.start', observe);
  }
});

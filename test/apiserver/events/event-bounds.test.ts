// Events and condition messages cannot fill the server (issue 32), through real HTTPS with a node's
// token: Events of 1 MiB are refused (kube's 1 KiB NoteLengthLimit), Events written fast are 429 with
// Retry-After once a bucket (per source and object, per user: kube's EventRateLimit, scaled down) is
// empty, Events expire after the TTL (scaled down to 1.5 s) in both APIs, and condition messages over
// 32 KiB are refused on Nodes and NodeConfigPools, changing nothing.

import assert from 'node:assert/strict';
import { request } from 'node:https';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { KubeError } from '../../../src/kube/kube-error.ts';
import { adminKubeClient, type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';
import { nodeConfigPool } from '../../support/nodeherd-objects.ts';

const MIB = 1024 * 1024;
const NODE = 'n1';
const EVENTS = '/api/v1/namespaces/default/events';

let local: LocalApiServer;
let agentToken: string;

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, any>;
}

/** One request as the node's agent (or another token), without the client's Retry-After retries. */
function asAgent(method: string, path: string, body: unknown, token = agentToken): Promise<RawAnswer> {
  const url = new URL(local.server.url);
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method,
        ca: local.server.caPem,
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          'Content-Length': String(payload.length),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: JSON.parse(Buffer.concat(chunks).toString() || '{}'),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

function nodeEvent(name: string, message: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: 'default' },
    involvedObject: { kind: 'Node', name: NODE, apiVersion: 'v1' },
    source: { component: 'nodeherd-agent', host: NODE },
    reason: 'Applied',
    message,
    type: 'Normal',
  };
}

before(async () => {
  local = await startLocalApiServer({
    eventTtlMs: 1500,
    eventRateLimit: { user: { qps: 1, burst: 6 }, sourceAndObject: { qps: 1, burst: 3 } },
  });
  const client = adminKubeClient(local);
  await client.create('/api/v1/nodes', { metadata: { name: NODE } });
  client.close();
  agentToken = await local.server.issueCredential('node', NODE, join(local.dataDir, 'agent.kubeconfig'));
});

after(async () => {
  await local?.stop();
});

test('an Event with a 1 MiB message is refused, naming the field, and nothing is stored', async () => {
  const answer = await asAgent('POST', EVENTS, nodeEvent('huge', 'x'.repeat(MIB)));
  assert.equal(answer.status, 422, JSON.stringify(answer.body).slice(0, 300));
  assert.equal(answer.body.details.causes[0].field, 'message');
  assert.match(answer.body.details.causes[0].message, /can have at most 1024 characters/);
  const client = adminKubeClient(local);
  try {
    await assert.rejects(
      client.get(`${EVENTS}/huge`),
      (e: unknown) => e instanceof KubeError && e.status === 404,
    );
  } finally {
    client.close();
  }
});

test('an Event of 1 MiB by its annotations or references is refused with 413, and nothing is stored', async () => {
  const annotated = nodeEvent('annotated', 'small');
  (annotated.metadata as Record<string, unknown>).annotations = { a: 'x'.repeat(200 * 1024) };
  const referenced = nodeEvent('referenced', 'small');
  referenced.related = { kind: 'Node', name: NODE, fieldPath: 'x'.repeat(MIB) };
  for (const event of [annotated, referenced]) {
    const answer = await asAgent('POST', EVENTS, event);
    assert.equal(answer.status, 413, JSON.stringify(answer.body).slice(0, 300));
    assert.match(answer.body.message, /an Event may be at most 65536 bytes/);
  }
  const client = adminKubeClient(local);
  try {
    const names = (await client.list(EVENTS)).items.map((e) => e.metadata?.name);
    assert.ok(!names.includes('annotated') && !names.includes('referenced'));
  } finally {
    client.close();
  }
});

test("Events written fast by one node's token are 429 with Retry-After once its bucket is empty", async () => {
  const answers: RawAnswer[] = [];
  for (let i = 0; i < 8; i++)
    answers.push(await asAgent('POST', EVENTS, nodeEvent(`fast-${i}`, 'y'.repeat(1000))));
  const created = answers.filter((a) => a.status === 201).length;
  const limited = answers.filter((a) => a.status === 429);
  // The source-and-object bucket holds 3 (one more may have refilled on a slow machine).
  assert.ok(created >= 3 && created <= 5, `${created} created`);
  assert.equal(created + limited.length, 8);
  const first = limited[0]!;
  assert.equal(first.body.reason, 'TooManyRequests');
  assert.match(first.body.message, /limit reached on type SourceAndObject for key nodeherd-agent\/n1\/Node/);
  assert.ok(Number(first.headers['retry-after']) >= 1, `Retry-After ${first.headers['retry-after']}`);
  // A dry run takes no token (it stores nothing), so it is judged on its own merits even now.
  const dry = await asAgent('POST', `${EVENTS}?dryRun=All`, nodeEvent('dry', 'z'));
  assert.equal(dry.status, 201);
});

test('one user writing Events about many objects is 429 once its own bucket is empty', async () => {
  const client = adminKubeClient(local);
  await client.create('/api/v1/nodes', { metadata: { name: 'n2' } });
  client.close();
  const token = await local.server.issueCredential('node', 'n2', join(local.dataDir, 'agent-n2.kubeconfig'));
  const answers: RawAnswer[] = [];
  for (let i = 0; i < 9; i++) {
    // Another source host each time: every source-and-object bucket is fresh, the user's is not.
    const event = {
      ...nodeEvent(`many-${i}`, 'w'),
      involvedObject: { kind: 'Node', name: 'n2', apiVersion: 'v1' },
      source: { component: 'nodeherd-agent', host: `host-${i}` },
    };
    answers.push(await asAgent('POST', EVENTS, event, token));
  }
  const created = answers.filter((a) => a.status === 201).length;
  assert.ok(created >= 6 && created <= 8, `${created} created (the user's burst is 6)`);
  const limited = answers.find((a) => a.status === 429);
  assert.match(limited?.body.message ?? '', /limit reached on type User for key nodeherd:agent:n2/);
});

test('the controller and the admin are held to the per-object limit only: they speak for the fleet', async () => {
  const token = await local.server.issueCredential(
    'controller',
    undefined,
    join(local.dataDir, 'controller.kubeconfig'),
  );
  const answers: RawAnswer[] = [];
  for (let i = 0; i < 9; i++) {
    // Nine objects, one Event each: past the user burst of 6, within each object's burst.
    const event = {
      ...nodeEvent(`fleet-${i}`, 'rollout'),
      involvedObject: { kind: 'Node', name: `node-${i}`, apiVersion: 'v1' },
      source: { component: 'nodeherd-controller' },
    };
    answers.push(await asAgent('POST', EVENTS, event, token));
  }
  assert.deepEqual(
    answers.map((a) => a.status),
    Array(9).fill(201),
  );
  // The same object past its own burst of 3 is still limited.
  const same: number[] = [];
  for (let i = 0; i < 5; i++) {
    const event = { ...nodeEvent(`same-${i}`, 'again'), source: { component: 'nodeherd-controller' } };
    same.push((await asAgent('POST', EVENTS, event, token)).status);
  }
  assert.ok(same.includes(429), `${same}`);
});

test('Events expire after the TTL, in core/v1 and events.k8s.io/v1 alike', async () => {
  const client = adminKubeClient(local);
  try {
    await client.create('/apis/events.k8s.io/v1/namespaces/default/events', {
      metadata: { name: 'new-style' },
      eventTime: '2026-01-01T00:00:00.000000Z',
      regarding: { kind: 'Node', name: 'other' },
      reportingController: 'test',
      reportingInstance: 'test-1',
      action: 'Test',
      reason: 'Test',
      type: 'Normal',
      note: 'expires',
    });
    const listed = await client.list(EVENTS);
    assert.ok(listed.items.length >= 1);
    let remaining = listed.items.length;
    for (let attempt = 0; attempt < 100 && remaining > 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      remaining = (await client.list(EVENTS)).items.length;
    }
    assert.equal(remaining, 0, 'every Event expired');
    assert.equal((await client.list('/apis/events.k8s.io/v1/events')).items.length, 0);
  } finally {
    client.close();
  }
});

test('a Node condition message over 32 KiB is refused and the Node is unchanged', async () => {
  const client = adminKubeClient(local);
  try {
    const node = await client.get<Record<string, any>>(`/api/v1/nodes/${NODE}`);
    const condition = {
      type: 'NodeConfigReady',
      status: 'False',
      reason: 'Failed',
      message: 'm'.repeat(MIB),
    };
    const answer = await asAgent('PUT', `/api/v1/nodes/${NODE}/status`, {
      ...node,
      status: { ...node.status, conditions: [condition] },
    });
    assert.equal(answer.status, 422, JSON.stringify(answer.body).slice(0, 300));
    assert.equal(answer.body.details.causes[0].field, 'status.conditions[0].message');
    assert.match(answer.body.details.causes[0].message, /Too long: may not be more than 32768 bytes/);
    const after = await client.get<Record<string, any>>(`/api/v1/nodes/${NODE}`);
    assert.equal(after.metadata.resourceVersion, node.metadata.resourceVersion);
    // 32 KiB exactly is accepted.
    const ok = await asAgent('PUT', `/api/v1/nodes/${NODE}/status`, {
      ...node,
      status: { ...node.status, conditions: [{ ...condition, message: 'm'.repeat(32 * 1024) }] },
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body).slice(0, 300));
  } finally {
    client.close();
  }
});

test("a NodeConfigPool condition message over 32 KiB is refused, as metav1.Condition's", async () => {
  const client = adminKubeClient(local);
  try {
    const path = '/apis/nodeherd.io/v1alpha1/nodeconfigpools';
    const pool = await client.create<Record<string, any>>(path, nodeConfigPool('web'));
    const condition = {
      type: 'Degraded',
      status: 'True',
      reason: 'Big',
      message: 'm'.repeat(MIB),
      lastTransitionTime: '2026-01-01T00:00:00Z',
    };
    await assert.rejects(
      client.update(`${path}/web/status`, { ...pool, status: { conditions: [condition] } }),
      (e: unknown) =>
        e instanceof KubeError && e.status === 422 && /status\.conditions\[0\]\.message/.test(e.message),
    );
  } finally {
    client.close();
  }
});

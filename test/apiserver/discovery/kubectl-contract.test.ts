// Runs the real kubectl against the discovery and OpenAPI documents to pin down the contract the
// builders exist for: kubectl 1.32 must choose server-side field validation (never downloading
// /openapi/v2 to validate), compute strategic merge patches for built-ins from its compiled-in
// types without warnings (even though /openapi/v2 answers, with an empty document), use merge
// patches for custom resources, and find kinds for explain.
// Object requests are answered by a recording stub: the real object handling lives in
// src/apiserver/http and is tested there. Skipped when kubectl is not installed.

import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import {
  AGGREGATED_DISCOVERY_CONTENT_TYPE,
  acceptsAggregatedDiscovery,
  aggregatedDiscovery,
} from '../../../src/apiserver/discovery/aggregated-discovery.ts';
import { canonicalJson } from '../../../src/apiserver/discovery/document-hash.ts';
import {
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
} from '../../../src/apiserver/discovery/legacy-discovery.ts';
import {
  OPENAPI_V2_PROTOBUF_CONTENT_TYPE,
  openApiV2Protobuf,
} from '../../../src/apiserver/discovery/openapi-v2.ts';
import { openApiV3Document, openApiV3Root } from '../../../src/apiserver/discovery/openapi-v3.ts';
import { versionInfo } from '../../../src/apiserver/discovery/version-info.ts';
import { builtinResources } from '../../../src/apiserver/kinds/registration.ts';
import { ResourceRegistry } from '../../../src/apiserver/registry/resource-registry.ts';
import type { KubeObject } from '../../../src/apiserver/storage/types.ts';
import { widgetCrd } from '../registry/crd-fixture.ts';

const kubectlMissing = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status !== 0;
const run = promisify(execFile);

interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  contentType: string;
  body: string;
}

const registry = new ResourceRegistry(builtinResources());
registry.applyCustomResourceDefinition(widgetCrd());
const objects = new Map<string, KubeObject>();
let requests: Recorded[] = [];
let server: http.Server;
let address = '';
let home = '';

function documentFor(req: http.IncomingMessage, path: string): { type: string; doc: unknown } | undefined {
  const parts = path.split('/').filter((p) => p !== '');
  if (path === '/version') return { type: 'application/json', doc: versionInfo() };
  if (path === '/api' || path === '/apis') {
    const prefix = path === '/api' ? 'api' : 'apis';
    if (acceptsAggregatedDiscovery(req.headers.accept)) {
      return { type: AGGREGATED_DISCOVERY_CONTENT_TYPE, doc: aggregatedDiscovery(registry, prefix) };
    }
    return {
      type: 'application/json',
      doc: prefix === 'api' ? apiVersions(registry) : apiGroupList(registry),
    };
  }
  if (path === '/openapi/v3') return { type: 'application/json', doc: openApiV3Root(registry) };
  if (parts[0] === 'openapi' && parts[1] === 'v3') {
    const doc = openApiV3Document(registry, parts.slice(2).join('/'));
    return doc && { type: 'application/json', doc };
  }
  if (parts[0] === 'api' && parts.length === 2) {
    const doc = apiResourceList(registry, '', parts[1]!);
    return doc && { type: 'application/json', doc };
  }
  if (parts[0] === 'apis' && parts.length === 2) {
    const doc = apiGroup(registry, parts[1]!);
    return doc && { type: 'application/json', doc };
  }
  if (parts[0] === 'apis' && parts.length === 3) {
    const doc = apiResourceList(registry, parts[1]!, parts[2]!);
    return doc && { type: 'application/json', doc };
  }
  return undefined;
}

/** The stub for object requests: GET by path, POST stores, PATCH and PUT answer the stored object. */
function objectRequest(method: string, path: string, body: string): { code: number; object: KubeObject } {
  const notFound = {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    reason: 'NotFound',
    code: 404,
    message: 'not found',
  };
  if (method === 'POST') {
    const object = JSON.parse(body);
    object.metadata.resourceVersion = '1';
    objects.set(`${path}/${object.metadata.name}`, object);
    return { code: 201, object };
  }
  const stored = objects.get(path);
  return stored ? { code: 200, object: stored } : { code: 404, object: notFound };
}

before(async () => {
  if (kubectlMissing) return;
  home = mkdtempSync(join(tmpdir(), 'nodeherd-kubectl-'));
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const path = url.pathname.replace(/\/+$/, '') || '/';
      requests.push({
        method: req.method ?? '',
        path,
        query: url.searchParams,
        contentType: req.headers['content-type'] ?? '',
        body,
      });
      if (req.method === 'GET' && path === '/openapi/v2') {
        res.writeHead(200, { 'Content-Type': OPENAPI_V2_PROTOBUF_CONTENT_TYPE });
        res.end(openApiV2Protobuf());
        return;
      }
      const document = req.method === 'GET' ? documentFor(req, path) : undefined;
      if (document) {
        res.writeHead(200, { 'Content-Type': document.type });
        res.end(canonicalJson(document.doc));
        return;
      }
      const isObjectPath = /^\/(api\/v1|apis\/[^/]+\/[^/]+)\/namespaces\/[^/]+\/[^/]+/.test(path);
      const answer = isObjectPath ? objectRequest(req.method ?? '', path, body) : { code: 404, object: {} };
      res.writeHead(answer.code, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(answer.object));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => {
  server?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

async function kubectl(args: string[], stdin?: string): Promise<{ stdout: string; stderr: string }> {
  const file = join(home, `manifest-${requests.length}.yaml`);
  if (stdin !== undefined) writeFileSync(file, stdin);
  const fileArgs = stdin !== undefined ? ['-f', file] : [];
  return run('kubectl', ['--server', address, ...args, ...fileArgs], {
    env: { ...process.env, HOME: home, KUBECONFIG: '/dev/null' },
    timeout: 60_000,
  });
}

const pod = (image: string) => `
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  containers:
  - {name: app, image: ${image}, env: [{name: A, value: "1"}]}
  - {name: proxy, image: proxy:1}
`;

test('kubectl apply of a built-in: server-side validation on create, compiled-in merge keys on update', {
  skip: kubectlMissing,
}, async () => {
  requests = [];
  const created = await kubectl(['apply'], pod('app:1'));
  assert.match(created.stdout, /pod\/web created/);
  const post = requests.find((r) => r.method === 'POST');
  assert.equal(post?.path, '/api/v1/namespaces/default/pods');
  assert.equal(post?.query.get('fieldValidation'), 'Strict', 'kubectl left validation to the server');
  assert.ok(
    !requests.some((r) => r.path === '/openapi/v2'),
    'no OpenAPI v2 download to validate client-side',
  );

  requests = [];
  const updated = await kubectl(['apply'], pod('app:2'));
  assert.match(updated.stdout, /pod\/web configured/);
  assert.doesNotMatch(updated.stderr, /warning/i);
  const patch = requests.find((r) => r.method === 'PATCH');
  assert.equal(patch?.contentType, 'application/strategic-merge-patch+json');
  assert.equal(patch?.query.get('fieldValidation'), 'Strict');
  const spec = JSON.parse(patch!.body).spec;
  // Containers merged by name: only the changed one is sent, the order is kept by directive.
  assert.deepEqual(spec, {
    '$setElementOrder/containers': [{ name: 'app' }, { name: 'proxy' }],
    containers: [{ image: 'app:2', name: 'app' }],
  });
});

test('kubectl apply of a custom resource: server-side validation, JSON merge patch', {
  skip: kubectlMissing,
}, async () => {
  const widget = (size: number) => `
apiVersion: example.com/v1
kind: Widget
metadata: {name: w1, namespace: default}
spec: {size: ${size}}
`;
  requests = [];
  await kubectl(['apply'], widget(1));
  const post = requests.find((r) => r.method === 'POST');
  assert.equal(post?.path, '/apis/example.com/v1/namespaces/default/widgets');
  assert.equal(post?.query.get('fieldValidation'), 'Strict');

  requests = [];
  await kubectl(['apply'], widget(2));
  const patch = requests.find((r) => r.method === 'PATCH');
  assert.equal(patch?.contentType, 'application/merge-patch+json');
  assert.equal(JSON.parse(patch!.body).spec.size, 2);
});

test('kubectl explain and api-resources read the documents', { skip: kubectlMissing }, async () => {
  const explained = await kubectl(['explain', 'widgets.spec']);
  assert.match(explained.stdout, /size\s+<integer>\s+How big\./);
  const pods = await kubectl(['explain', 'pods']);
  assert.match(pods.stdout, /KIND:\s+Pod/);
  assert.match(pods.stdout, /metadata\s+<ObjectMeta>/);

  const resources = await kubectl(['api-resources', '--no-headers']);
  const rows = resources.stdout.split('\n').map((line) => line.trim().split(/\s+/));
  assert.ok(rows.some((r) => r.join(' ') === 'widgets wd example.com/v1 true Widget'));
  assert.ok(rows.some((r) => r.join(' ') === 'poddisruptionbudgets pdb policy/v1 true PodDisruptionBudget'));
});

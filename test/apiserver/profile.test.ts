// The API server is generic: what an application adds comes only through the profile it is started
// with. A server with an empty profile serves no nodeherd.io API and gives nodeherd's controller and
// agents nothing; a profile's CRDs, validators and authorization rules are what the server applies.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { ApiServerProfile } from '../../src/apiserver/profile.ts';
import { NODEHERD_IDENTITY_NAMES } from '../../src/profile/nodeherd-identities.ts';
import { type LocalApiServer, startLocalApiServer } from '../support/local-apiserver.ts';

const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Cluster',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

// An application of its own: one CRD, a validator that refuses widgets named "forbidden", a controller
// and node agents named as nodeherd names them, no rules.
const widgets: ApiServerProfile = {
  customResourceDefinitions: () => [widgetCrd],
  identities: NODEHERD_IDENTITY_NAMES,
  validate(def, object) {
    return def.group === 'example.com' && object.metadata?.name === 'forbidden'
      ? [
          {
            type: 'FieldValueForbidden',
            field: 'metadata.name',
            message: 'widgets may not be named forbidden',
          },
        ]
      : [];
  },
};

let local: LocalApiServer;

before(async () => {
  local = await startLocalApiServer({ profile: widgets });
});
after(async () => {
  await local.stop();
});

test("the server installs the profile's CRDs and namespaces and nothing of nodeherd", async () => {
  const groups = await local.kubectl(['get', '--raw', '/apis']);
  assert.equal(groups.code, 0, groups.stderr);
  const names = (JSON.parse(groups.stdout) as { groups: { name: string }[] }).groups.map((g) => g.name);
  assert.ok(names.includes('example.com'), `groups: ${names.join(', ')}`);
  assert.ok(!names.includes('nodeherd.io'), `groups: ${names.join(', ')}`);
  const namespaces = await local.kubectl(['get', 'namespaces', '-o', 'name']);
  assert.equal(namespaces.code, 0, namespaces.stderr);
  assert.deepEqual(namespaces.stdout.trim().split('\n').sort(), [
    'namespace/default',
    'namespace/kube-node-lease',
    'namespace/kube-public',
    'namespace/kube-system',
  ]);
});

test("the profile's validator decides on its kinds", async () => {
  const widget = (name: string) =>
    JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name } });
  const ok = await local.kubectl(['create', '-f', '-'], { input: widget('fine') });
  assert.equal(ok.code, 0, ok.stderr);
  const refused = await local.kubectl(['create', '-f', '-'], { input: widget('forbidden') });
  assert.notEqual(refused.code, 0);
  assert.match(
    refused.stderr,
    /The Widget "forbidden" is invalid: metadata\.name: widgets may not be named forbidden/,
  );
});

test("without the profile's rules nodeherd's controller and agents may do nothing beyond discovery", async () => {
  const controller = join(local.dataDir, 'controller.kubeconfig');
  await local.server.issueCredential('controller', undefined, controller);
  const nodes = await local.kubectl(['get', 'nodes'], { kubeconfig: controller });
  assert.notEqual(nodes.code, 0);
  assert.match(nodes.stderr, /Forbidden/);
  const agent = join(local.dataDir, 'agent.kubeconfig');
  await local.server.issueCredential('node', 'n1', agent);
  const own = await local.kubectl(['get', 'node', 'n1'], { kubeconfig: agent });
  assert.notEqual(own.code, 0);
  assert.match(own.stderr, /Forbidden/);
});

test('a profile that names no controller or agents gets no credentials for them', async () => {
  const bare = await startLocalApiServer({ profile: { customResourceDefinitions: () => [] } });
  try {
    const path = join(bare.dataDir, 'controller.kubeconfig');
    await assert.rejects(
      bare.server.issueCredential('controller', undefined, path),
      /profile names no controller identities/,
    );
    await assert.rejects(
      bare.server.issueCredential('node', 'n1', join(bare.dataDir, 'agent.kubeconfig')),
      /profile names no node agent identities/,
    );
    const admin = await bare.kubectl(['get', 'namespaces']);
    assert.equal(admin.code, 0, admin.stderr);
  } finally {
    await bare.stop();
  }
});

// Conformance: the details real clients notice when the server is not kube-apiserver — boolean query
// parameters, DELETE bodies per kind, eviction of pods a budget ignores, one Event store behind two
// APIs, metav1.Time/MicroTime decoding, ConfigMap/Secret decoding and validation, pretty printing,
// the default ServiceAccount, and the self-reviews behind `kubectl auth can-i` / `auth whoami`.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SqliteStore } from '../../../src/apiserver/storage/sqlite-store.ts';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';
import { assertStatus, json, raw, rawWatch, tokenOf, waitFor } from './support.ts';

const post = (local: LocalApiServer, path: string, body: unknown, token?: string) =>
  raw(local, { method: 'POST', path, body: json(body), ...(token !== undefined ? { token } : {}) });

describe('kube compatibility details', () => {
  let local: LocalApiServer;
  before(async () => {
    local = await startLocalApiServer();
  });
  after(() => local.stop());

  describe('boolean query parameters', () => {
    for (const value of ['True', '1', 'TRUE', '']) {
      test(`?watch=${value} is a watch (apimachinery: anything but "0" and "false")`, async () => {
        const w = await rawWatch(
          local,
          `/api/v1/namespaces/default/configmaps?watch=${value}&timeoutSeconds=2`,
        );
        try {
          assert.equal(w.status, 200);
          await post(local, '/api/v1/namespaces/default/configmaps', {
            metadata: { name: `watched-${value.toLowerCase() || 'empty'}` },
          });
          await waitFor('the ADDED event', () =>
            w.events.some((e) => e.type === 'ADDED' && e.object.metadata.name.startsWith('watched-')),
          );
        } finally {
          w.close();
        }
      });
    }
    for (const value of ['False', '0', 'FALSE']) {
      test(`?watch=${value} is a list`, async () => {
        const res = await raw(local, { path: `/api/v1/namespaces/default/configmaps?watch=${value}` });
        assert.equal(res.status, 200);
        assert.equal(res.json.kind, 'ConfigMapList');
      });
    }
    test('allowWatchBookmarks=True and sendInitialEvents=True are honoured', async () => {
      const w = await rawWatch(
        local,
        '/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=True&sendInitialEvents=True&resourceVersionMatch=NotOlderThan&timeoutSeconds=2',
      );
      try {
        await waitFor('the initial-events-end bookmark', () =>
          w.events.some(
            (e) =>
              e.type === 'BOOKMARK' &&
              e.object.metadata.annotations?.['k8s.io/initial-events-end'] === 'true',
          ),
        );
      } finally {
        w.close();
      }
    });
    test('orphanDependents=True orphans the dependents', async () => {
      const owner = (
        await post(local, '/api/v1/namespaces/default/configmaps', { metadata: { name: 'owner' } })
      ).json;
      await post(local, '/api/v1/namespaces/default/configmaps', {
        metadata: {
          name: 'dependent',
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid }],
        },
      });
      const res = await raw(local, {
        method: 'DELETE',
        path: '/api/v1/namespaces/default/configmaps/owner?orphanDependents=True',
      });
      assert.equal(res.status, 200, res.text);
      await waitFor('the owner to be gone', async () => {
        const r = await raw(local, { path: '/api/v1/namespaces/default/configmaps/owner' });
        return r.status === 404;
      });
      const dependent = await raw(local, { path: '/api/v1/namespaces/default/configmaps/dependent' });
      assert.equal(dependent.status, 200);
      assert.deepEqual(dependent.json.metadata.ownerReferences ?? [], []);
    });
  });

  describe('DELETE answers', () => {
    for (const [path, body] of [
      ['/api/v1/namespaces/default/configmaps', { metadata: { name: 'gone' } }],
      ['/api/v1/namespaces/default/secrets', { metadata: { name: 'gone' } }],
      ['/apis/coordination.k8s.io/v1/namespaces/default/leases', { metadata: { name: 'gone' } }],
      ['/api/v1/nodes', { metadata: { name: 'gone' } }],
    ] as const) {
      test(`${path}: a Status with name, group, resource and uid`, async () => {
        const created = (await post(local, path, body)).json;
        const res = await raw(local, { method: 'DELETE', path: `${path}/gone` });
        assert.equal(res.status, 200, res.text);
        const group = path.startsWith('/apis/') ? path.split('/')[2] : undefined;
        assert.deepEqual(res.json, {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Success',
          details: {
            name: 'gone',
            ...(group ? { group } : {}),
            kind: path.split('/').at(-1),
            uid: created.metadata.uid,
          },
        });
      });
    }
    for (const [path, body] of [
      ['/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'gone' } }],
      [
        '/api/v1/namespaces/default/pods',
        { metadata: { name: 'gone' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
      ],
    ] as const) {
      test(`${path}: the deleted object (ReturnDeletedObject)`, async () => {
        const created = (await post(local, path, body)).json;
        const res = await raw(local, { method: 'DELETE', path: `${path}/gone` });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.json.metadata.uid, created.metadata.uid);
        assert.notEqual(res.json.kind, 'Status');
      });
    }
    test('an object kept by a finalizer is answered with its deletionTimestamp', async () => {
      await post(local, '/api/v1/namespaces/default/configmaps', {
        metadata: { name: 'kept', finalizers: ['example.com/hold'] },
      });
      const res = await raw(local, { method: 'DELETE', path: '/api/v1/namespaces/default/configmaps/kept' });
      assert.equal(res.status, 200);
      assert.equal(res.json.kind, 'ConfigMap');
      assert.ok(res.json.metadata.deletionTimestamp);
      await raw(local, {
        method: 'PATCH',
        path: '/api/v1/namespaces/default/configmaps/kept',
        contentType: 'application/merge-patch+json',
        body: json({ metadata: { finalizers: null } }),
      });
    });
  });

  test('DELETE with orphanDependents=false that leaves the object pending is 202 Accepted', async () => {
    await post(local, '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'pending', finalizers: ['example.com/hold'] },
    });
    const res = await raw(local, {
      method: 'DELETE',
      path: '/api/v1/namespaces/default/configmaps/pending?orphanDependents=false',
    });
    assert.equal(res.status, 202, res.text);
    assert.ok(res.json.metadata.deletionTimestamp);
  });

  describe('eviction', () => {
    before(async () => {
      await post(local, '/apis/policy/v1/namespaces/default/poddisruptionbudgets', {
        metadata: { name: 'all' },
        spec: { minAvailable: 5, selector: { matchLabels: { app: 'budgeted' } } },
      });
    });
    const evict = (name: string) =>
      post(local, `/api/v1/namespaces/default/pods/${name}/eviction`, {
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: { name, namespace: 'default' },
      });
    const pod = (name: string, status: unknown) =>
      post(local, '/api/v1/namespaces/default/pods', {
        metadata: { name, labels: { app: 'budgeted' } },
        spec: { containers: [{ name: 'c', image: 'busybox' }] },
        status,
      });
    test('a Pending pod is evicted whatever the budget says (canIgnorePDB)', async () => {
      await pod('pending', { phase: 'Pending' });
      const res = await evict('pending');
      assert.equal(res.status, 201, res.text);
      assert.equal((await raw(local, { path: '/api/v1/namespaces/default/pods/pending' })).status, 404);
    });
    test('a Running ready pod the budget protects is refused with 429', async () => {
      await pod('running', { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] });
      assertStatus(await evict('running'), 429, 'TooManyRequests');
    });
    test('a Succeeded pod is evicted', async () => {
      await pod('done', { phase: 'Succeeded' });
      assert.equal((await evict('done')).status, 201);
    });
  });

  describe('one Event store behind core/v1 and events.k8s.io/v1', () => {
    const coreEvents = '/api/v1/namespaces/default/events';
    const v1Events = '/apis/events.k8s.io/v1/namespaces/default/events';
    test('an events.k8s.io Event is a core Event with kube’s field names', async () => {
      const res = await post(local, v1Events, {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: 'from-v1' },
        eventTime: '2026-11-25T12:00:00.123456Z',
        reportingController: 'example.com/controller',
        reportingInstance: 'controller-1',
        action: 'Rolled',
        reason: 'RolledOut',
        type: 'Normal',
        note: 'rolled out',
        regarding: { kind: 'Node', name: 'node-a', apiVersion: 'v1' },
        related: { kind: 'Pod', name: 'p', namespace: 'default' },
        series: { count: 3, lastObservedTime: '2026-11-25T12:01:00.000001Z' },
        deprecatedCount: 3,
        deprecatedFirstTimestamp: '2026-11-25T11:00:00Z',
        deprecatedLastTimestamp: '2026-11-25T12:01:00Z',
        deprecatedSource: { component: 'legacy', host: 'h' },
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.json.apiVersion, 'events.k8s.io/v1');
      assert.equal(res.json.note, 'rolled out');
      const core = (await raw(local, { path: `${coreEvents}/from-v1` })).json;
      assert.equal(core.apiVersion, 'v1');
      assert.equal(core.message, 'rolled out');
      assert.deepEqual(core.involvedObject, { kind: 'Node', name: 'node-a', apiVersion: 'v1' });
      assert.equal(core.reportingComponent, 'example.com/controller');
      assert.equal(core.reportingInstance, 'controller-1');
      assert.equal(core.count, 3);
      assert.equal(core.firstTimestamp, '2026-11-25T11:00:00Z');
      assert.equal(core.lastTimestamp, '2026-11-25T12:01:00Z');
      assert.deepEqual(core.source, { component: 'legacy', host: 'h' });
      assert.equal(core.eventTime, '2026-11-25T12:00:00.123456Z');
      assert.deepEqual(core.series, { count: 3, lastObservedTime: '2026-11-25T12:01:00.000001Z' });
      assert.equal(core.action, 'Rolled');
      assert.deepEqual(core.related, { kind: 'Pod', name: 'p', namespace: 'default' });
      for (const v1Only of ['note', 'regarding', 'reportingController', 'deprecatedCount']) {
        assert.equal(core[v1Only], undefined, v1Only);
      }
    });
    test('a core Event is listed, selected and patched through events.k8s.io', async () => {
      await post(local, coreEvents, {
        metadata: { name: 'from-core' },
        involvedObject: { kind: 'Node', name: 'node-b' },
        reason: 'Rebooted',
        message: 'node rebooted',
        type: 'Warning',
        count: 2,
        firstTimestamp: '2026-11-25T10:00:00+01:00',
        source: { component: 'agent' },
      });
      const list = (await raw(local, { path: `${v1Events}?fieldSelector=regarding.name%3Dnode-b` })).json;
      assert.equal(list.kind, 'EventList');
      assert.deepEqual(
        list.items.map((e: any) => e.metadata.name),
        ['from-core'],
      );
      const [v1] = list.items;
      assert.equal(v1.apiVersion, 'events.k8s.io/v1');
      assert.equal(v1.note, 'node rebooted');
      assert.deepEqual(v1.regarding, { kind: 'Node', name: 'node-b' });
      assert.equal(v1.deprecatedCount, 2);
      assert.equal(v1.deprecatedFirstTimestamp, '2026-11-25T09:00:00Z');
      assert.deepEqual(v1.deprecatedSource, { component: 'agent' });
      const patched = await raw(local, {
        method: 'PATCH',
        path: `${v1Events}/from-core`,
        contentType: 'application/merge-patch+json',
        body: json({ note: 'patched through v1' }),
      });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.json.note, 'patched through v1');
      assert.equal(
        (await raw(local, { path: `${coreEvents}/from-core` })).json.message,
        'patched through v1',
      );
    });
    test('a watch on either API sees writes through the other, converted', async () => {
      const v1Watch = await rawWatch(local, `${v1Events}?watch=true&resourceVersion=1&timeoutSeconds=5`);
      const coreWatch = await rawWatch(local, `${coreEvents}?watch=true&resourceVersion=1&timeoutSeconds=5`);
      try {
        await post(local, coreEvents, {
          metadata: { name: 'watched' },
          involvedObject: { kind: 'Node', name: 'node-c' },
          message: 'seen by both',
        });
        const fromV1 = await waitFor('the v1 watch event', () =>
          v1Watch.events.find((e) => e.object.metadata?.name === 'watched'),
        );
        assert.equal(fromV1.object.apiVersion, 'events.k8s.io/v1');
        assert.equal(fromV1.object.note, 'seen by both');
        await post(local, v1Events, {
          metadata: { name: 'watched-v1' },
          regarding: { kind: 'Node', name: 'node-c' },
          note: 'also seen by both',
        });
        const fromCore = await waitFor('the core watch event', () =>
          coreWatch.events.find((e) => e.object.metadata?.name === 'watched-v1'),
        );
        assert.equal(fromCore.object.apiVersion, 'v1');
        assert.equal(fromCore.object.message, 'also seen by both');
      } finally {
        v1Watch.close();
        coreWatch.close();
      }
    });
    test('deleting through one API removes it from both', async () => {
      const res = await raw(local, { method: 'DELETE', path: `${v1Events}/watched` });
      assert.equal(res.status, 200);
      assert.equal((await raw(local, { path: `${coreEvents}/watched` })).status, 404);
    });
  });

  test('events.k8s.io Events a data dir of an earlier build kept apart join the core store at start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'nodeherd-events-merge-'));
    const store = SqliteStore.open(join(dataDir, 'state.db'));
    store.create('/events.k8s.io/events/default/old', {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'old', namespace: 'default', uid: 'u-1', creationTimestamp: '2026-11-25T12:00:00Z' },
      note: 'from an earlier build',
      regarding: { kind: 'Node', name: 'n' },
    });
    store.close();
    const earlier = await startLocalApiServer({ dataDir });
    try {
      const core = await raw(earlier, { path: '/api/v1/namespaces/default/events/old' });
      assert.equal(core.status, 200, core.text);
      assert.equal(core.json.message, 'from an earlier build');
      assert.equal(core.json.metadata.uid, 'u-1');
      const v1 = await raw(earlier, { path: '/apis/events.k8s.io/v1/namespaces/default/events' });
      assert.deepEqual(
        v1.json.items.map((e: any) => e.note),
        ['from an earlier build'],
      );
    } finally {
      await earlier.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  describe('metav1.Time and MicroTime', () => {
    const leases = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
    test('a Lease with renewTime "not-a-time" is refused with kube’s decoding error', async () => {
      const res = await post(local, leases, { metadata: { name: 'bad' }, spec: { renewTime: 'not-a-time' } });
      assertStatus(res, 400, 'BadRequest');
      assert.equal(
        res.json.message,
        'Lease in version "v1" cannot be handled as a Lease: parsing time "not-a-time" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "not-a-time" as "2006"',
      );
      assert.equal((await raw(local, { path: `${leases}/bad` })).status, 404);
    });
    test('MicroTime needs its six digits, as Go parses RFC3339Micro', async () => {
      const res = await post(local, leases, {
        metadata: { name: 'coarse' },
        spec: { renewTime: '2026-11-25T12:00:00Z' },
      });
      assertStatus(res, 400, 'BadRequest');
      assert.match(res.json.message, /cannot parse "Z" as "\.000000"/);
    });
    test('offsets become UTC; MicroTime keeps microseconds, Time whole seconds', async () => {
      const res = await post(local, leases, {
        metadata: { name: 'good' },
        spec: { holderIdentity: 'a', acquireTime: '2026-11-25T13:00:00.123456+01:00', renewTime: null },
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.json.spec.acquireTime, '2026-11-25T12:00:00.123456Z');
      assert.equal('renewTime' in res.json.spec, false, 'null is the zero time: omitted');
      const node = await post(local, '/api/v1/nodes', {
        metadata: { name: 'timed' },
        status: {
          conditions: [
            {
              type: 'Ready',
              status: 'True',
              lastHeartbeatTime: '2026-11-25T12:00:00.987654321-02:00',
              lastTransitionTime: '2026-11-25T12:00:00Z',
            },
          ],
        },
      });
      assert.equal(node.status, 201, node.text);
      assert.equal(node.json.status.conditions[0].lastHeartbeatTime, '2026-11-25T14:00:00Z');
    });
    test('a condition time that is not a string is a decoding error too', async () => {
      const res = await post(local, '/api/v1/namespaces/default/pods', {
        metadata: { name: 'bad-time' },
        spec: { containers: [{ name: 'c', image: 'busybox' }] },
        status: { startTime: 12 },
      });
      assertStatus(res, 400, 'BadRequest');
      assert.equal(
        res.json.message,
        'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into Go value of type string',
      );
    });
  });

  describe('ConfigMaps and Secrets', () => {
    const secrets = '/api/v1/namespaces/default/secrets';
    const configMaps = '/api/v1/namespaces/default/configmaps';
    test('stringData is merged into data (winning over it) and never stored', async () => {
      const res = await post(local, secrets, {
        metadata: { name: 'merged' },
        data: { a: Buffer.from('old').toString('base64'), b: Buffer.from('kept').toString('base64') },
        stringData: { a: 'new', c: 'ünïcode' },
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.json.stringData, undefined);
      const stored = (await raw(local, { path: `${secrets}/merged` })).json;
      assert.equal(stored.stringData, undefined);
      assert.deepEqual(
        Object.fromEntries(
          Object.entries(stored.data).map(([k, v]) => [k, Buffer.from(v as string, 'base64').toString()]),
        ),
        { a: 'new', b: 'kept', c: 'ünïcode' },
      );
      const patched = await raw(local, {
        method: 'PATCH',
        path: `${secrets}/merged`,
        contentType: 'application/merge-patch+json',
        body: json({ stringData: { b: 'patched' } }),
      });
      assert.equal(Buffer.from(patched.json.data.b, 'base64').toString(), 'patched');
    });
    test('Secret data that is not base64 is a 400 naming the byte', async () => {
      const res = await post(local, secrets, { metadata: { name: 'bad' }, data: { a: 'not base64!' } });
      assertStatus(res, 400, 'BadRequest');
      assert.equal(
        res.json.message,
        'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3',
      );
    });
    test('ConfigMap data values must be strings', async () => {
      const res = await post(local, configMaps, { metadata: { name: 'bad' }, data: { n: 1 } });
      assertStatus(res, 400, 'BadRequest');
      assert.equal(
        res.json.message,
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
      );
    });
    test('keys are config keys; a key in both data and binaryData is invalid', async () => {
      const res = await post(local, configMaps, {
        metadata: { name: 'bad-keys' },
        data: { 'a/b': 'x', both: 'x' },
        binaryData: { both: 'eA==' },
      });
      assertStatus(res, 422, 'Invalid');
      const fields = res.json.details.causes.map((c: any) => c.field).sort();
      assert.deepEqual(fields, ['binaryData[both]', 'data[a/b]', 'data[both]']);
    });
    test('a Secret’s type is immutable', async () => {
      await post(local, secrets, { metadata: { name: 'typed' }, type: 'example.com/one' });
      const res = await raw(local, {
        method: 'PATCH',
        path: `${secrets}/typed`,
        contentType: 'application/merge-patch+json',
        body: json({ type: 'example.com/two' }),
      });
      assertStatus(res, 422, 'Invalid');
      assert.match(res.json.message, /type: Invalid value: "example.com\/two": field is immutable/);
    });
    test('immutable: true freezes data and itself', async () => {
      await post(local, configMaps, { metadata: { name: 'frozen' }, data: { a: '1' }, immutable: true });
      const change = await raw(local, {
        method: 'PATCH',
        path: `${configMaps}/frozen`,
        contentType: 'application/merge-patch+json',
        body: json({ data: { a: '2' } }),
      });
      assertStatus(change, 422, 'Invalid');
      assert.match(change.json.message, /data: Forbidden: field is immutable when `immutable` is set/);
      const thaw = await raw(local, {
        method: 'PATCH',
        path: `${configMaps}/frozen`,
        contentType: 'application/merge-patch+json',
        body: json({ immutable: false }),
      });
      assertStatus(thaw, 422, 'Invalid');
      const labels = await raw(local, {
        method: 'PATCH',
        path: `${configMaps}/frozen`,
        contentType: 'application/merge-patch+json',
        body: json({ metadata: { labels: { still: 'editable' } } }),
      });
      assert.equal(labels.status, 200, labels.text);
    });
  });

  describe('pretty', () => {
    for (const query of ['pretty=true', 'pretty=1', 'pretty=True']) {
      test(`?${query} indents with two spaces, like json.MarshalIndent`, async () => {
        const res = await raw(local, { path: `/api/v1/namespaces/default?${query}` });
        assert.equal(res.text, JSON.stringify(res.json, null, 2));
      });
    }
    test('curl gets indented output unasked; kubectl-like agents do not; errors too', async () => {
      const curl = await raw(local, {
        path: '/api/v1/namespaces/default',
        headers: { 'User-Agent': 'curl/8.5.0' },
      });
      assert.equal(curl.text, JSON.stringify(curl.json, null, 2));
      const other = await raw(local, {
        path: '/api/v1/namespaces/default',
        headers: { 'User-Agent': 'kubectl/v1.32.0' },
      });
      assert.equal(other.text, JSON.stringify(other.json));
      const notFound = await raw(local, { path: '/api/v1/namespaces/nope?pretty=true' });
      assert.equal(notFound.status, 404);
      assert.equal(notFound.text, JSON.stringify(notFound.json, null, 2));
      const off = await raw(local, {
        path: '/api/v1/namespaces/default?pretty=false',
        headers: { 'User-Agent': 'curl/8' },
      });
      assert.equal(off.text, JSON.stringify(off.json));
    });
  });

  describe('the default ServiceAccount', () => {
    test('exists in the namespaces made at start', async () => {
      for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
        await waitFor(
          `default SA in ${ns}`,
          async () =>
            (await raw(local, { path: `/api/v1/namespaces/${ns}/serviceaccounts/default` })).status === 200,
        );
      }
    });
    test('appears in a new namespace and comes back when deleted', async () => {
      await post(local, '/api/v1/namespaces', { metadata: { name: 'fresh' } });
      const sa = '/api/v1/namespaces/fresh/serviceaccounts/default';
      const first = await waitFor('the default SA', async () => {
        const r = await raw(local, { path: sa });
        return r.status === 200 ? r.json : undefined;
      });
      await raw(local, { method: 'DELETE', path: sa });
      await waitFor('the default SA to come back', async () => {
        const r = await raw(local, { path: sa });
        return r.status === 200 && r.json.metadata.uid !== first.metadata.uid;
      });
    });
  });

  describe('self reviews', () => {
    let controllerToken: string;
    before(async () => {
      const path = join(local.dataDir, 'controller.kubeconfig');
      await local.server.issueCredential('controller', undefined, path);
      const { KubeConfig } = await import('@kubernetes/client-node');
      const kc = new KubeConfig();
      kc.loadFromFile(path);
      controllerToken = tokenOf(kc);
    });
    const access = (attrs: unknown, token?: string) =>
      post(
        local,
        '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
        { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: attrs },
        token,
      );
    test('SelfSubjectAccessReview answers from the authorizer for the requester', async () => {
      const admin = await access({ resourceAttributes: { verb: 'delete', resource: 'nodes' } });
      assert.equal(admin.status, 201, admin.text);
      assert.equal(admin.json.status.allowed, true);
      const allowed = await access(
        { resourceAttributes: { verb: 'create', resource: 'pods', subresource: 'eviction', namespace: 'x' } },
        controllerToken,
      );
      assert.equal(allowed.json.status.allowed, true, allowed.text);
      const denied = await access(
        { resourceAttributes: { verb: 'delete', resource: 'nodes' } },
        controllerToken,
      );
      assert.equal(denied.json.status.allowed, false);
      assert.equal(denied.json.status.reason, undefined, 'no reason, like RBAC when no rule matches');
      const nonResource = await access(
        { nonResourceAttributes: { verb: 'get', path: '/apis' } },
        controllerToken,
      );
      assert.equal(nonResource.json.status.allowed, true);
      assertStatus(await access({}), 422, 'Invalid');
    });
    test('SelfSubjectRulesReview lists the controller’s rules; the admin’s are everything', async () => {
      const rules = await post(
        local,
        '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
        { spec: { namespace: 'nodeherd' } },
        controllerToken,
      );
      assert.equal(rules.status, 201, rules.text);
      assert.equal(rules.json.status.incomplete, false);
      assert.ok(
        rules.json.status.resourceRules.some(
          (r: any) => r.apiGroups.includes('coordination.k8s.io') && r.verbs.includes('create'),
        ),
        'lease writes in nodeherd',
      );
      const elsewhere = await post(
        local,
        '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
        { spec: { namespace: 'default' } },
        controllerToken,
      );
      assert.equal(
        elsewhere.json.status.resourceRules.some(
          (r: any) => r.apiGroups.includes('coordination.k8s.io') && r.verbs.includes('create'),
        ),
        false,
      );
      const admin = await post(local, '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
        spec: { namespace: 'default' },
      });
      assert.deepEqual(admin.json.status.resourceRules, [
        { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      ]);
    });
    test('SelfSubjectReview names the requester; nothing is stored', async () => {
      const res = await post(local, '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'SelfSubjectReview',
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.json.status.userInfo.username, 'nodeherd:admin');
      assert.ok(res.json.status.userInfo.groups.includes('system:masters'));
      const list = await raw(local, { path: '/apis/authentication.k8s.io/v1/selfsubjectreviews' });
      assert.equal(list.status, 405);
    });
  });
});

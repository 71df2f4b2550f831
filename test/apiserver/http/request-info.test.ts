import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRequestInfo } from '../../../src/apiserver/http/request-info.ts';

const q = new URLSearchParams();

test('request info: namespaced, cluster-scoped, legacy watch and named-group URLs', () => {
  const cases: [string, string, Record<string, unknown>][] = [
    [
      'GET',
      '/api/v1/namespaces/default/pods',
      { verb: 'list', namespace: 'default', resource: 'pods', name: undefined },
    ],
    [
      'GET',
      '/api/v1/namespaces/default/pods/p1',
      { verb: 'get', namespace: 'default', resource: 'pods', name: 'p1' },
    ],
    [
      'POST',
      '/api/v1/namespaces/default/pods/p1/eviction',
      { verb: 'create', resource: 'pods', subresource: 'eviction' },
    ],
    [
      'GET',
      '/api/v1/watch/namespaces/default/pods',
      { verb: 'watch', namespace: 'default', resource: 'pods' },
    ],
    [
      'GET',
      '/api/v1/namespaces/kube-system',
      { verb: 'get', namespace: undefined, resource: 'namespaces', name: 'kube-system' },
    ],
    [
      'PUT',
      '/api/v1/namespaces/ns1/status',
      { verb: 'update', resource: 'namespaces', name: 'ns1', subresource: 'status' },
    ],
    [
      'PUT',
      '/api/v1/namespaces/ns1/finalize',
      { verb: 'update', resource: 'namespaces', name: 'ns1', subresource: 'finalize' },
    ],
    [
      'PATCH',
      '/apis/nodeherd.io/v1alpha1/nodeconfigpools/p/status',
      { verb: 'patch', group: 'nodeherd.io', resource: 'nodeconfigpools', name: 'p', subresource: 'status' },
    ],
    [
      'DELETE',
      '/apis/apps/v1/namespaces/d/daemonsets',
      { verb: 'deletecollection', group: 'apps', resource: 'daemonsets' },
    ],
  ];
  for (const [method, path, expected] of cases) {
    const info = parseRequestInfo(method, path, q);
    assert.equal(info.isResourceRequest, true, path);
    for (const [key, value] of Object.entries(expected)) {
      assert.equal((info as unknown as Record<string, unknown>)[key], value, `${method} ${path}: ${key}`);
    }
  }
});

test('request info: discovery paths are non-resource requests', () => {
  for (const path of ['/api', '/api/v1', '/apis', '/apis/apps', '/apis/apps/v1', '/version', '/openapi/v3']) {
    assert.equal(parseRequestInfo('GET', path, q).isResourceRequest, false, path);
  }
});

test('request info: ?watch=true turns a list into a watch', () => {
  const info = parseRequestInfo('GET', '/api/v1/nodes', new URLSearchParams('watch=true'));
  assert.equal(info.isResourceRequest && info.verb, 'watch');
});

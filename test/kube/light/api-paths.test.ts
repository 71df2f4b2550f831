import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resourcePath, withQuery } from '../../../src/kube/light/api-paths.ts';

test('core and grouped, cluster-scoped and namespaced paths', () => {
  assert.equal(resourcePath({ apiVersion: 'v1', resource: 'nodes' }), '/api/v1/nodes');
  assert.equal(
    resourcePath({ apiVersion: 'v1', resource: 'nodes', name: 'n1', subresource: 'status' }),
    '/api/v1/nodes/n1/status',
  );
  assert.equal(
    resourcePath({
      apiVersion: 'coordination.k8s.io/v1',
      resource: 'leases',
      namespace: 'kube-node-lease',
      name: 'n1',
    }),
    '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1',
  );
  assert.equal(
    resourcePath({ apiVersion: 'nodeherd.io/v1alpha1', resource: 'nodeconfigrevisions', name: 'pool-abc' }),
    '/apis/nodeherd.io/v1alpha1/nodeconfigrevisions/pool-abc',
  );
});

test('segments are escaped and path tricks refused', () => {
  assert.equal(
    resourcePath({ apiVersion: 'v1', resource: 'nodes', name: 'a/b?c' }),
    '/api/v1/nodes/a%2Fb%3Fc',
  );
  assert.throws(() => resourcePath({ apiVersion: 'v1', resource: 'nodes', name: '..' }));
  assert.throws(() => resourcePath({ apiVersion: 'v1', resource: 'nodes', name: '' }));
  assert.throws(() => resourcePath({ apiVersion: 'v1', resource: 'nodes', subresource: 'status' }));
});

test('query parameters are encoded and undefined ones left out', () => {
  assert.equal(withQuery('/api/v1/nodes'), '/api/v1/nodes');
  assert.equal(withQuery('/api/v1/nodes', { labelSelector: undefined }), '/api/v1/nodes');
  assert.equal(
    withQuery('/api/v1/nodes', { fieldSelector: 'metadata.name=n1', watch: true, timeoutSeconds: 30 }),
    '/api/v1/nodes?fieldSelector=metadata.name%3Dn1&watch=true&timeoutSeconds=30',
  );
  assert.equal(withQuery('/x?a=1', { b: 'two words' }), '/x?a=1&b=two+words');
});

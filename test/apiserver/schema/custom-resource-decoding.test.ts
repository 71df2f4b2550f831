import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeCustomResource } from '../../../src/apiserver/schema/custom-resource-decoding.ts';
import { validateCustomResource } from '../../../src/apiserver/schema/structural-validation.ts';
import { nodeConfigSchema } from './node-config-fixture.ts';

test('a user-written NodeConfig is pruned, cleaned of nulls and defaulted, then validates', () => {
  const body: Record<string, any> = {
    apiVersion: 'nodeherd.io/v1alpha1',
    kind: 'NodeConfig',
    metadata: { name: 'base', extra: 'x' },
    spec: {
      files: [{ path: '/etc/motd', mode: null, content: { inline: { data: 'hi' } }, colour: 'red' }],
      units: [{ name: 'app.service', enabled: null }],
      paused: null,
    },
  };
  assert.deepEqual(decodeCustomResource(body, nodeConfigSchema), ['metadata.extra', 'spec.files[0].colour']);
  assert.deepEqual(body, {
    apiVersion: 'nodeherd.io/v1alpha1',
    kind: 'NodeConfig',
    metadata: { name: 'base' },
    spec: {
      files: [
        {
          path: '/etc/motd',
          mode: 420,
          owner: 'root',
          content: { inline: { data: 'hi', encoding: 'plain' } },
        },
      ],
      units: [{ name: 'app.service', enabled: true, state: 'running' }],
      rollout: { maxUnavailable: 1 },
    },
  });
  assert.deepEqual(validateCustomResource(body, nodeConfigSchema), []);
});

test('without a schema only apiVersion, kind and metadata remain', () => {
  const body = { apiVersion: 'x.io/v1', kind: 'X', metadata: { name: 'a' }, spec: { a: 1 } };
  assert.deepEqual(decodeCustomResource(body, undefined), ['spec']);
  assert.deepEqual(body, { apiVersion: 'x.io/v1', kind: 'X', metadata: { name: 'a' } });
});

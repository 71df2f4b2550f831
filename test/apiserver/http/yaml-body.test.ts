// Request bodies in YAML mean what they mean to the real API server (go-yaml v2, YAML 1.1).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeObject } from '../../../src/apiserver/http/body.ts';

test('a YAML body is read as YAML 1.1: 0644 is octal, as kube-apiserver reads it', () => {
  const body = Buffer.from(
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: "1"\nmode: 0644\n',
  );
  const object = decodeObject(body, 'application/yaml');
  assert.equal(object.mode, 0o644);
  assert.equal(object.metadata.name, 'a');
});

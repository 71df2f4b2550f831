// A field's problem is reported once: the profile's validators say better what the CRD schema's
// generic checks say of the same field, so kubectl shows each bad field one time, not twice.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';

let local: LocalApiServer;
before(async () => {
  local = await startLocalApiServer();
});
after(async () => {
  await local.stop();
});

test('kubectl shows each invalid NodeConfig field once, with the validator’s message', async () => {
  const result = await local.kubectl(['apply', '-f', '-'], {
    input: [
      'apiVersion: nodeherd.io/v1alpha1',
      'kind: NodeConfig',
      'metadata: {name: bad}',
      'spec:',
      '  files:',
      '  - path: relative/path',
      '    content: x',
      '    mode: 99999',
      '',
    ].join('\n'),
  });
  assert.equal(result.code, 1);
  const lines = result.stderr.split('\n').filter((line) => line.startsWith('* '));
  assert.deepEqual(lines, [
    '* spec.files[0].path: Invalid value: "relative/path": must be an absolute path',
    '* spec.files[0].mode: Invalid value: 99999: must be between 0 and 4095',
    '* spec.files[0].content: Invalid value: "x": must be an object',
  ]);
  const get = await local.kubectl(['get', 'nodeconfig', 'bad']);
  assert.notEqual(get.code, 0, 'nothing was stored');
});

test('a NodeConfig the CRD’s own rules refuse too shows each field once, with the validator’s message', async () => {
  const result = await local.kubectl(['apply', '-f', '-'], {
    input: [
      'apiVersion: nodeherd.io/v1alpha1',
      'kind: NodeConfig',
      'metadata: {name: bad-rules}',
      'spec:',
      '  files:',
      '  - path: /proc/sys/kernel/panic',
      '    content: {inline: {data: "1"}}',
      '  - path: /etc/x.bin',
      '    content: {inline: {data: "not base64!", encoding: base64}}',
      '  units:',
      '  - {name: foo@.service, content: "[Service]", state: running}',
      '',
    ].join('\n'),
  });
  assert.equal(result.code, 1);
  const lines = result.stderr.split('\n').filter((line) => line.startsWith('* '));
  assert.deepEqual(lines, [
    '* spec.files[0].path: Forbidden: nodeherd does not write under /proc',
    '* spec.files[1].content.inline.data: Invalid value: "not base64!": must be valid base64 (RFC 4648, padded)',
    '* spec.units[0].state: Forbidden: a template unit cannot run; declare an instance such as name@x.service',
  ]);
});

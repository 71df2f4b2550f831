import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  assertDropInName,
  assertUnitName,
  dropInDirectory,
  dropInPath,
  unitFilePath,
} from '../../../src/agent/executors/unit-names.ts';

test('unit files and drop-ins live under /etc/systemd/system', () => {
  assert.equal(unitFilePath('kubelet.service'), '/etc/systemd/system/kubelet.service');
  assert.equal(dropInDirectory('kubelet.service'), '/etc/systemd/system/kubelet.service.d');
  assert.equal(
    dropInPath('kubelet.service', '10-nodeherd.conf'),
    '/etc/systemd/system/kubelet.service.d/10-nodeherd.conf',
  );
});

test('accepts the names systemd accepts', () => {
  for (const name of [
    'a.service',
    'getty@tty1.service',
    'var-lib-x.mount',
    'x\\x2dy.slice',
    'nodeherd-agent.timer',
  ]) {
    assert.doesNotThrow(() => assertUnitName(name), name);
  }
});

test('refuses names that would escape the directory or read as options', () => {
  for (const name of ['../x.service', 'a/b.service', '-x.service', 'noext', 'a.exe', '', 'a b.service']) {
    assert.throws(() => assertUnitName(name), /invalid systemd unit name/, name);
  }
  for (const name of ['../x.conf', 'x.txt', '.hidden.conf', '-x.conf', 'a/b.conf']) {
    assert.throws(() => assertDropInName(name), /invalid drop-in name/, name);
  }
});

// The command line a simulated systemd runs for a unit: ExecStart= resets, Environment= and
// EnvironmentFile= precedence, $VAR splitting versus ${VAR}; and the flags the simulated kubelet reads.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KUBELET_VENDOR_UNIT } from '../../src/sim/kubelet-systemd.ts';
import { flagValue, serviceDefinition, splitWords } from '../../src/sim/unit-command-line.ts';

const noFiles = async () => undefined;

test('the sample drop-in gives the simulated kubelet --config and --config-dir', async () => {
  const definition = `${KUBELET_VENDOR_UNIT}\n# 20-nodeherd.conf\n[Service]\nEnvironment="KUBELET_CONFIG_DIR_ARGS=--config-dir=/etc/kubernetes/kubelet.conf.d"\n`;
  const { command, type } = await serviceDefinition(definition, noFiles);
  assert.equal(type, 'simple');
  assert.equal(command?.executable, '/usr/bin/kubelet');
  assert.equal(flagValue(command!.args, 'config'), '/var/lib/kubelet/config.yaml');
  assert.equal(flagValue(command!.args, 'config-dir'), '/etc/kubernetes/kubelet.conf.d');
  assert.equal(flagValue(command!.args, 'kubeconfig'), '/etc/kubernetes/kubelet.conf');
});

test('a later drop-in that sets KUBELET_CONFIG_ARGS moves --config elsewhere', async () => {
  const definition = `${KUBELET_VENDOR_UNIT}\n# 10-config.conf\n[Service]\nEnvironment="KUBELET_CONFIG_ARGS=--config=/etc/kubernetes/kubelet/config.yaml"\n`;
  const { command } = await serviceDefinition(definition, noFiles);
  assert.equal(flagValue(command!.args, 'config'), '/etc/kubernetes/kubelet/config.yaml');
  assert.equal(flagValue(command!.args, 'config-dir'), undefined);
});

test('an empty ExecStart= resets it; the last one counts; prefixes are not part of the program', async () => {
  const definition =
    '[Service]\nExecStart=/usr/bin/old\n[Service]\nExecStart=\nExecStart=-/usr/local/bin/new --flag "two words"\n';
  const { command } = await serviceDefinition(definition, noFiles);
  assert.deepEqual(command, { executable: '/usr/local/bin/new', args: ['--flag', 'two words'] });
  assert.equal(
    (await serviceDefinition('[Service]\nExecStart=/a\nExecStart=\n', noFiles)).command,
    undefined,
  );
});

test(
  'EnvironmentFile= overrides Environment=; $VAR splits into words, $' + '{VAR} does not; unset is empty',
  async () => {
    const files: Record<string, string> = { '/etc/default/app': '# comment\nB="--b=1 --c=2"\n' };
    const definition = [
      '[Service]',
      'Type=exec',
      'Environment="A=--a=x" B=--ignored C=joined',
      'EnvironmentFile=/etc/default/app',
      'EnvironmentFile=-/etc/default/missing',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: systemd's syntax, not a template
      'ExecStart=/usr/bin/app $A $B --c=${C}x $UNSET',
    ].join('\n');
    const { command, type } = await serviceDefinition(definition, async (p) => files[p]);
    assert.equal(type, 'exec');
    assert.deepEqual(command?.args, ['--a=x', '--b=1', '--c=2', '--c=joinedx']);
    assert.equal(flagValue(command!.args, 'c'), 'joinedx', 'the last occurrence wins');
  },
);

test('a flag given as two words', () => {
  assert.equal(flagValue(['--config', '/c.yaml', '--v=2'], 'config'), '/c.yaml');
  assert.equal(flagValue(['--config-dir=/d'], 'config'), undefined);
  assert.deepEqual(splitWords(`a "b c" 'd e' f\\ g`), ['a', 'b c', 'd e', 'f g']);
});

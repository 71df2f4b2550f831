import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  daemonReloadArgs,
  parseShowOutput,
  showArgs,
  unitVerbArgs,
} from '../../../src/agent/executors/systemctl-commands.ts';

test('command lines never prompt and name one validated unit', () => {
  assert.deepEqual(daemonReloadArgs(), ['--no-ask-password', 'daemon-reload']);
  assert.deepEqual(unitVerbArgs('restart', 'kubelet.service'), [
    '--no-ask-password',
    'restart',
    'kubelet.service',
  ]);
  // enable/disable never reload the manager themselves: the plan's one daemon-reload does.
  assert.deepEqual(unitVerbArgs('enable', 'a.timer'), [
    '--no-ask-password',
    '--no-reload',
    'enable',
    'a.timer',
  ]);
  assert.deepEqual(unitVerbArgs('disable', 'a.timer'), [
    '--no-ask-password',
    '--no-reload',
    'disable',
    'a.timer',
  ]);
  assert.deepEqual(unitVerbArgs('restart', 'nodeherd-agent.service', { noBlock: true }), [
    '--no-ask-password',
    '--no-block',
    'restart',
    'nodeherd-agent.service',
  ]);
  assert.deepEqual(showArgs('kubelet.service'), [
    '--no-ask-password',
    'show',
    '--property=ActiveState,SubState,NRestarts,InvocationID,UnitFileState,ActiveEnterTimestampMonotonic',
    'kubelet.service',
  ]);
  assert.throws(() => unitVerbArgs('start', '--all'), /invalid systemd unit name/);
});

test('parses systemctl show output', () => {
  const output = [
    'ActiveState=active',
    'SubState=running',
    'NRestarts=2',
    'InvocationID=0123456789abcdef0123456789abcdef',
    'UnitFileState=enabled',
    'ActiveEnterTimestampMonotonic=61234567890',
    '',
  ].join('\n');
  assert.deepEqual(parseShowOutput(output), {
    activeState: 'active',
    subState: 'running',
    nRestarts: 2,
    invocationId: '0123456789abcdef0123456789abcdef',
    unitFileState: 'enabled',
    activeEnterMonotonicUs: 61234567890,
  });
});

test('a unit systemd does not know shows as inactive/dead with empty properties', () => {
  const output =
    'ActiveState=inactive\nSubState=dead\nNRestarts=0\nInvocationID=\nUnitFileState=\nActiveEnterTimestampMonotonic=0\n';
  assert.deepEqual(parseShowOutput(output), { activeState: 'inactive', subState: 'dead', nRestarts: 0 });
  assert.deepEqual(parseShowOutput(''), { activeState: 'unknown', subState: 'unknown' });
});

// recoveryBase: after an unfinished apply, the plan must redo whatever that apply may have touched.
// Each case plans from the recovery base to the target with the real plan() and checks the actions.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { recoveryBase } from '../../../src/agent/apply/recovery-base.ts';
import type { NodeConfigSpec, RenderedConfig } from '../../../src/api/types.ts';
import { plan } from '../../../src/plan/plan.ts';
import { rendered } from '../../support/nodeherd-objects.ts';

function ids(base: RenderedConfig | undefined, target: RenderedConfig): string[] {
  return plan(base ? { config: base } : undefined, { config: target }).actions.map((a) => a.id);
}

const unit = (name: string, extra: object = {}) => ({
  name,
  content: `[Service]\nExecStart=/bin/${name}\n`,
  ...extra,
});
const file = (path: string, data: string) => ({ path, content: { inline: { data } } });

function spec(parts: Partial<NodeConfigSpec>): RenderedConfig {
  return rendered({ files: [], units: [], ...parts });
}

describe('recoveryBase', () => {
  const last = spec({
    files: [file('/etc/a.conf', 'a1'), file('/etc/same.conf', 'same')],
    units: [unit('a.service', { filePaths: ['/etc/a.conf'] }), unit('stopped.service', { state: 'stopped' })],
    packages: [{ name: 'htop', version: '1' }],
  });

  it('is last-applied itself when nothing is unfinished', () => {
    assert.equal(recoveryBase(last, [], last), last);
    assert.equal(recoveryBase(undefined, [], last), undefined);
  });

  it('rewrites a file an unfinished apply changed, though the target equals last-applied, and restarts its unit', () => {
    const unfinished = spec({ ...last, files: [file('/etc/a.conf', 'a2'), file('/etc/same.conf', 'same')] });
    assert.deepEqual(ids(last, last), []);
    const actions = ids(recoveryBase(last, [unfinished], last), last);
    assert.ok(actions.includes('write-file:/etc/a.conf'));
    assert.ok(actions.includes('restart-unit:a.service'));
    assert.ok(!actions.includes('write-file:/etc/same.conf'), 'agreed items are left alone');
  });

  it('retires a unit and removes a file an unfinished apply added', () => {
    const unfinished = spec({
      ...last,
      files: [...last.files, file('/etc/new.conf', 'n')],
      units: [...last.units, unit('new.service')],
    });
    const actions = ids(recoveryBase(last, [unfinished], last), last);
    for (const id of [
      'stop-unit:new.service',
      'disable-unit:new.service',
      'remove-unit:new.service',
      'remove-file:/etc/new.conf',
    ])
      assert.ok(actions.includes(id), id);
  });

  it('writes back and starts a unit an unfinished apply removed', () => {
    const unfinished = spec({ ...last, units: [last.units.find((u) => u.name === 'stopped.service')!] });
    const actions = ids(recoveryBase(last, [unfinished], last), last);
    assert.ok(actions.includes('write-unit:a.service'));
    assert.ok(actions.includes('enable-unit:a.service'));
    assert.ok(
      actions.includes('restart-unit:a.service') || actions.includes('start-unit:a.service'),
      actions.join(' '),
    );
  });

  it('stops again a unit an unfinished apply started', () => {
    const unfinished = spec({
      ...last,
      units: [
        unit('a.service', { filePaths: ['/etc/a.conf'] }),
        unit('stopped.service', { state: 'running' }),
      ],
    });
    const actions = ids(recoveryBase(last, [unfinished], last), last);
    assert.ok(actions.includes('stop-unit:stopped.service'), actions.join(' '));
  });

  it('reinstalls the pinned version of a package an unfinished apply changed', () => {
    const unfinished = spec({ ...last, packages: [{ name: 'htop', version: '2' }] });
    const actions = ids(recoveryBase(last, [unfinished], last), last);
    assert.ok(actions.includes('install-package:htop'), actions.join(' '));
    const removed = spec({ ...last, packages: [{ name: 'htop', state: 'absent' }] });
    assert.ok(ids(recoveryBase(last, [removed], last), last).includes('install-package:htop'));
  });

  it('plans a third revision from the mix of last-applied and an unfinished one', () => {
    const unfinished = spec({
      ...last,
      files: [file('/etc/a.conf', 'a2'), file('/etc/same.conf', 'same'), file('/etc/u.conf', 'u')],
    });
    const target = spec({
      ...last,
      files: [file('/etc/a.conf', 'a1'), file('/etc/same.conf', 'same'), file('/etc/t.conf', 't')],
    });
    const actions = ids(recoveryBase(last, [unfinished], target), target);
    for (const id of ['write-file:/etc/a.conf', 'write-file:/etc/t.conf', 'remove-file:/etc/u.conf'])
      assert.ok(actions.includes(id), id);
    assert.ok(!actions.includes('write-file:/etc/same.conf'));
  });

  it('works without any last-applied revision', () => {
    const unfinished = spec({ files: [file('/etc/x.conf', 'x')], units: [unit('x.service')] });
    const target = spec({ files: [file('/etc/y.conf', 'y')] });
    const actions = ids(recoveryBase(undefined, [unfinished], target), target);
    for (const id of [
      'write-file:/etc/y.conf',
      'remove-file:/etc/x.conf',
      'stop-unit:x.service',
      'remove-unit:x.service',
    ])
      assert.ok(actions.includes(id), id);
  });
});

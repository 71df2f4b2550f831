// The simulated systemd that survives the agent's process: a new instance on the same log sees the
// units as the previous one left them; a torn last line is ignored.

import assert from 'node:assert/strict';
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DurableSimulatedSystemd } from '../../../src/agent/executors/durable-simulated-systemd.ts';

describe('DurableSimulatedSystemd', () => {
  const dirs: string[] = [];
  after(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  const A_UNIT = '[Service]\nExecStart=/bin/a\nExecReload=/bin/kill -HUP $MAINPID\n';
  const B_UNIT = '[Service]\nExecStart=/bin/b\n';
  const DROP_IN = '[Service]\nEnvironment=X=1\n';

  /** A wrapper on a new log, with a.service (a drop-in, enabled, started) and b.service written. */
  async function withUnits(): Promise<{ log: string; first: DurableSimulatedSystemd }> {
    const dir = await mkdtemp(join(tmpdir(), 'durable-systemd-'));
    dirs.push(dir);
    const log = join(dir, 'systemd.jsonl');
    const first = await DurableSimulatedSystemd.open(log);
    await first.writeUnit('a.service', A_UNIT);
    await first.writeDropIn('a.service', '10-x.conf', DROP_IN);
    await first.writeUnit('b.service', B_UNIT);
    await first.daemonReload();
    await first.enable('a.service');
    await first.start('a.service');
    return { log, first };
  }

  it('replays every successful change in a new instance', async () => {
    const { log, first } = await withUnits();
    await first.start('b.service');
    await first.restart('a.service');
    await first.stop('b.service');
    first.simulation.fail('start', 'c.service');
    await assert.rejects(first.start('c.service'));
    await appendFile(log, '{"op":"restart","args":["a.ser'); // killed mid-append

    const second = await DurableSimulatedSystemd.open(log, { durations: { restart: 5 } });
    const a = second.simulation.unit('a.service');
    assert.equal(a?.activeState, 'active');
    assert.equal(a?.enabled, true);
    assert.deepEqual(Object.keys(a?.dropIns ?? {}), ['10-x.conf']);
    assert.equal(second.simulation.restarts('a.service'), 1, 'the torn restart does not count');
    assert.equal(second.simulation.unit('b.service')?.activeState, 'inactive');
    assert.equal(second.simulation.needsDaemonReload('a.service'), false);
    const started = Date.now();
    await second.restart('a.service');
    assert.ok(Date.now() - started >= 4, 'durations apply after the replay');
    assert.equal((await DurableSimulatedSystemd.open(log)).simulation.restarts('a.service'), 2);
  });

  it('logs each change as one {op, args} line, and replays reload, disable and the removals', async () => {
    const { log, first } = await withUnits();
    await first.reload('a.service');
    await first.disable('a.service');
    await first.removeDropIn('a.service', '10-x.conf');
    await first.removeUnit('b.service');
    const lines = (await readFile(log, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(lines, [
      { op: 'writeUnit', args: ['a.service', A_UNIT] },
      { op: 'writeDropIn', args: ['a.service', '10-x.conf', DROP_IN] },
      { op: 'writeUnit', args: ['b.service', B_UNIT] },
      { op: 'daemonReload', args: [] },
      { op: 'enable', args: ['a.service'] },
      { op: 'start', args: ['a.service'] },
      { op: 'reload', args: ['a.service'] },
      { op: 'disable', args: ['a.service'] },
      { op: 'removeDropIn', args: ['a.service', '10-x.conf'] },
      { op: 'removeUnit', args: ['b.service'] },
    ]);

    const second = await DurableSimulatedSystemd.open(log);
    const a = second.simulation.unit('a.service');
    assert.equal(a?.activeState, 'active');
    assert.equal(a?.enabled, false, 'disabled after it was enabled');
    assert.deepEqual(a?.dropIns, {}, 'the drop-in was removed');
    assert.equal(second.simulation.unit('b.service')?.content, undefined, 'the unit file was removed');
    assert.deepEqual(
      second.simulation.calls.filter((c) => c.op === 'reload').map((c) => c.target),
      ['a.service'],
      'the reload was replayed',
    );
  });
});

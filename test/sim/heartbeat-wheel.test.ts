import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HeartbeatWheel } from '../../src/sim/heartbeat-wheel.ts';

function clock(start = 1_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

test('every task runs once per period, spread evenly over the slots', () => {
  const time = clock();
  const wheel = new HeartbeatWheel({ periodMs: 1_000, slotMs: 100, now: time.now });
  const runs = new Map<number, number[]>();
  for (let i = 0; i < 50; i++) wheel.add((now) => runs.set(i, [...(runs.get(i) ?? []), now]));
  const perTick: number[] = [];
  for (let tick = 0; tick < 20; tick++) {
    time.advance(100);
    const before = [...runs.values()].reduce((sum, r) => sum + r.length, 0);
    wheel.tick();
    perTick.push([...runs.values()].reduce((sum, r) => sum + r.length, 0) - before);
  }
  wheel.stop();
  // 50 tasks over 10 slots: 5 per tick, every tick; each task twice in two periods, 1 s apart.
  assert.deepEqual(perTick, Array(20).fill(5));
  for (const times of runs.values()) {
    assert.equal(times.length, 2);
    assert.equal(times[1]! - times[0]!, 1_000);
  }
});

test('a late tick catches up on missed slots without running any task twice', () => {
  const time = clock();
  const wheel = new HeartbeatWheel({ periodMs: 1_000, slotMs: 100, now: time.now });
  let runs = 0;
  for (let i = 0; i < 10; i++) wheel.add(() => runs++);
  time.advance(350);
  wheel.tick();
  assert.equal(runs, 3);
  time.advance(5_000); // the event loop was blocked for five periods
  wheel.tick();
  assert.equal(runs, 13, 'each task once, not five times');
  wheel.stop();
});

test('removed tasks stop running; new ones fill the emptiest slots; a throwing task spares the rest', () => {
  const time = clock();
  const wheel = new HeartbeatWheel({ periodMs: 400, slotMs: 100, now: time.now });
  const ran: string[] = [];
  const a = wheel.add(() => ran.push('a'));
  wheel.add(() => {
    throw new Error('boom');
  });
  const c = wheel.add(() => ran.push('c'));
  wheel.add(() => ran.push('d'));
  assert.deepEqual([a.slot, c.slot], [0, 2]);
  wheel.remove(a);
  const e = wheel.add(() => ran.push('e'));
  assert.equal(e.slot, 0, 'the slot a left');
  for (let i = 0; i < 4; i++) {
    time.advance(100);
    wheel.tick();
  }
  assert.deepEqual(ran.sort(), ['c', 'd', 'e']);
  assert.equal(wheel.size, 4);
  wheel.stop();
});

test("the timer is unref'd and stops when the last task leaves", async () => {
  const wheel = new HeartbeatWheel({ periodMs: 100, slotMs: 10 });
  let runs = 0;
  const member = wheel.add(() => runs++);
  const timer = (wheel as unknown as { timer: NodeJS.Timeout }).timer;
  assert.equal(timer.hasRef(), false);
  await new Promise((resolve) => setTimeout(resolve, 250));
  assert.ok(runs >= 2 && runs <= 3, `ran ${runs} times in 2.5 periods`);
  wheel.remove(member);
  assert.equal((wheel as unknown as { timer: NodeJS.Timeout | undefined }).timer, undefined);
});

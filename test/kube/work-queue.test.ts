import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runWorker, WorkQueue, type WorkQueueMetrics } from '../../src/kube/work-queue.ts';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('work queue', () => {
  test('a key added many times is processed once', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    q.add('a');
    assert.equal(q.length, 2);
    assert.equal(await q.get(), 'a');
    assert.equal(await q.get(), 'b');
    assert.equal(q.length, 0);
  });

  test('a key added while processed is handed out again after done, never to two workers at once', async () => {
    const q = new WorkQueue();
    q.add('a');
    const key = await q.get();
    q.add('a');
    assert.equal(q.length, 0, 'not queued while processing');
    let second: string | undefined;
    const waiting = q.get().then((k) => {
      second = k;
    });
    await tick(5);
    assert.equal(second, undefined);
    q.done(key!);
    await waiting;
    assert.equal(second, 'a');
  });

  test('addAfter delays; an earlier pending delay wins', async () => {
    const q = new WorkQueue();
    q.addAfter('late', 40);
    q.addAfter('soon', 10);
    q.addAfter('soon', 200);
    const started = performance.now();
    assert.equal(await q.get(), 'soon');
    assert.ok(performance.now() - started < 150);
    assert.equal(await q.get(), 'late');
  });

  test('addRateLimited backs off exponentially per key; forget resets', async () => {
    // The delays chosen, read on the queue's own clock: wall-clock gaps on a loaded machine are noise.
    const clock = 1_000;
    const q = new WorkQueue({ baseDelayMs: 10, now: () => clock });
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      q.addRateLimited('k');
      delays.push(q.dueAt('k')! - clock);
      const key = await q.get();
      assert.equal(key, 'k');
      assert.equal(q.dueAt('k'), undefined, 'no longer delayed once handed out');
      q.done(key!);
    }
    assert.equal(q.numRequeues('k'), 4);
    assert.deepEqual(delays, [10, 20, 40, 80]);
    q.forget('k');
    assert.equal(q.numRequeues('k'), 0);
  });

  test('the overall bucket limits a storm of retries', async () => {
    const q = new WorkQueue({ baseDelayMs: 1, qps: 100, burst: 2 });
    const at = performance.now();
    for (let i = 0; i < 4; i++) q.addRateLimited(`k${i}`);
    for (let i = 0; i < 4; i++) q.done((await q.get())!);
    assert.ok(performance.now() - at >= 15, 'two over the burst wait ~10 ms each');
  });

  test('pending: a key queued, being processed, added meanwhile or due again is pending; done work is not', async () => {
    const q = new WorkQueue();
    assert.equal(q.pending('a'), false);
    q.add('a');
    assert.equal(q.pending('a'), true, 'queued');
    assert.equal(await q.get(), 'a');
    assert.equal(q.pending('a'), true, 'being processed');
    q.done('a');
    assert.equal(q.pending('a'), false, 'processed');
    q.add('a');
    await q.get();
    q.add('a');
    q.done('a');
    assert.equal(q.pending('a'), true, 'added while processed: queued again');
    await q.get();
    q.done('a');
    q.addAfter('a', 20);
    assert.equal(q.pending('a'), true, 'due again after a delay');
    assert.equal(await q.get(), 'a');
    q.done('a');
    assert.equal(q.pending('a'), false);
    q.shutDown();
  });

  test('shutDown releases waiting workers', async () => {
    const q = new WorkQueue();
    const waiting = q.get();
    q.shutDown();
    assert.equal(await waiting, undefined);
    q.add('x');
    assert.equal(await q.get(), undefined);
  });

  test('reports adds, depth, retries, time queued and time worked as client-go does', async () => {
    let clock = 1_000;
    const seen = {
      adds: 0,
      retries: 0,
      depths: [] as number[],
      waited: [] as number[],
      worked: [] as number[],
    };
    const metrics: WorkQueueMetrics = {
      added: () => seen.adds++,
      retried: () => seen.retries++,
      depth: (keys) => seen.depths.push(keys),
      waited: (s) => seen.waited.push(s),
      worked: (s) => seen.worked.push(s),
    };
    const q = new WorkQueue({ metrics, now: () => clock, baseDelayMs: 1 });
    q.add('a');
    q.add('b');
    q.add('a'); // already queued: not an add
    assert.equal(seen.adds, 2);
    assert.deepEqual(seen.depths, [1, 2]);
    clock += 500;
    const key = await q.get();
    assert.equal(key, 'a');
    assert.deepEqual(seen.waited, [0.5]);
    q.add('a'); // added while processed: an add, queued again only at done
    assert.equal(seen.adds, 3);
    clock += 250;
    q.done('a');
    assert.deepEqual(seen.worked, [0.25]);
    assert.equal(seen.adds, 3, 'the re-queue at done is not a second add');
    assert.equal(q.length, 2);
    q.addRateLimited('c');
    assert.equal(seen.retries, 1);
    q.shutDown();
  });
});

describe('runWorker', () => {
  test('handles each key; a failure is reported and retried, a requeue comes back; it ends at shut-down', async () => {
    const q = new WorkQueue({ baseDelayMs: 1 });
    const seen: string[] = [];
    const failures: string[] = [];
    let failOnce = true;
    let againOnce = true;
    const worker = runWorker(
      q,
      async (key) => {
        seen.push(key);
        if (key === 'bad' && failOnce) {
          failOnce = false;
          throw new Error('boom');
        }
        if (key === 'again' && againOnce) {
          againOnce = false;
          return { requeueAfterMs: 1 };
        }
        return undefined;
      },
      (key, err) => failures.push(`${key}: ${(err as Error).message}`),
    );
    q.add('good');
    q.add('bad');
    q.add('again');
    for (let i = 0; i < 2000 && seen.length < 5; i++) await tick(5);
    assert.deepEqual([...seen].sort(), ['again', 'again', 'bad', 'bad', 'good']);
    assert.deepEqual(failures, ['bad: boom']);
    assert.equal(q.numRequeues('bad'), 0, 'forgotten once handled');
    q.shutDown();
    await worker;
  });
});

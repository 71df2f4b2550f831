// The list-watch loop's decisions, driven by a scripted source: what it does after each way a watch
// can end (resume, re-list, back off), and which resourceVersion it resumes from.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WatchEnd, WatchHandle, WatchQuery } from '../../src/kube/kube-watch.ts';
import { ListWatch, type ListWatchSource } from '../../src/kube/list-watch.ts';

interface Obj {
  metadata?: { name?: string; resourceVersion?: string };
}

type Step = Omit<WatchEnd, 'resourceVersion'> & { resourceVersion?: string };

/** A source whose watches end as scripted, at once; the last step repeats (blocked until aborted). */
function scripted(listRv: string[], ends: Step[]) {
  const calls: string[] = [];
  let lists = 0;
  let watches = 0;
  const source: ListWatchSource<Obj> = {
    async list() {
      const rv = listRv[Math.min(lists++, listRv.length - 1)];
      calls.push(`list→${rv}`);
      return { items: [], metadata: { resourceVersion: rv } };
    },
    watch(query: WatchQuery): WatchHandle {
      calls.push(`watch@${query.resourceVersion}`);
      const step = ends[watches++];
      if (step === undefined) {
        // Hangs like a healthy idle watch until aborted.
        let abort!: () => void;
        const done = new Promise<WatchEnd>((resolve) => {
          abort = () => resolve({ reason: 'aborted', events: 0, resourceVersion: query.resourceVersion });
        });
        return { done, resourceVersion: query.resourceVersion, abort };
      }
      const end: WatchEnd = { ...step, resourceVersion: step.resourceVersion ?? query.resourceVersion };
      return { done: Promise.resolve(end), resourceVersion: end.resourceVersion, abort() {} };
    },
  };
  return { source, calls };
}

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function loop(source: ListWatchSource<Obj>, initialMs = 60_000) {
  const errors: string[] = [];
  const lw = new ListWatch<Obj>(source, {
    onList() {},
    onEvent() {},
    onError: (error, during) => errors.push(`${during}: ${error.message}`),
    backoff: { initialMs, maxMs: initialMs },
    minHealthyWatchMs: 60_000,
  });
  return { lw, errors };
}

test('a watch that ends healthy resumes from the last resourceVersion it saw, bookmarks included, without a list', async () => {
  const { source, calls } = scripted(
    ['10'],
    [
      { reason: 'closed', events: 3, resourceVersion: '15' },
      { reason: 'closed', events: 1, resourceVersion: '20' },
    ],
  );
  const { lw } = loop(source);
  lw.start();
  await until(() => calls.length === 4);
  await lw.stop();
  assert.deepEqual(calls, ['list→10', 'watch@10', 'watch@15', 'watch@20']);
  assert.deepEqual([lw.stats().lists, lw.stats().resumes, lw.stats().failures], [1, 2, 0]);
});

test('410 Expired re-lists at once; a second 410 straight after the re-list backs off instead', async () => {
  const { source, calls } = scripted(
    ['10', '30', '40'],
    [
      { reason: 'expired', events: 0, error: new Error('too old') },
      { reason: 'expired', events: 0, error: new Error('too old again') },
    ],
  );
  const { lw, errors } = loop(source);
  lw.start();
  await until(() => calls.length === 4);
  // Re-listed at once after the first 410, then sleeps out the (1-minute) backoff after the second.
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(calls, ['list→10', 'watch@10', 'list→30', 'watch@30']);
  assert.deepEqual([lw.stats().relists, lw.stats().failures], [2, 1]);
  assert.deepEqual(errors, ['watch: too old again']);
  const stopping = Date.now();
  await lw.stop();
  assert.ok(Date.now() - stopping < 1000, 'stop wakes the backoff');
});

test('a failed or silent watch backs off and then resumes from where it was, without a list', async () => {
  const { source, calls } = scripted(
    ['10'],
    [
      { reason: 'failed', events: 0, error: new Error('connection reset') },
      { reason: 'inactive', events: 0 },
    ],
  );
  const errors: string[] = [];
  const lw = new ListWatch<Obj>(source, {
    onList() {},
    onEvent() {},
    onError: (error) => errors.push(error.message),
    backoff: { initialMs: 5, maxMs: 10 },
    inactivityTimeoutMs: 300,
  });
  lw.start();
  await until(() => calls.length === 4);
  await lw.stop();
  assert.deepEqual(calls, ['list→10', 'watch@10', 'watch@10', 'watch@10']);
  assert.deepEqual(errors, ['connection reset', 'watch silent for 300 ms, connection dropped']);
  assert.deepEqual([lw.stats().failures, lw.stats().inactive, lw.stats().lists], [2, 1, 1]);
});

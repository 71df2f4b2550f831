import assert from 'node:assert/strict';
import { appendFile, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { ApplyJournal, parseJournal } from '../../../src/agent/state/apply-journal.ts';

let stateDir: string;
const actions = [
  'file:/etc/a',
  'unit:kubelet.service:write',
  'daemon-reload',
  'unit:kubelet.service:restart',
];

beforeEach(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'nodeherd-journal-'));
});

afterEach(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

test('a fresh journal starts empty and records completed actions in order', async () => {
  const journal = new ApplyJournal(stateDir);
  assert.deepEqual(await journal.beginJournal('h1', 'workers-h1', actions), {
    resumed: false,
    completed: new Set(),
  });
  await journal.markDone('file:/etc/a');
  await journal.markDone('daemon-reload');
  await journal.markDone('daemon-reload'); // twice is harmless
  assert.deepEqual(journal.completed(), new Set(['file:/etc/a', 'daemon-reload']));
  assert.equal((await stat(journal.path)).mode & 0o7777, 0o600);
  const lines = (await readFile(journal.path, 'utf8')).trimEnd().split('\n');
  assert.equal(lines.length, 3, 'one header line and one line per distinct completed action');
  await journal.close();
});

test('after a restart the same target resumes with its completed actions', async () => {
  const first = new ApplyJournal(stateDir);
  await first.beginJournal('h1', 'workers-h1', actions);
  await first.markDone('file:/etc/a');
  await first.markDone('unit:kubelet.service:write');
  // no close(): the process "dies" here with the file still open

  const second = new ApplyJournal(stateDir);
  const loaded = await second.load();
  assert.equal(loaded?.revisionHash, 'h1');
  assert.deepEqual(loaded?.completed, ['file:/etc/a', 'unit:kubelet.service:write']);
  const start = await second.beginJournal('h1', 'workers-h1', actions);
  assert.deepEqual(start, {
    resumed: true,
    completed: new Set(['file:/etc/a', 'unit:kubelet.service:write']),
  });
  assert.equal(second.snapshot()?.startedAt, loaded?.startedAt, 'the original start time is kept');
  await second.markDone('daemon-reload');
  assert.deepEqual((await new ApplyJournal(stateDir).load())?.completed, [
    'file:/etc/a',
    'unit:kubelet.service:write',
    'daemon-reload',
  ]);
  await second.close();
  await first.close();
});

test('a journal for another target is discarded: the caller re-plans from last-applied', async () => {
  const first = new ApplyJournal(stateDir);
  await first.beginJournal('h1', 'workers-h1', actions);
  await first.markDone('file:/etc/a');
  await first.close();

  const second = new ApplyJournal(stateDir);
  const start = await second.beginJournal('h2', 'workers-h2', ['file:/etc/b']);
  assert.deepEqual(start, { resumed: false, completed: new Set() });
  const loaded = await new ApplyJournal(stateDir).load();
  assert.deepEqual([loaded?.revisionHash, loaded?.actionIds, loaded?.completed], ['h2', ['file:/etc/b'], []]);
  await second.close();
});

test('the same target with a different action list starts over rather than skip the wrong actions', async () => {
  const first = new ApplyJournal(stateDir);
  await first.beginJournal('h1', 'workers-h1', actions);
  await first.markDone('file:/etc/a');
  await first.close();
  const second = new ApplyJournal(stateDir);
  const start = await second.beginJournal('h1', 'workers-h1', ['file:/etc/a', 'file:/etc/c']);
  assert.equal(start.resumed, false);
  assert.deepEqual(start.completed, new Set());
  await second.close();
});

test('finish deletes the journal; a later load finds none', async () => {
  const journal = new ApplyJournal(stateDir);
  await journal.beginJournal('h1', 'workers-h1', actions);
  for (const id of actions) await journal.markDone(id);
  await journal.finish();
  assert.equal(await new ApplyJournal(stateDir).load(), undefined);
  assert.deepEqual(await readdir(stateDir), []);
  assert.deepEqual(journal.completed(), new Set());
  await journal.finish(); // idempotent
});

test('a torn last line is ignored, cut off on load, and appends continue cleanly after it', async () => {
  const journal = new ApplyJournal(stateDir);
  await journal.beginJournal('h1', 'workers-h1', actions);
  await journal.markDone('file:/etc/a');
  await journal.close();
  const intact = await stat(journal.path);
  await appendFile(journal.path, '{"done":"unit:kubelet.se'); // power lost mid-append

  const resumed = new ApplyJournal(stateDir);
  assert.deepEqual((await resumed.load())?.completed, ['file:/etc/a']);
  assert.equal((await stat(journal.path)).size, intact.size, 'the torn tail was truncated');
  await resumed.beginJournal('h1', 'workers-h1', actions);
  await resumed.markDone('unit:kubelet.service:write');
  await resumed.close();
  assert.deepEqual((await new ApplyJournal(stateDir).load())?.completed, [
    'file:/etc/a',
    'unit:kubelet.service:write',
  ]);
});

test('a torn multi-byte character in the tail does not shift the cut', async () => {
  const journal = new ApplyJournal(stateDir);
  await journal.beginJournal('h1', 'workers-h1', ['file:/etc/ü', 'file:/etc/é']);
  await journal.markDone('file:/etc/ü');
  await journal.close();
  const intact = await readFile(journal.path);
  const torn = Buffer.concat([intact, Buffer.from('{"done":"file:/etc/é"}').subarray(0, 19)]); // splits 'é'
  await writeFile(journal.path, torn);
  const parsed = parseJournal(torn);
  assert.equal(parsed.validLength, intact.length);
  assert.deepEqual(parsed.snapshot?.completed, ['file:/etc/ü']);
});

test('a journal without a whole header counts as absent and is replaced by the next begin', async () => {
  await writeFile(join(stateDir, 'apply-journal.jsonl'), '{"journalVersion":1,"revisionHash":"h1"');
  const journal = new ApplyJournal(stateDir);
  assert.equal(await journal.load(), undefined);
  assert.equal((await journal.beginJournal('h1', 'workers-h1', actions)).resumed, false);
  await journal.close();
});

test('lines for unknown ids are not trusted', () => {
  const header = JSON.stringify({
    journalVersion: 1,
    revisionHash: 'h',
    revisionName: 'p-h',
    startedAt: 't',
    actionIds: ['a', 'b'],
  });
  const text = `${header}\n{"done":"zzz"}\nnot json\n{"done":"b"}\n{"done":"b"}\n`;
  assert.deepEqual(parseJournal(Buffer.from(text)).snapshot?.completed, ['b']);
});

test('misuse is an error', async () => {
  const journal = new ApplyJournal(stateDir);
  await assert.rejects(journal.markDone('file:/etc/a'), /no journal is open/);
  await assert.rejects(journal.beginJournal('h', 'p-h', ['a', 'a']), /unique/);
  await journal.beginJournal('h1', 'workers-h1', actions);
  await assert.rejects(journal.markDone('not-planned'), /not in this journal/);
  await journal.close();
});

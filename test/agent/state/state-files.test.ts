// The agent's state files all change the same way: the directory made private (0700), another
// process's leftover temporary file of the same name removed, the file written atomically 0600; and
// deleted without complaint when it is already gone. The apply journal's header and the small JSON
// records (here the restart marker and the failure record) on real files in a temporary directory.

import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { FailureStore } from '../../../src/agent/apply/failure-record.ts';
import { RestartMarkerStore } from '../../../src/agent/apply/restart-marker.ts';
import { ApplyJournal } from '../../../src/agent/state/apply-journal.ts';

let base: string;
let stateDir: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'nodeherd-state-files-'));
  stateDir = join(base, 'state'); // not there yet: the first write makes it
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

/** A temporary file another (dead) process's atomic write of `name` left behind. */
async function leaveStaleTemporary(name: string): Promise<string> {
  await mkdir(stateDir, { recursive: true, mode: 0o755 });
  const leftover = `.${name}.999999.deadbeef0000.tmp`;
  await writeFile(join(stateDir, leftover), 'half');
  return leftover;
}

async function assertPrivate(path: string): Promise<void> {
  assert.equal((await stat(stateDir)).mode & 0o7777, 0o700, 'the state directory is private');
  assert.equal((await stat(path)).mode & 0o7777, 0o600, `${path} is 0600`);
}

test("the journal's header: stale temporary removed, written 0600 in a 0700 directory; finish twice is fine", async () => {
  const leftover = await leaveStaleTemporary('apply-journal.jsonl');
  const journal = new ApplyJournal(stateDir);
  await journal.beginJournal('h1', 'workers-h1', ['a', 'b']);
  await assertPrivate(journal.path);
  assert.deepEqual(await readdir(stateDir), ['apply-journal.jsonl'], `${leftover} is gone`);
  const header = JSON.parse((await readFile(journal.path, 'utf8')).split('\n')[0]!) as Record<
    string,
    unknown
  >;
  assert.deepEqual([header.journalVersion, header.revisionHash, header.actionIds], [1, 'h1', ['a', 'b']]);
  await journal.finish();
  await journal.finish();
  assert.deepEqual(await readdir(stateDir), []);
});

test('a JSON record: stale temporary removed, written 0600, read back, cleared, cleared again', async () => {
  const leftover = await leaveStaleTemporary('restart-requested.json');
  const markers = new RestartMarkerStore(stateDir);
  const marker = {
    revisionHash: 'h1',
    actionId: 'reboot',
    kind: 'reboot' as const,
    bootId: 'b1',
    requestedAt: 5,
  };
  await markers.write(marker);
  await assertPrivate(join(stateDir, 'restart-requested.json'));
  assert.deepEqual(await readdir(stateDir), ['restart-requested.json'], `${leftover} is gone`);
  assert.deepEqual(await markers.read(), marker);
  await markers.clear();
  await markers.clear();
  assert.equal(await markers.read(), undefined);
  assert.deepEqual(await readdir(stateDir), []);
});

test('a record that is not what its validator wants reads as absent', async () => {
  const failures = new FailureStore(stateDir);
  const record = {
    revisionName: 'w-h1',
    revisionHash: 'h1',
    reason: 'ActionFailed',
    failedAt: 1,
    attempts: 2,
    rollback: 'done' as const,
  };
  await failures.write(record);
  assert.deepEqual(await new FailureStore(stateDir).load(), record);
  await writeFile(join(stateDir, 'last-failure.json'), JSON.stringify({ ...record, rollback: 'maybe' }));
  assert.equal(await new FailureStore(stateDir).load(), undefined, 'an unknown rollback state');
  await writeFile(join(stateDir, 'last-failure.json'), JSON.stringify({ ...record, attempts: '2' }));
  assert.equal(await new FailureStore(stateDir).load(), undefined, 'attempts as text');
  await writeFile(
    join(stateDir, 'restart-requested.json'),
    '{"revisionHash":"h1","actionId":"x","kind":"halt","bootId":"b","requestedAt":1}',
  );
  assert.equal(await new RestartMarkerStore(stateDir).read(), undefined, 'an unknown restart kind');
});

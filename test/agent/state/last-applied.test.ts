import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { CorruptStateError, LastAppliedStore } from '../../../src/agent/state/last-applied.ts';

let base: string;
let stateDir: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'nodeherd-state-'));
  stateDir = join(base, 'var/lib/nodeherd');
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const spec = { files: [{ path: '/etc/a', mode: 420, content: { data: 'x' } }], units: [] };

test('nothing applied yet reads as undefined', async () => {
  assert.equal(await new LastAppliedStore(stateDir).read(), undefined);
});

test('write then read round-trips the revision and its opaque spec', async () => {
  const store = new LastAppliedStore(stateDir);
  const written = await store.write({ revisionName: 'workers-abc123', revisionHash: 'abc123', spec });
  assert.match(written.appliedAt, /^\d{4}-\d\d-\d\dT/);
  assert.deepEqual(await new LastAppliedStore(stateDir).read(), {
    revisionName: 'workers-abc123',
    revisionHash: 'abc123',
    appliedAt: written.appliedAt,
    spec,
  });
});

test('the file is 0600 in a 0700 directory, with no temporary file left', async () => {
  const store = new LastAppliedStore(stateDir);
  await store.write({ revisionName: 'p-1', revisionHash: '1', spec, appliedAt: '2026-01-01T00:00:00.000Z' });
  await store.write({ revisionName: 'p-2', revisionHash: '2', spec, appliedAt: '2026-01-02T00:00:00.000Z' });
  assert.equal((await stat(store.path)).mode & 0o7777, 0o600);
  assert.equal((await stat(stateDir)).mode & 0o7777, 0o700);
  assert.deepEqual(await readdir(stateDir), ['last-applied.json']);
  assert.equal((await store.read())?.revisionHash, '2');
});

test("another process's leftover temporary file is cleaned up on the next write", async () => {
  const store = new LastAppliedStore(stateDir);
  await store.write({ revisionName: 'p-1', revisionHash: '1', spec });
  const leftover = join(stateDir, '.last-applied.json.999999.deadbeef0000.tmp');
  await writeFile(leftover, '{"half":');
  await store.write({ revisionName: 'p-2', revisionHash: '2', spec });
  assert.deepEqual(await readdir(stateDir), ['last-applied.json']);
});

test('a file that does not parse is reported, not silently forgotten', async () => {
  const store = new LastAppliedStore(stateDir);
  await store.write({ revisionName: 'p-1', revisionHash: '1', spec });
  await writeFile(store.path, '{"formatVersion":1,"revisionName":');
  await assert.rejects(store.read(), CorruptStateError);
  await writeFile(store.path, '{"formatVersion":99}');
  await assert.rejects(store.read(), /unknown format version 99/);
  await writeFile(store.path, '{"formatVersion":1,"revisionName":"a","revisionHash":7,"appliedAt":"x"}');
  await assert.rejects(store.read(), /revisionHash is not a string/);
});

test('the stored JSON says what it is', async () => {
  const store = new LastAppliedStore(stateDir);
  await store.write({ revisionName: 'p-1', revisionHash: '1', spec: null, appliedAt: 't' });
  assert.deepEqual(JSON.parse(await readFile(store.path, 'utf8')), {
    formatVersion: 1,
    revisionName: 'p-1',
    revisionHash: '1',
    appliedAt: 't',
    spec: null,
  });
});

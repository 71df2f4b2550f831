import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { writeFileAtomic, writeFileAtomicSync } from '../../src/util/atomic-write.ts';

const root = mkdtempSync(join(tmpdir(), 'nodeherd-atomic-'));
after(() => rmSync(root, { recursive: true, force: true }));

function freshDir(name: string): string {
  const dir = join(root, name);
  rmSync(dir, { recursive: true, force: true });
  return mkdtempSync(`${dir}-`);
}

function permissions(path: string): number {
  return statSync(path).mode & 0o7777;
}

test('sync variant writes the content and leaves no temporary file behind', () => {
  const dir = freshDir('sync');
  const path = join(dir, 'config.yaml');
  writeFileAtomicSync(path, 'first\n');
  assert.equal(readFileSync(path, 'utf8'), 'first\n');
  writeFileAtomicSync(path, new Uint8Array([0x61, 0x0a]));
  assert.equal(readFileSync(path, 'utf8'), 'a\n');
  assert.deepEqual(readdirSync(dir), ['config.yaml']);
});

test('async variant writes the content and leaves no temporary file behind', async () => {
  const dir = freshDir('async');
  const path = join(dir, 'config.yaml');
  await writeFileAtomic(path, 'first\n');
  await writeFileAtomic(path, 'second\n');
  assert.equal(readFileSync(path, 'utf8'), 'second\n');
  assert.deepEqual(readdirSync(dir), ['config.yaml']);
});

test('mode defaults to 0600 and is applied exactly, regardless of the umask', async () => {
  const dir = freshDir('mode');
  const previousUmask = process.umask(0o077);
  try {
    writeFileAtomicSync(join(dir, 'secret'), 'x');
    assert.equal(permissions(join(dir, 'secret')), 0o600);
    // The umask would strip group/other bits from open(2); the explicit chmod must restore them.
    writeFileAtomicSync(join(dir, 'script'), '#!/bin/sh\n', { mode: 0o755 });
    assert.equal(permissions(join(dir, 'script')), 0o755);
    await writeFileAtomic(join(dir, 'public'), 'x', { mode: 0o644 });
    assert.equal(permissions(join(dir, 'public')), 0o644);
    // Replacing a public file with a private one tightens it.
    writeFileAtomicSync(join(dir, 'public'), 'y', { mode: 0o600 });
    assert.equal(permissions(join(dir, 'public')), 0o600);
  } finally {
    process.umask(previousUmask);
  }
});

test('uid and gid are set on the file', { skip: process.getuid === undefined }, async () => {
  const dir = freshDir('owner');
  const isRoot = process.getuid?.() === 0;
  // Root can give the file away; anyone else can only "change" it to their own ids.
  const uid = isRoot ? 4321 : (process.getuid?.() ?? 0);
  const gid = isRoot ? 4322 : (process.getgid?.() ?? 0);
  writeFileAtomicSync(join(dir, 'a'), 'x', { uid, gid });
  await writeFileAtomic(join(dir, 'b'), 'x', { uid, gid });
  for (const name of ['a', 'b']) {
    const stat = statSync(join(dir, name));
    assert.equal(stat.uid, uid);
    assert.equal(stat.gid, gid);
  }
});

test('a failed write leaves the target untouched and removes its temporary file', async () => {
  const dir = freshDir('failure');
  const path = join(dir, 'file');
  writeFileSync(path, 'original');
  // Renaming a file over a non-empty directory fails after the temporary file was written.
  const blocked = join(dir, 'blocked');
  mkdirSync(blocked);
  writeFileSync(join(blocked, 'child'), 'x');
  assert.throws(() => writeFileAtomicSync(blocked, 'new'));
  await assert.rejects(writeFileAtomic(blocked, 'new'));
  assert.throws(() => writeFileAtomicSync(join(dir, 'missing-dir', 'file'), 'new'), { code: 'ENOENT' });
  assert.equal(readFileSync(path, 'utf8'), 'original');
  assert.deepEqual(readdirSync(dir).sort(), ['blocked', 'file']);
  assert.ok(existsSync(join(blocked, 'child')));
});

// Each payload is one byte value repeated; a reader that sees a different length or mixed bytes has
// observed a torn (partial or interleaved) file.
const PAYLOAD_BYTES = 512 * 1024;

async function startWriters(
  path: string,
  writers: number,
  writesEach: number,
  atomic: boolean,
): Promise<{ done: Int32Array; finished: Promise<void> }> {
  const doneBuffer = new SharedArrayBuffer(4);
  const moduleUrl = new URL('../../src/util/atomic-write.ts', import.meta.url).href;
  const code = `
    import { workerData } from 'node:worker_threads';
    import { writeFileSync } from 'node:fs';
    const { writeFileAtomicSync } = await import(${JSON.stringify(moduleUrl)});
    const done = new Int32Array(workerData.done);
    for (let i = 0; i < workerData.writes; i++) {
      const payload = Buffer.alloc(${PAYLOAD_BYTES}, (workerData.id * 31 + i) % 251 + 1);
      if (workerData.atomic) writeFileAtomicSync(workerData.path, payload, { mode: 0o644 });
      else writeFileSync(workerData.path, payload);
    }
    Atomics.add(done, 0, 1);
  `;
  const exits: Promise<void>[] = [];
  for (let id = 0; id < writers; id++) {
    const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`), {
      workerData: { id, path, writes: writesEach, atomic, done: doneBuffer },
    });
    exits.push(
      new Promise((resolve, reject) => {
        worker.once('error', reject);
        worker.once('exit', (exitCode) =>
          exitCode === 0 ? resolve() : reject(new Error(`writer exited with ${exitCode}`)),
        );
      }),
    );
  }
  return { done: new Int32Array(doneBuffer), finished: Promise.all(exits).then(() => {}) };
}

// Reads in a tight synchronous loop while the writer threads run; returns how many reads were torn.
function readUntilWritersFinish(
  path: string,
  done: Int32Array,
  writers: number,
): { reads: number; torn: number } {
  let reads = 0;
  let torn = 0;
  while (Atomics.load(done, 0) < writers) {
    const content = readFileSync(path);
    reads++;
    const first = content[0];
    if (content.length !== PAYLOAD_BYTES || content.some((byte) => byte !== first)) torn++;
  }
  return { reads, torn };
}

test('concurrent atomic writers never let a reader see a partial file', async () => {
  const dir = freshDir('concurrent');
  const path = join(dir, 'shared');
  writeFileAtomicSync(path, Buffer.alloc(PAYLOAD_BYTES, 0xff));
  const { done, finished } = await startWriters(path, 3, 150, true);
  const { reads, torn } = readUntilWritersFinish(path, done, 3);
  await finished;
  // Enough reads to have overlapped the writers; how many a loaded machine manages is not the point.
  assert.ok(reads >= 10, `reader only managed ${reads} reads`);
  assert.equal(torn, 0, `${torn} of ${reads} reads saw a partial file`);
  assert.deepEqual(readdirSync(dir), ['shared']);
});

test('the torn-read detector does catch plain, non-atomic writes', async () => {
  const dir = freshDir('control');
  const path = join(dir, 'shared');
  writeFileSync(path, Buffer.alloc(PAYLOAD_BYTES, 0xff));
  const { done, finished } = await startWriters(path, 2, 400, false);
  const { torn } = readUntilWritersFinish(path, done, 2);
  await finished;
  assert.ok(torn > 0, 'expected truncate-then-write to expose partial files to the reader');
});

test('setuid and setgid bits survive a write that also sets the owner', () => {
  const dir = mkdtempSync(join(tmpdir(), 'atomic-suid-'));
  try {
    const path = join(dir, 'tool');
    writeFileAtomicSync(path, 'x', { mode: 0o6755, uid: 0, gid: 0 });
    assert.equal(statSync(path).mode & 0o7777, 0o6755);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// A group commit that fails (here: the WAL hits a file-size limit, as on a full disk) must not be
// acknowledged, must stop the store from serving state the disk does not hold, and must lose nothing
// that was acknowledged before it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SqliteStore } from '../../../src/apiserver/storage/sqlite-store.ts';

const writerScript = fileURLToPath(new URL('./fixtures/writer-until-disk-full.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'nodeherd-commit-failure-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the writer with files limited to 1 MB; returns its output lines. */
function runLimited(path: string): Promise<any[]> {
  const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
  const child = spawn(
    '/bin/sh',
    ['-c', `ulimit -f 2000 && exec ${quote(process.execPath)} ${quote(writerScript)} ${quote(path)}`],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) =>
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`writer exited with ${code}: ${stderr}`));
      else
        resolve(
          stdout
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line)),
        );
    }),
  );
}

test('a failed group commit acknowledges nothing of its group, fails the store, and keeps every earlier ack', async () => {
  const path = join(dir, 'state.db');
  const lines = await runLimited(path);
  const outcome = lines.at(-1);
  assert.equal(outcome.neverFailed, undefined, 'the file-size limit made a commit fail');
  assert.equal(outcome.failed, true, `whenDurable rejected with StoreFailedError: ${outcome.message}`);
  assert.equal(outcome.refused, true, 'the failed store refuses reads');
  assert.deepEqual(outcome.backgroundErrors, ['committing a group of writes']);
  const acknowledged = lines.slice(0, -1).map((line) => line.acknowledged as number);
  assert.ok(acknowledged.length >= 10);

  const store = SqliteStore.open(path);
  try {
    const revisions = new Set(store.list('/test/things/').items.map((item) => item.revision));
    for (const revision of acknowledged) assert.ok(revisions.has(revision), `acknowledged ${revision} lost`);
    for (const revision of outcome.lost) assert.equal(revisions.has(revision), false, `${revision} survived`);
    assert.equal(store.currentRevision(), Math.max(...acknowledged));
    const next = store.create('/test/things//after', {});
    assert.equal(next.revision, Math.max(...acknowledged) + 1, 'revisions continue without a gap');
  } finally {
    store.close();
  }
});

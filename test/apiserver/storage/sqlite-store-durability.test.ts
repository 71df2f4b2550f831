import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SqliteStore } from '../../../src/apiserver/storage/sqlite-store.ts';

interface Acknowledged {
  op: 'create' | 'update' | 'delete';
  key: string;
  revision: number;
  seq: number;
}

const writerScript = fileURLToPath(new URL('./fixtures/acknowledged-writer.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'nodeherd-store-durability-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the writer until it has acknowledged `count` writes, kills it with SIGKILL, returns the acks. */
async function acknowledgedBeforeKill(
  path: string,
  count: number,
  writerArgs: string[] = [],
): Promise<Acknowledged[]> {
  const child = spawn(process.execPath, [writerScript, path, ...writerArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on('exit', (_code, signal) => resolve(signal)),
  );
  let killedAt = 0;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    if (killedAt === 0 && stdout.split('\n').length > count) {
      killedAt = stdout.split('\n').length;
      child.kill('SIGKILL');
    }
  });
  // Only a guard against a writer that hangs: 2,000 fsynced commits took over 8 s on a loaded CI machine.
  const timeout = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const signal = await exited;
  clearTimeout(timeout);
  assert.equal(signal, 'SIGKILL', `writer ended on its own: ${stderr}`);
  assert.ok(killedAt > 0, `writer was killed by the timeout, not mid-stream: ${stderr}`);
  // A line cut by the kill has no newline: it was never fully acknowledged.
  return stdout
    .split('\n')
    .slice(0, -1)
    .map((line) => JSON.parse(line) as Acknowledged);
}

for (const mode of ['one commit per write', 'group commit'] as const) {
  test(`every acknowledged write survives SIGKILL of the writing process (${mode})`, async () => {
    const path = join(dir, `state-${mode.replaceAll(' ', '-')}.db`);
    const acks = await acknowledgedBeforeKill(path, 2000, mode === 'group commit' ? ['--group-commit'] : []);
    await checkAcknowledged(path, acks);
  });
}

async function checkAcknowledged(path: string, acks: Acknowledged[]): Promise<void> {
  assert.ok(acks.length >= 2000, `only ${acks.length} writes acknowledged`);

  const store = SqliteStore.open(path);
  try {
    const logged = new Map(store.eventsSince('', 0).map((event) => [event.revision, event]));
    const types = { create: 'ADDED', update: 'MODIFIED', delete: 'DELETED' } as const;
    const lastAck = new Map<string, Acknowledged>();
    for (const ack of acks) {
      const event = logged.get(ack.revision);
      assert.ok(event, `acknowledged ${ack.op} of ${ack.key} at revision ${ack.revision} is missing`);
      assert.equal(event.key, ack.key);
      assert.equal(event.type, types[ack.op]);
      assert.equal(event.object.seq, ack.seq);
      assert.equal(event.object.metadata.resourceVersion, String(ack.revision));
      lastAck.set(ack.key, ack);
    }
    const newestLogged = new Map<string, number>();
    for (const event of logged.values()) newestLogged.set(event.key, event.revision);
    for (const [key, ack] of lastAck) {
      // A write that committed but was killed before its line was printed may follow the last ack.
      const newest = newestLogged.get(key)!;
      assert.ok(newest >= ack.revision, `${key} lost its state from ${ack.revision}`);
      const deleted = logged.get(newest)!.type === 'DELETED';
      assert.equal(store.get(key)?.revision, deleted ? undefined : newest, `${key} reads its newest state`);
    }
    const newest = Math.max(...acks.map((a) => a.revision));
    assert.ok(store.currentRevision() >= newest);
    const next = store.create('/test/after-restart', {});
    assert.equal(next.revision, store.currentRevision());
    assert.ok(next.revision > newest, 'the revision counter continues after the crash');
  } finally {
    store.close();
  }
}

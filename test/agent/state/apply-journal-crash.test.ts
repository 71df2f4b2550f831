// kill -9 at random points while the journal and last-applied are written: every time, both still
// load, the completed actions are a prefix of the planned order, and nothing the child reported as
// done is lost. The same state directory survives all the kills, as on a node that keeps crashing.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApplyJournal } from '../../../src/agent/state/apply-journal.ts';
import { LastAppliedStore } from '../../../src/agent/state/last-applied.ts';

const CHILD = join(import.meta.dirname, 'journal-crash-child.ts');
const IDS = Array.from({ length: 40 }, (_, i) => `action-${i}`);
const TRIALS = 30;
/**
 * Kills continue past TRIALS until every interesting case happened (a complete apply, a kill mid-apply,
 * a resumed apply): on a loaded machine the 0–60 ms a child lives may be too short to finish any
 * revision in 30 trials. Work done survives the kills, so more trials always get there.
 */
const MAX_TRIALS = 300;

interface ChildReport {
  /** hash → ids the child said were durably done */
  acked: Map<string, Set<string>>;
  /** hash → completed count the child resumed with */
  begun: Map<string, number>;
  applied: string[];
}

/** Starts the child, kills it with SIGKILL `delayMs` after it is ready, returns what it said. */
async function runAndKill(stateDir: string, delayMs: number): Promise<ChildReport> {
  const child = spawn(process.execPath, [CHILD, stateDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const report: ChildReport = { acked: new Map(), begun: new Map(), applied: [] };
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  let buffered = '';
  let ready: () => void;
  const isReady = new Promise<void>((resolve) => {
    ready = resolve;
  });
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop()!; // a line cut by the kill is not a report
    for (const line of lines) {
      const [kind, hash, value] = line.split(' ');
      if (kind === 'ready') ready();
      if (kind === 'ack') {
        const ids = report.acked.get(hash!) ?? new Set();
        ids.add(value!);
        report.acked.set(hash!, ids);
      }
      if (kind === 'begin') report.begun.set(hash!, Number(value));
      if (kind === 'applied') report.applied.push(hash!);
    }
  });
  await Promise.race([isReady, exited]);
  await sleep(delayMs);
  child.kill('SIGKILL');
  await exited;
  return report;
}

function roundOf(hash: string): number {
  return Number(hash.slice(1));
}

test('the journal and last-applied survive SIGKILL at any point', { timeout: 280_000 }, async () => {
  const stateDir = await mkdtemp(join(tmpdir(), 'nodeherd-crash-'));
  try {
    const everAcked = new Map<string, Set<string>>();
    let highestApplied = 0;
    let resumedWithWork = 0;
    let killedMidJournal = 0;
    const covered = () => highestApplied >= 1 && killedMidJournal >= 1 && resumedWithWork >= 1;
    for (let trial = 0; trial < MAX_TRIALS && (trial < TRIALS || !covered()); trial++) {
      const delayMs = Math.floor(Math.random() * 60);
      const report = await runAndKill(stateDir, delayMs);
      const context = `trial ${trial}, killed ${delayMs} ms after ready`;

      // What the child resumed with includes everything acknowledged before it.
      for (const [hash, completedAtStart] of report.begun) {
        const before = everAcked.get(hash)?.size ?? 0;
        assert.ok(
          completedAtStart >= before,
          `${context}: ${hash} resumed with ${completedAtStart} < ${before}`,
        );
        if (completedAtStart > 0) resumedWithWork++;
      }
      for (const [hash, ids] of report.acked) {
        const all = everAcked.get(hash) ?? new Set();
        for (const id of ids) all.add(id);
        everAcked.set(hash, all);
      }
      for (const hash of report.applied) highestApplied = Math.max(highestApplied, roundOf(hash));

      const lastApplied = await new LastAppliedStore(stateDir).read(); // never torn
      const appliedRound = lastApplied ? roundOf(lastApplied.revisionHash) : 0;
      assert.ok(
        appliedRound >= highestApplied,
        `${context}: last-applied h${appliedRound} lost h${highestApplied}`,
      );

      const journal = await new ApplyJournal(stateDir).load(); // never throws
      if (!journal) continue;
      killedMidJournal++;
      const journalRound = roundOf(journal.revisionHash);
      // Either the apply of the next revision, or the one just written to last-applied (killed
      // between writing last-applied and deleting the journal).
      assert.ok(
        journalRound === appliedRound + 1 || journalRound === appliedRound,
        `${context}: journal h${journalRound} with last-applied h${appliedRound}`,
      );
      assert.deepEqual(journal.completed, IDS.slice(0, journal.completed.length), `${context}: not a prefix`);
      for (const id of everAcked.get(journal.revisionHash) ?? []) {
        assert.ok(
          journal.completed.includes(id),
          `${context}: acknowledged ${id} of ${journal.revisionHash} lost`,
        );
      }
    }
    // The trials must have exercised the interesting cases, not just killed idle children.
    assert.ok(highestApplied >= 1, 'no revision was ever applied completely');
    assert.ok(killedMidJournal >= 1, 'no kill landed in the middle of an apply');
    assert.ok(resumedWithWork >= 1, 'no start ever resumed a half-done apply');
    const leftovers = (await readdir(stateDir)).filter((name) => name.endsWith('.tmp'));
    assert.ok(leftovers.length <= 2, `temporary files pile up: ${leftovers.join(', ')}`);
  } finally {
    await rm(stateDir, { recursive: true, force: true });
  }
});

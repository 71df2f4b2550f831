// Child process for apply-journal-crash.test.ts: applies revision after revision through the real
// journal and last-applied store, printing a line after each durable step, until it is killed.
// Each start resumes where the previous (killed) process left off, as the agent does.

import { ApplyJournal } from '../../../src/agent/state/apply-journal.ts';
import { LastAppliedStore } from '../../../src/agent/state/last-applied.ts';

const stateDir = process.argv[2]!;
const ids = Array.from({ length: 40 }, (_, i) => `action-${i}`);
const journal = new ApplyJournal(stateDir);
const lastApplied = new LastAppliedStore(stateDir);

function say(line: string): void {
  process.stdout.write(`${line}\n`); // synchronous for pipes on Linux: said means delivered
}

say('ready');
for (;;) {
  const round = (((await lastApplied.read())?.spec as { round?: number } | undefined)?.round ?? 0) + 1;
  const hash = `h${round}`;
  const start = await journal.beginJournal(hash, `pool-${hash}`, ids);
  say(`begin ${hash} ${start.completed.size}`);
  for (const id of ids) {
    if (start.completed.has(id)) continue;
    await journal.markDone(id);
    say(`ack ${hash} ${id}`);
  }
  await lastApplied.write({ revisionName: `pool-${hash}`, revisionHash: hash, spec: { round } });
  say(`applied ${hash}`);
  await journal.finish();
  say(`finished ${hash}`);
}

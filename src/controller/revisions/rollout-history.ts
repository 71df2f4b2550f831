// status.history: one record per rollout, newest last. Its records also define the rollout "episode":
// everything since the last completed rollout (a failed rollout and the rollback that follows belong to
// one episode), which tells which nodes the current rollout touched.

import type { NumberedRevision } from '../rollout/types.ts';

export type RolloutResult = 'InProgress' | 'Complete' | 'RolledBack' | 'Failed' | 'Superseded';

export interface RolloutRecord {
  revision: number;
  name?: string;
  startedAt: string;
  finishedAt?: string;
  /** Spread with a canary: when the canary nodes were updated (the other nodes' times follow it). */
  canaryPassedAt?: string;
  result: RolloutResult;
  message?: string;
}

/** Records kept in status (oldest dropped first). */
const HISTORY_LIMIT = 20;

const OPEN: ReadonlySet<RolloutResult> = new Set(['InProgress', 'Failed']);

function last(history: readonly RolloutRecord[]): RolloutRecord | undefined {
  return history[history.length - 1];
}

/** Whether the newest record is an unfinished rollout of `name`. */
export function isRolloutOpen(history: readonly RolloutRecord[], name: string): boolean {
  const record = last(history);
  return record !== undefined && record.name === name && OPEN.has(record.result);
}

/** When the current episode began (ms), or undefined when the newest rollout is finished. */
export function episodeStart(history: readonly RolloutRecord[]): number | undefined {
  const newest = last(history);
  if (!newest || !OPEN.has(newest.result)) return undefined;
  let start = newest.startedAt;
  for (let i = history.length - 1; i >= 0; i--) {
    const record = history[i]!;
    if (record.result === 'Complete') break;
    start = record.startedAt;
  }
  return Date.parse(start);
}

/** Starts a rollout of `target`, ending an open one with `endResult`. */
export function beginRollout(
  history: readonly RolloutRecord[],
  target: NumberedRevision,
  now: string,
  endResult: 'Superseded' | 'RolledBack',
  messages: { ended?: string; started?: string } = {},
): RolloutRecord[] {
  const next = history.map((r) => ({ ...r }));
  const open = last(next);
  if (open && OPEN.has(open.result)) {
    open.result = endResult;
    open.finishedAt = now;
    if (messages.ended) open.message = messages.ended;
  }
  next.push({
    revision: target.number,
    name: target.name,
    startedAt: now,
    result: 'InProgress',
    ...(messages.started ? { message: messages.started } : {}),
  });
  return next.slice(-HISTORY_LIMIT);
}

/** Sets the result of the newest record, when it is the open rollout of `name`. */
export function endRollout(
  history: readonly RolloutRecord[],
  name: string,
  result: 'Complete' | 'Failed' | 'InProgress',
  now: string,
  message?: string,
): RolloutRecord[] {
  if (!isRolloutOpen(history, name)) return [...history];
  const next = history.map((r) => ({ ...r }));
  const record = next[next.length - 1]!;
  record.result = result;
  if (result === 'InProgress') delete record.finishedAt;
  else record.finishedAt = now;
  if (message !== undefined) record.message = message;
  return next;
}

/** Records when the canary of the open rollout of `name` passed (once: the first time stays). */
export function recordCanaryPassed(
  history: readonly RolloutRecord[],
  name: string,
  at: string,
): RolloutRecord[] {
  if (!isRolloutOpen(history, name) || last(history)!.canaryPassedAt !== undefined) return [...history];
  const next = history.map((r) => ({ ...r }));
  next[next.length - 1]!.canaryPassedAt = at;
  return next;
}

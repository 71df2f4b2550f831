// The rollout events notifications tell of, and how each is read off a pool's status as it changes
// (the pool informer's old and new object): the controller already writes everything worth telling
// into the status, so notifications need no hook in the reconcile itself, and a write that failed
// tells nothing that did not happen. A drain that blocks comes from the drainer instead (the status
// shows it as the node's verdict, with no transition of its own).

import type { NodeConfigPool } from '../../api/types.ts';

export const ROLLOUT_EVENT_KINDS = [
  'RolloutStarted',
  'BatchDone',
  'Paused',
  'RolloutFailed',
  'RolledBack',
  'RolloutComplete',
  'DrainBlocked',
  'Reboot',
] as const;
export type RolloutEventKind = (typeof ROLLOUT_EVENT_KINDS)[number];

export interface RolloutEvent {
  kind: RolloutEventKind;
  pool: string;
  /** The revision rolled out (name), when there is one. */
  revision?: string;
  /** One line saying what happened, with the reason (a failed node's, a blocking PDB's). */
  message: string;
  /** Nodes concerned (the blocked drain's node). */
  nodes?: string[];
  /** When it was seen (ISO 8601). */
  time: string;
}

type Status = NonNullable<NodeConfigPool['status']>;
type Record_ = NonNullable<Status['history']>[number];

function condition(status: Status | undefined, type: string) {
  return status?.conditions?.find((c) => c.type === type);
}

function recordKey(r: Record_): string {
  return `${r.revision}/${r.startedAt}`;
}

/** What happened between two states of a pool's status, in the order it happened. */
export function rolloutEvents(old: NodeConfigPool, next: NodeConfigPool, now: number): RolloutEvent[] {
  const pool = next.metadata.name;
  const time = new Date(now).toISOString();
  const events: RolloutEvent[] = [];
  const before = new Map((old.status?.history ?? []).map((r) => [recordKey(r), r]));
  for (const record of next.status?.history ?? []) {
    const was = before.get(recordKey(record));
    const revision = record.name ?? `revision ${record.revision}`;
    const base = { pool, revision, time };
    if (!was) {
      events.push({
        ...base,
        kind: 'RolloutStarted',
        message: `rolling out ${revision} (revision ${record.revision})`,
      });
      if (record.result === 'InProgress') continue;
    }
    if (was?.result === record.result) continue;
    const why = record.message ? `: ${record.message}` : '';
    if (record.result === 'Complete')
      events.push({ ...base, kind: 'RolloutComplete', message: `${revision} is on every node of ${pool}` });
    else if (record.result === 'Failed')
      events.push({ ...base, kind: 'RolloutFailed', message: `${revision} failed${why}` });
    else if (record.result === 'RolledBack')
      events.push({ ...base, kind: 'RolledBack', message: `${revision} rolled back${why}` });
  }
  const paused = condition(next.status, 'Paused');
  if (paused?.status === 'True' && condition(old.status, 'Paused')?.status !== 'True')
    events.push({
      kind: 'Paused',
      pool,
      ...(next.status?.targetRevision ? { revision: next.status.targetRevision } : {}),
      message: `paused (${paused.reason ?? 'Paused'})${paused.message ? `: ${paused.message}` : ''}`,
      time,
    });
  const updated = next.status?.updated ?? 0;
  const wasUpdated = old.status?.updated ?? 0;
  const completing = events.some((e) => e.kind === 'RolloutComplete');
  const sameTarget = old.status?.targetRevision === next.status?.targetRevision;
  // Every status write that shows more nodes on the target (and does not complete the rollout): with
  // maxUnavailable 1 that is each batch; a larger batch whose nodes finish apart may tell it in parts.
  if (sameTarget && !completing && updated > wasUpdated && next.status?.targetRevision !== undefined)
    events.push({
      kind: 'BatchDone',
      pool,
      revision: next.status.targetRevision,
      message: `${updated} of ${next.status?.nodes ?? '?'} nodes on ${next.status.targetRevision}`,
      time,
    });
  return events;
}

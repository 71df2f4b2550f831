// Which old revisions of a pool to delete: beyond revisionHistoryLimit, oldest first, but never one a
// node still uses (current, desired or draining-for), the target, the last completed revision (the
// rollback target) or a pinned one.

import type { NumberedRevision } from '../rollout/types.ts';

export function revisionsToPrune(
  revisions: readonly NumberedRevision[],
  inUse: ReadonlySet<string>,
  historyLimit: number,
): string[] {
  const old = revisions.filter((r) => !inUse.has(r.name)).sort((a, b) => b.number - a.number);
  return old.slice(Math.max(0, historyLimit)).map((r) => r.name);
}

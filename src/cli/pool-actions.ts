// What `nodeherd pause`, `resume` and `rollback` do to a pool, apart from what they print: the
// commands and the dashboard's buttons both act through these, with their caller's own credentials.

import type { NodeConfigPool } from '../api/types.ts';
import { nodeConfigPoolPath } from '../controller/api-paths.ts';
import type { KubeClient } from '../kube/kube-client.ts';
import { CliError } from './cli-error.ts';
import { getPool } from './pool-lookup.ts';
import { listPoolRevisions, type RevisionEntry } from './pool-objects.ts';

/** Sets spec.paused; false when the pool already was as asked (nothing written). */
export async function setPoolPaused(client: KubeClient, poolName: string, paused: boolean): Promise<boolean> {
  const pool = await getPool(client, poolName);
  if ((pool.spec.paused === true) === paused) return false;
  await client.patch<NodeConfigPool>(nodeConfigPoolPath(poolName), { spec: { paused } }, 'merge');
  return true;
}

/** The revision to return to when none is named; undefined when there is none. */
export function previousRevision(
  pool: NodeConfigPool,
  revisions: readonly RevisionEntry[],
): RevisionEntry | undefined {
  const target = revisions.find((r) => r.name === pool.status?.targetRevision);
  const existing = new Map(revisions.map((r) => [r.number, r]));
  const history = pool.status?.history ?? [];
  for (let i = history.length - 1; i >= 0; i--) {
    const record = history[i]!;
    if (target && record.revision === target.number) continue;
    const entry = existing.get(record.revision);
    if (entry) return entry;
  }
  const below = revisions.filter((r) => (target ? r.number < target.number : true));
  return target ? below[below.length - 1] : undefined;
}

function listed(revisions: readonly RevisionEntry[]): string {
  return revisions.length > 0 ? revisions.map((r) => `${r.number} (${r.name})`).join(', ') : 'none';
}

/**
 * Asks the controller (spec.rollbackTo) to return the pool to revision `toRevision`, or by default to
 * the one before the current target; returns the revision asked for. A CliError says why not.
 */
export async function requestRollback(
  client: KubeClient,
  poolName: string,
  toRevision?: number,
): Promise<RevisionEntry> {
  const pool = await getPool(client, poolName);
  const revisions = await listPoolRevisions(client, poolName);
  const targetName = pool.status?.targetRevision;
  let to: RevisionEntry | undefined;
  if (toRevision !== undefined) {
    to = revisions.find((r) => r.number === toRevision);
    if (!to) {
      throw new CliError(
        `pool ${poolName} has no revision ${toRevision} (pruned or never made); its revisions: ${listed(revisions)}`,
      );
    }
  } else {
    to = previousRevision(pool, revisions);
    if (!to) {
      throw new CliError(
        `pool ${poolName} has no earlier revision to roll back to (target: ${targetName ?? 'none'}; revisions: ${listed(revisions)})`,
      );
    }
  }
  if (to.name === targetName) {
    throw new CliError(
      `pool ${poolName} already targets revision ${to.number} (${to.name}); nothing to roll back`,
    );
  }
  await client.patch<NodeConfigPool>(
    nodeConfigPoolPath(poolName),
    { spec: { rollbackTo: { revision: to.number } } },
    'merge',
  );
  return to;
}

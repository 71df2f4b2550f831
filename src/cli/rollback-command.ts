// `nodeherd rollback <pool> [--to-revision R]`: asks the controller (spec.rollbackTo) to return the
// pool to an older revision. Default: the revision rolled out before the current target, taken from
// status.history, else the newest older NodeConfigRevision of the pool.

import { Command, InvalidArgumentError } from 'commander';
import type { NodeConfigPool } from '../api/types.ts';
import { nodeConfigPoolPath } from '../controller/api-paths.ts';
import { CliError } from './cli-error.ts';
import { addKubeOptions, type KubeOptions, withClient } from './kube-options.ts';
import { getPool } from './pool-lookup.ts';
import { listPoolRevisions, type RevisionEntry } from './pool-objects.ts';

interface RollbackOptions extends KubeOptions {
  toRevision?: number;
}

function revisionNumber(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1) throw new InvalidArgumentError('must be a revision number (1, 2, ...)');
  return n;
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

export function rollbackCommand(): Command {
  const command = new Command('rollback')
    .description(
      'return a pool to an older revision (spec.rollbackTo); default: the one before the current target',
    )
    .argument('<pool>', 'the NodeConfigPool')
    .option('--to-revision <number>', 'the revision number to return to', revisionNumber);
  addKubeOptions(command);
  return command.action((poolName: string, opts: RollbackOptions) =>
    withClient(opts, async (client) => {
      const pool = await getPool(client, poolName);
      const revisions = await listPoolRevisions(client, poolName);
      const targetName = pool.status?.targetRevision;
      let to: RevisionEntry | undefined;
      if (opts.toRevision !== undefined) {
        to = revisions.find((r) => r.number === opts.toRevision);
        if (!to) {
          throw new CliError(
            `pool ${poolName} has no revision ${opts.toRevision} (pruned or never made); its revisions: ${listed(revisions)}`,
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
      process.stdout.write(
        `pool ${poolName}: rollback to revision ${to.number} (${to.name}) requested; the controller rolls it out with the pool's strategy (watch: nodeherd status ${poolName} --watch)\n`,
      );
    }),
  );
}

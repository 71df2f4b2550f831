// `nodeherd rollback <pool> [--to-revision R]`: asks the controller (spec.rollbackTo) to return the
// pool to an older revision. Default: the revision rolled out before the current target, taken from
// status.history, else the newest older NodeConfigRevision of the pool (pool-actions.ts).

import { Command, InvalidArgumentError } from 'commander';
import { invokedCommand } from '../util/invoked-command.ts';
import { addKubeOptions, type KubeOptions, withClient } from './kube-options.ts';
import { requestRollback } from './pool-actions.ts';

interface RollbackOptions extends KubeOptions {
  toRevision?: number;
}

function revisionNumber(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1) throw new InvalidArgumentError('must be a revision number (1, 2, ...)');
  return n;
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
      const to = await requestRollback(client, poolName, opts.toRevision);
      process.stdout.write(
        `pool ${poolName}: rollback to revision ${to.number} (${to.name}) requested; the controller rolls it out with the pool's strategy (watch: ${invokedCommand()} status ${poolName} --watch)\n`,
      );
    }),
  );
}

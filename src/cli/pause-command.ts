// `nodeherd pause <pool>` and `nodeherd resume <pool>`: set spec.paused. Paused, no node starts an
// update; nodes already in flight finish.

import { Command } from 'commander';
import type { NodeConfigPool } from '../api/types.ts';
import { nodeConfigPoolPath } from '../controller/api-paths.ts';
import { addKubeOptions, type KubeOptions, withClient } from './kube-options.ts';
import { getPool } from './pool-lookup.ts';

function pausedCommand(name: 'pause' | 'resume', paused: boolean, description: string): Command {
  const command = new Command(name).description(description).argument('<pool>', 'the NodeConfigPool');
  addKubeOptions(command);
  return command.action((poolName: string, opts: KubeOptions) =>
    withClient(opts, async (client) => {
      const pool = await getPool(client, poolName);
      if ((pool.spec.paused === true) === paused) {
        process.stdout.write(
          `pool ${poolName} is already ${paused ? 'paused' : 'running'}; nothing changed\n`,
        );
        return;
      }
      await client.patch<NodeConfigPool>(nodeConfigPoolPath(poolName), { spec: { paused } }, 'merge');
      process.stdout.write(
        paused
          ? `pool ${poolName} paused: no node starts an update; nodes in flight finish (resume: nodeherd resume ${poolName})\n`
          : `pool ${poolName} resumed: the rollout continues\n`,
      );
    }),
  );
}

export function pauseCommand(): Command {
  return pausedCommand('pause', true, "pause a pool's rollout (spec.paused: true); nodes in flight finish");
}

export function resumeCommand(): Command {
  return pausedCommand('resume', false, "resume a paused pool's rollout (spec.paused: false)");
}

// `nodeherd pause <pool>` and `nodeherd resume <pool>`: set spec.paused. Paused, no node starts an
// update; nodes already in flight finish.

import { Command } from 'commander';
import { invokedCommand } from '../util/invoked-command.ts';
import { addKubeOptions, type KubeOptions, withClient } from './kube-options.ts';
import { setPoolPaused } from './pool-actions.ts';

function pausedCommand(name: 'pause' | 'resume', paused: boolean, description: string): Command {
  const command = new Command(name).description(description).argument('<pool>', 'the NodeConfigPool');
  addKubeOptions(command);
  return command.action((poolName: string, opts: KubeOptions) =>
    withClient(opts, async (client) => {
      if (!(await setPoolPaused(client, poolName, paused))) {
        process.stdout.write(
          `pool ${poolName} is already ${paused ? 'paused' : 'running'}; nothing changed\n`,
        );
        return;
      }
      process.stdout.write(
        paused
          ? `pool ${poolName} paused: no node starts an update; nodes in flight finish (resume: ${invokedCommand()} resume ${poolName})\n`
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

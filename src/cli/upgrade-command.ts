// `nodeherd upgrade node <name>` and `nodeherd upgrade revision <pool> <R>`: OnDelete pools keep every
// existing node on its revision; these ask the controller to move one node, or every node of one
// revision, to the pool's target. Other strategies update every node anyway, so the command explains
// that instead of writing an annotation nobody reads.

import { Command } from 'commander';
import {
  CURRENT_REVISION_ANNOTATION,
  UPGRADE_REQUESTED_ANNOTATION,
  UPGRADE_REVISION_ANNOTATION,
} from '../api/node-protocol.ts';
import type { NodeConfigPool } from '../api/types.ts';
import { nodeConfigPoolPath, nodePath, PATHS } from '../controller/api-paths.ts';
import { strategyDescription } from '../controller/strategies/descriptions.ts';
import type { KubeClient } from '../kube/kube-client.ts';
import { isKubeError } from '../kube/kube-error.ts';
import type { Node } from '../kube/types.ts';
import { invokedCommand } from '../util/invoked-command.ts';
import { kubeTime } from '../util/kube-time.ts';
import { CliError } from './cli-error.ts';
import { addKubeOptions, type KubeOptions, withClient } from './kube-options.ts';
import { getPool } from './pool-lookup.ts';
import { listPoolNodes, listPoolRevisions, poolsOfNode } from './pool-objects.ts';

/** Why upgrading on demand means nothing for this pool, or undefined for OnDelete pools. */
export function notOnDemand(pool: NodeConfigPool): string | undefined {
  const type = pool.spec.updateStrategy?.type ?? 'RollingUpdate';
  const name = pool.metadata.name;
  const description = strategyDescription(type);
  if (description?.upgradesOnDemand) return undefined;
  return (
    description?.notOnDemand?.(name) ??
    `pool ${name} uses the ${type} strategy, which updates every node to the target anyway; ${invokedCommand()} upgrade is for OnDelete pools (see ${invokedCommand()} status ${name})`
  );
}

async function getNode(client: KubeClient, name: string): Promise<Node> {
  try {
    return await client.get<Node>(nodePath(name));
  } catch (error) {
    if (isKubeError(error, 404)) throw new CliError(`no Node named ${JSON.stringify(name)}`);
    throw error;
  }
}

function upgradeNodeCommand(): Command {
  const command = new Command('node')
    .description("move one node of an OnDelete pool to the pool's target revision")
    .argument('<name>', 'the Node');
  addKubeOptions(command);
  return command.action((nodeName: string, opts: KubeOptions) =>
    withClient(opts, async (client) => {
      const node = await getNode(client, nodeName);
      const pools = poolsOfNode(node, (await client.list<NodeConfigPool>(PATHS.nodeConfigPools)).items);
      if (pools.length === 0) throw new CliError(`node ${nodeName} belongs to no NodeConfigPool`);
      if (pools.length > 1) {
        throw new CliError(
          `node ${nodeName} is selected by more than one pool (${pools.map((p) => p.metadata.name).join(', ')}), so none manages it`,
        );
      }
      const pool = pools[0]!;
      const why = notOnDemand(pool);
      if (why) throw new CliError(why);
      const target = pool.status?.targetRevision;
      if (!target)
        throw new CliError(
          `pool ${pool.metadata.name} has no target revision yet (is the controller running?)`,
        );
      const current = node.metadata.annotations?.[CURRENT_REVISION_ANNOTATION];
      if (current === target) {
        process.stdout.write(
          `node ${nodeName} already runs the target revision ${target} of pool ${pool.metadata.name}; nothing changed\n`,
        );
        return;
      }
      await client.patch(
        nodePath(nodeName),
        { metadata: { annotations: { [UPGRADE_REQUESTED_ANNOTATION]: kubeTime(Date.now()) } } },
        'merge',
      );
      process.stdout.write(
        `node ${nodeName}: upgrade from ${current ?? 'no revision'} to ${target} (pool ${pool.metadata.name}) requested\n`,
      );
    }),
  );
}

function upgradeRevisionCommand(): Command {
  const command = new Command('revision')
    .description("move every node of one revision of an OnDelete pool to the pool's target revision")
    .argument('<pool>', 'the NodeConfigPool')
    .argument('<revision>', 'the revision number (or NodeConfigRevision name) whose nodes move');
  addKubeOptions(command);
  return command.action((poolName: string, revisionArg: string, opts: KubeOptions) =>
    withClient(opts, async (client) => {
      const pool = await getPool(client, poolName);
      const why = notOnDemand(pool);
      if (why) throw new CliError(why);
      const revisions = await listPoolRevisions(client, poolName);
      const revision = revisions.find((r) => String(r.number) === revisionArg || r.name === revisionArg);
      if (!revision) {
        const known = revisions.map((r) => `${r.number} (${r.name})`).join(', ') || 'none';
        throw new CliError(`pool ${poolName} has no revision ${revisionArg}; its revisions: ${known}`);
      }
      const target = pool.status?.targetRevision;
      if (revision.name === target) {
        throw new CliError(
          `revision ${revision.number} (${revision.name}) is the target of pool ${poolName} already; its nodes are up to date`,
        );
      }
      const nodes = (await listPoolNodes(client, pool)).filter(
        (n) => n.metadata.annotations?.[CURRENT_REVISION_ANNOTATION] === revision.name,
      );
      if (nodes.length === 0) {
        throw new CliError(
          `no node of pool ${poolName} is on revision ${revision.number} (${revision.name}); nothing to upgrade`,
        );
      }
      await client.patch(
        nodeConfigPoolPath(poolName),
        { metadata: { annotations: { [UPGRADE_REVISION_ANNOTATION]: String(revision.number) } } },
        'merge',
      );
      process.stdout.write(
        `pool ${poolName}: upgrade of the ${nodes.length} node${nodes.length === 1 ? '' : 's'} on revision ${revision.number} (${revision.name}) to ${target ?? 'the target'} requested\n`,
      );
    }),
  );
}

export function upgradeCommand(): Command {
  return new Command('upgrade')
    .description('OnDelete pools: move a node, or every node of a revision, to the target revision')
    .addCommand(upgradeNodeCommand())
    .addCommand(upgradeRevisionCommand());
}

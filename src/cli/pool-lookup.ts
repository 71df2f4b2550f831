// Reading one NodePool by name, with an error that lists the pools that do exist.

import type { NodePool } from '../api/types.ts';
import { nodePoolPath, PATHS } from '../controller/api-paths.ts';
import type { KubeClient } from '../kube/kube-client.ts';
import { isKubeError } from '../kube/kube-error.ts';
import { CliError } from './cli-error.ts';

export function unknownPoolError(name: string, known: readonly string[]): CliError {
  const list = [...known].sort();
  return new CliError(
    `no NodePool named ${JSON.stringify(name)}; ${list.length > 0 ? `known pools: ${list.join(', ')}` : 'there are no NodePools'}`,
  );
}

export async function getPool(client: KubeClient, name: string): Promise<NodePool> {
  try {
    return await client.get<NodePool>(nodePoolPath(name));
  } catch (error) {
    if (!isKubeError(error, 404)) throw error;
    const pools = await client.list<NodePool>(PATHS.nodePools);
    throw unknownPoolError(
      name,
      pools.items.map((p) => p.metadata.name),
    );
  }
}

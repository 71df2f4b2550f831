// Reading one NodeConfigPool by name, with an error that lists the pools that do exist.

import type { NodeConfigPool } from '../api/types.ts';
import { nodeConfigPoolPath, PATHS } from '../controller/api-paths.ts';
import type { KubeClient } from '../kube/kube-client.ts';
import { isKubeError } from '../kube/kube-error.ts';
import { CliError } from './cli-error.ts';

export function unknownPoolError(name: string, known: readonly string[]): CliError {
  const list = [...known].sort();
  return new CliError(
    `no NodeConfigPool named ${JSON.stringify(name)}; ${list.length > 0 ? `known pools: ${list.join(', ')}` : 'there are no NodeConfigPools'}`,
  );
}

export async function getPool(client: KubeClient, name: string): Promise<NodeConfigPool> {
  try {
    return await client.get<NodeConfigPool>(nodeConfigPoolPath(name));
  } catch (error) {
    if (!isKubeError(error, 404)) throw error;
    const pools = await client.list<NodeConfigPool>(PATHS.nodeConfigPools);
    throw unknownPoolError(
      name,
      pools.items.map((p) => p.metadata.name),
    );
  }
}

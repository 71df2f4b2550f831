// Containers as nodes for `nodeherd up --nspawn` (being built: see the e2e machinery in test/e2e/support).
import type { NodeSet, NodeSetContext } from '../up/local-cluster.ts';

export interface ContainerNodes {
  artefactDirectory: string;
  nodeSet: (context: NodeSetContext) => Promise<NodeSet>;
}

export async function prepareContainerNodes(
  _count: number,
  _step: (m: string) => void,
): Promise<ContainerNodes> {
  throw new Error('--nspawn is not implemented yet');
}

// Watches every Node with an admin client and hands each change, in commit order, to the listeners
// of tests (invariant checkers, recorders of what happened to which node).

import type { KubeConfig } from '@kubernetes/client-node';
import { Informer } from '../../../src/kube/informer.ts';
import { KubeClient } from '../../../src/kube/kube-client.ts';
import type { Node } from '../../../src/kube/types.ts';

export type NodeListener = (node: Node, at: number) => void;

export class NodeWatch {
  private readonly client: KubeClient;
  private readonly informer: Informer<Node>;
  private readonly listeners = new Set<NodeListener>();
  /** desired-revision changes per node. */
  readonly desiredChanges = new Map<string, number>();

  constructor(kubeConfig: KubeConfig) {
    this.client = new KubeClient(kubeConfig);
    this.informer = new Informer<Node>(this.client, { path: '/api/v1/nodes' });
    this.informer.on((type, node, old) => {
      if (type === 'delete') return;
      const before = old?.metadata.annotations?.['nodeherd.io/desired-revision'];
      const after = node.metadata.annotations?.['nodeherd.io/desired-revision'];
      if (old && before !== after)
        this.desiredChanges.set(node.metadata.name, (this.desiredChanges.get(node.metadata.name) ?? 0) + 1);
      const at = performance.now();
      for (const listener of this.listeners) listener(node, at);
    });
  }

  async start(): Promise<void> {
    this.informer.start();
    await this.informer.waitForSync();
  }

  on(listener: NodeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  list(): Node[] {
    return this.informer.list();
  }

  async stop(): Promise<void> {
    await this.informer.stop();
    this.client.close();
  }
}

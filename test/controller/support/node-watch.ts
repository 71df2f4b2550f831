// Watches every Node with an admin client and hands each change, in commit order, to the listeners
// of tests (invariant checkers, recorders of what happened to which node).

import type { KubeConfig } from '@kubernetes/client-node';
import { DESIRED_REVISION_ANNOTATION } from '../../../src/api/node-protocol.ts';
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

  /** A watch over the Nodes `kubeConfig` may see, synced. */
  static async started(kubeConfig: KubeConfig): Promise<NodeWatch> {
    const watch = new NodeWatch(kubeConfig);
    await watch.start();
    return watch;
  }

  /**
   * Per node, the first value annotation `key` was seen with while the node's desired revision was
   * `revision` (filled in as changes come).
   */
  firstAnnotations(key: string, revision: string): Map<string, string> {
    const first = new Map<string, string>();
    this.on((node) => {
      const a = node.metadata.annotations ?? {};
      const value = a[key];
      if (a[DESIRED_REVISION_ANNOTATION] === revision && value && !first.has(node.metadata.name))
        first.set(node.metadata.name, value);
    });
    return first;
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

// NodeConfig.status: which pools select the config (the `Pools` column of `kubectl get nodeconfigs -o
// wide`), and the generation looked at.

import { matchesLabelSelector } from '../../api/label-selector.ts';
import type { NodeConfig } from '../../api/types.ts';
import { jsonEqual } from '../../util/json-equal.ts';
import { nodeConfigStatusPath } from '../api-paths.ts';
import type { ControllerContext, Informers } from '../controller-context.ts';
import type { KeyReconciler } from '../reconciler.ts';
import { watchConfigs } from './config-watches.ts';

export class ConfigReconciler implements KeyReconciler {
  readonly kind = 'config';
  private readonly ctx: ControllerContext;

  constructor(ctx: ControllerContext) {
    this.ctx = ctx;
  }

  initialKeys(informers: Informers): string[] {
    return informers.configs.list().map((c) => c.metadata.name);
  }

  watch(informers: Informers, enqueue: (name: string) => void): void {
    watchConfigs(informers, enqueue);
  }

  async reconcile(name: string): Promise<undefined> {
    const config = this.ctx.informers.configs.get(name);
    if (!config || config.metadata.deletionTimestamp) return undefined;
    const pools = this.ctx.informers.pools
      .list()
      .filter(
        (p) =>
          !p.metadata.deletionTimestamp &&
          matchesLabelSelector(p.spec.configSelector, config.metadata.labels),
      )
      .map((p) => p.metadata.name)
      .sort();
    const status = { observedGeneration: config.metadata.generation ?? 0, pools };
    if (jsonEqual(config.status ?? {}, status)) return undefined;
    const updated = await this.ctx.client.patch<NodeConfig>(nodeConfigStatusPath(name), { status }, 'merge');
    this.ctx.informers.configs.upsert(updated);
    return undefined;
  }
}

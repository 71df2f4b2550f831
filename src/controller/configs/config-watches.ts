// What the config reconciler watches: its NodeConfigs, and every NodeConfig when a pool's config
// selector may have changed (the `Pools` a config lists).

import { jsonEqual } from '../../util/json-equal.ts';
import type { Informers } from '../controller-context.ts';

export function watchConfigs(informers: Informers, enqueue: (config: string) => void): void {
  const { pools, configs } = informers;
  configs.on((_type, config) => enqueue(config.metadata.name));
  pools.on((type, pool, old) => {
    const changed = type !== 'update' || !jsonEqual(old?.spec.configSelector, pool.spec.configSelector);
    if (changed) for (const c of configs.list()) enqueue(c.metadata.name);
  });
}

// What the controller's /metrics reads from its caches at each scrape rather than at each reconcile:
// per node, since when its OS asks for a reboot; per Serial slot, since when its holder has it. Both
// are timestamps (Prometheus's convention: alert on `time() - x`), so a scrape sees them move without
// a reconcile, and a node or slot that stops being one drops its series at the next scrape.

import { REBOOT_REQUIRED_CONDITION, SERIAL_POOL_LABEL } from '../api/node-protocol.ts';
import type { Informers } from './controller-context.ts';
import type { ScrapeSources } from './metrics.ts';
import { poolsOfNode } from './reconciler.ts';

/** A Kubernetes timestamp in seconds since the epoch, as written. */
function seconds(value: string | null | undefined): number | undefined {
  const ms = value ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? undefined : ms / 1000;
}

export function scrapeSources(informers: Informers): ScrapeSources {
  return {
    rebootRequired() {
      const out: { pool: string; node: string; since: number }[] = [];
      for (const node of informers.nodes.list()) {
        // Any reason, Rebooting included: the node is waiting until the condition turns False after its boot.
        const condition = node.status?.conditions?.find(
          (c) => c.type === REBOOT_REQUIRED_CONDITION && c.status === 'True',
        );
        const since = seconds(condition?.lastTransitionTime);
        if (since === undefined) continue;
        for (const pool of poolsOfNode(informers, node)) out.push({ pool, node: node.metadata.name, since });
      }
      return out;
    },
    serialSlots() {
      const out: { pool: string; lease: string; node: string; acquired: number }[] = [];
      for (const lease of informers.leases.list()) {
        const pool = lease.metadata.labels?.[SERIAL_POOL_LABEL];
        const node = lease.spec?.holderIdentity;
        const acquired = seconds(lease.spec?.acquireTime);
        if (!pool || !node || acquired === undefined) continue;
        out.push({ pool, lease: lease.metadata.name, node, acquired });
      }
      return out;
    },
  };
}

// Serial: who holds the pool's slot Leases, and which slots the controller frees. Agents take and
// release slots themselves (so Serial goes on with the controller down); the controller only reports
// the holders and frees a slot whose holder Node no longer exists, which no agent would ever release.

import type { Lease } from '../../../kube/types.ts';

export interface SlotHolder {
  lease: string;
  node: string;
  /** The holder's agent state ('Gone' when its Node no longer exists). */
  state: string;
}

export interface SlotView {
  holders: SlotHolder[];
  /** Leases to free (holder Node deleted): name and resourceVersion for a compare-and-swap update. */
  release: { lease: string; node: string; resourceVersion?: string }[];
}

export function serialSlots(
  leases: readonly Lease[],
  nodeState: (node: string) => string | undefined,
  nodeExists: (node: string) => boolean,
): SlotView {
  const view: SlotView = { holders: [], release: [] };
  const sorted = [...leases].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  for (const lease of sorted) {
    const holder = lease.spec?.holderIdentity;
    if (!holder) continue;
    if (!nodeExists(holder)) {
      view.holders.push({ lease: lease.metadata.name, node: holder, state: 'Gone' });
      view.release.push({
        lease: lease.metadata.name,
        node: holder,
        ...(lease.metadata.resourceVersion ? { resourceVersion: lease.metadata.resourceVersion } : {}),
      });
      continue;
    }
    view.holders.push({ lease: lease.metadata.name, node: holder, state: nodeState(holder) ?? 'Unknown' });
  }
  return view;
}

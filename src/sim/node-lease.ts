// The heartbeat of a simulated kubelet: its Lease in kube-node-lease, renewed the way kubelet's lease
// controller does it: get or create once, then PUT the cached Lease with a new renewTime; after any
// failure forget the cache and get it again. The Lease is owned by the Node (ownerReference), so the
// garbage collector removes it with the Node.

import { isKubeError } from '../kube/kube-error.ts';
import { resourcePath } from '../kube/light/api-paths.ts';
import type { LightKubeClient } from '../kube/light/light-kube-client.ts';
import type { KubeObject } from '../kube/light/types.ts';
import type { OwnerReference } from '../util/kube-api-types.ts';
import { kubeMicroTime } from './node-object.ts';

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

interface LeaseObject extends KubeObject {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    renewTime?: string;
  };
}

export interface NodeLeaseOptions {
  /** kubelet's default: 40 s. */
  leaseDurationSeconds?: number;
  now?: () => number;
}

export class NodeLease {
  readonly nodeName: string;
  private readonly client: LightKubeClient;
  private readonly durationSeconds: number;
  private readonly now: () => number;
  private readonly path: string;
  private cached: LeaseObject | undefined;
  private ownerUid: string | undefined;

  constructor(client: LightKubeClient, nodeName: string, options: NodeLeaseOptions = {}) {
    this.client = client;
    this.nodeName = nodeName;
    this.durationSeconds = options.leaseDurationSeconds ?? 40;
    this.now = options.now ?? Date.now;
    this.path = resourcePath({
      apiVersion: 'coordination.k8s.io/v1',
      resource: 'leases',
      namespace: NODE_LEASE_NAMESPACE,
      name: nodeName,
    });
  }

  /** The Node's uid, for the ownerReference; set after registration. */
  setOwner(uid: string | undefined): void {
    this.ownerUid = uid;
  }

  /** Renews (creating the Lease if it is missing). Throws on failure; the next call starts afresh. */
  async renew(): Promise<void> {
    try {
      if (this.cached === undefined) {
        const { lease, created } = await this.fetchOrCreate();
        // A Lease created just now carries a fresh renewTime already.
        if (created) {
          this.cached = lease;
          return;
        }
        this.cached = lease;
      }
      this.cached = await this.client.update<LeaseObject>(this.path, this.renewed(this.cached));
    } catch (err) {
      this.cached = undefined;
      throw err;
    }
  }

  /** Forgets the cached Lease (after the Node was deleted, say). */
  reset(): void {
    this.cached = undefined;
  }

  private async fetchOrCreate(): Promise<{ lease: LeaseObject; created: boolean }> {
    try {
      return { lease: await this.client.get<LeaseObject>(this.path), created: false };
    } catch (err) {
      if (!isKubeError(err, 404)) throw err;
    }
    const collection = resourcePath({
      apiVersion: 'coordination.k8s.io/v1',
      resource: 'leases',
      namespace: NODE_LEASE_NAMESPACE,
    });
    const lease = await this.client.create<LeaseObject>(collection, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: this.nodeName, namespace: NODE_LEASE_NAMESPACE, ...this.ownerReferences() },
      spec: {
        holderIdentity: this.nodeName,
        leaseDurationSeconds: this.durationSeconds,
        renewTime: kubeMicroTime(this.now()),
      },
    });
    return { lease, created: true };
  }

  private renewed(lease: LeaseObject): LeaseObject {
    const owners = lease.metadata?.ownerReferences ?? [];
    const ownerCurrent = this.ownerUid === undefined || owners.some((owner) => owner.uid === this.ownerUid);
    return {
      ...lease,
      metadata: { ...lease.metadata, ...(ownerCurrent ? {} : this.ownerReferences()) },
      spec: {
        ...lease.spec,
        holderIdentity: this.nodeName,
        leaseDurationSeconds: this.durationSeconds,
        renewTime: kubeMicroTime(this.now()),
      },
    };
  }

  private ownerReferences(): { ownerReferences?: OwnerReference[] } {
    if (this.ownerUid === undefined) return {};
    return {
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: this.nodeName, uid: this.ownerUid }],
    };
  }
}

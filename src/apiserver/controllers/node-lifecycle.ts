// Marks nodes whose heartbeat stopped as NotReady, like kube-controller-manager's node lifecycle
// controller: kubelets (and the simulated ones) renew a Lease in kube-node-lease; a node not heard
// from for longer than the grace period gets Ready=Unknown and the unreachable taint. Nodes bring
// themselves back by posting Ready=True again, as kubelet does. What it needs of each node is indexed
// from the store's events, so a periodic check costs nothing per healthy node (no list, no copies).
//
// "Heard from" is this server's clock when it saw the Lease's renewTime advance (or the Ready
// heartbeat change), as kube-controller-manager's probeTimestamp is, never the time the kubelet wrote:
// a node whose clock runs behind, or whose renewal waited in a queue, is alive all the same.

import { kubeTime } from '../../util/kube-time.ts';
import { ApiError } from '../errors.ts';
import type { ObjectService } from '../objects/object-service.ts';
import type { ResourceDefinition } from '../registry/resource-definition.ts';
import type { ResourceRegistry } from '../registry/resource-registry.ts';
import type { KubeObject, Store, StoreEvent } from '../storage/types.ts';
import { StoreController } from './store-controller.ts';

export interface NodeLifecycleOptions {
  gracePeriodMs: number;
  now?: () => number;
}

export const UNREACHABLE_TAINT = 'node.kubernetes.io/unreachable';
const NODE_PREFIX = '/core/nodes/';
const LEASE_PREFIX = '/coordination.k8s.io/leases/kube-node-lease/';

interface NodeHealth {
  ready: string | undefined;
  /** The Ready condition's lastHeartbeatTime as written (compared, never read as a time). */
  readyHeartbeat: unknown;
  /** When this server saw readyHeartbeat change. */
  heardAt: number;
  unreachableTaint: boolean;
}

interface LeaseRenewal {
  renewTime: number;
  /** When this server saw renewTime advance. */
  heardAt: number;
}

function parseTime(value: unknown): number {
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? 0 : ms;
}

function healthOf(node: KubeObject, before: NodeHealth | undefined, now: number): NodeHealth {
  const ready = (node.status?.conditions ?? []).find((c: KubeObject) => c.type === 'Ready');
  const readyHeartbeat = ready?.lastHeartbeatTime;
  return {
    ready: ready?.status,
    readyHeartbeat,
    heardAt: before !== undefined && before.readyHeartbeat === readyHeartbeat ? before.heardAt : now,
    unreachableTaint: (node.spec?.taints ?? []).some((t: KubeObject) => t.key === UNREACHABLE_TAINT),
  };
}

function renewalOf(lease: KubeObject, before: LeaseRenewal | undefined, now: number): LeaseRenewal {
  const renewTime = parseTime(lease.spec?.renewTime);
  return before !== undefined && renewTime <= before.renewTime ? before : { renewTime, heardAt: now };
}

export class NodeLifecycleController extends StoreController {
  private readonly nodeDef: ResourceDefinition;
  private readonly gracePeriodMs: number;
  private readonly now: () => number;
  private readonly nodes = new Map<string, NodeHealth>();
  private readonly leaseRenewals = new Map<string, LeaseRenewal>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    store: Store,
    registry: ResourceRegistry,
    objects: ObjectService,
    options: NodeLifecycleOptions,
  ) {
    super(store, objects);
    this.nodeDef = registry.get('', 'v1', 'nodes')!;
    this.gracePeriodMs = options.gracePeriodMs;
    this.now = options.now ?? Date.now;
  }

  start(): void {
    // Whatever was written before this server started counts as heard now: the grace runs from here.
    const startedAt = this.now();
    for (const item of this.store.list(NODE_PREFIX).items)
      this.nodes.set(item.object.metadata.name, healthOf(item.object, undefined, startedAt));
    for (const item of this.store.list(LEASE_PREFIX).items)
      this.leaseRenewals.set(item.object.metadata.name, renewalOf(item.object, undefined, startedAt));
    this.followStore();
    const every = Math.max(250, Math.floor(this.gracePeriodMs / 4));
    this.timer = setInterval(() => this.check(), every);
    this.timer.unref();
  }

  protected onEvent(event: StoreEvent): void {
    const name: string = event.object.metadata?.name;
    if (event.key.startsWith(NODE_PREFIX)) {
      if (event.type === 'DELETED') this.nodes.delete(name);
      else this.nodes.set(name, healthOf(event.object, this.nodes.get(name), this.now()));
    } else if (event.key.startsWith(LEASE_PREFIX)) {
      if (event.type === 'DELETED') this.leaseRenewals.delete(name);
      else this.leaseRenewals.set(name, renewalOf(event.object, this.leaseRenewals.get(name), this.now()));
    }
  }

  /** When this server last heard from the node: a lease renewal or a Ready heartbeat. */
  private lastHeard(name: string, health: NodeHealth): number {
    return Math.max(this.leaseRenewals.get(name)?.heardAt ?? 0, health.heardAt);
  }

  check(): void {
    const now = this.now();
    for (const [name, health] of this.nodes) {
      if (health.ready === 'True' && health.unreachableTaint) {
        this.clearTaint(name);
        continue;
      }
      if (health.ready === undefined || health.ready === 'Unknown') continue;
      if (now - this.lastHeard(name, health) <= this.gracePeriodMs) continue;
      this.markUnknown(name, now);
    }
  }

  private markUnknown(name: string, now: number): void {
    try {
      const node = this.objects.get(this.nodeDef, undefined, name);
      const conditions = (node.status?.conditions ?? []).map((c: KubeObject) =>
        c.type === 'Ready'
          ? {
              ...c,
              status: 'Unknown',
              reason: 'NodeStatusUnknown',
              message: 'Kubelet stopped posting node status.',
              lastTransitionTime: kubeTime(now),
            }
          : c,
      );
      this.objects.update(
        this.nodeDef,
        undefined,
        name,
        { ...node, status: { ...node.status, conditions } },
        { subresource: 'status' },
      );
      const fresh = this.objects.get(this.nodeDef, undefined, name);
      const taints: KubeObject[] = fresh.spec?.taints ?? [];
      if (!taints.some((t) => t.key === UNREACHABLE_TAINT)) {
        this.objects.update(this.nodeDef, undefined, name, {
          ...fresh,
          spec: {
            ...fresh.spec,
            taints: [...taints, { key: UNREACHABLE_TAINT, effect: 'NoSchedule', timeAdded: kubeTime(now) }],
          },
        });
      }
    } catch (err) {
      // A concurrent write by the node itself wins, or the store is at its quota (507): the next check
      // looks again.
      if (!(err instanceof ApiError && (err.code === 409 || err.code === 404 || err.code === 507))) throw err;
    }
  }

  /** Nodes that report Ready again lose the unreachable taint. */
  private clearTaint(name: string): void {
    try {
      const node = this.objects.get(this.nodeDef, undefined, name);
      const taints = (node.spec?.taints ?? []).filter((t: KubeObject) => t.key !== UNREACHABLE_TAINT);
      this.objects.update(this.nodeDef, undefined, name, { ...node, spec: { ...node.spec, taints } });
    } catch (err) {
      if (!(err instanceof ApiError && (err.code === 409 || err.code === 404 || err.code === 507))) throw err;
    }
  }

  override stop(): void {
    super.stop();
    if (this.timer) clearInterval(this.timer);
  }
}

// Marks nodes whose heartbeat stopped as NotReady, like kube-controller-manager's node lifecycle
// controller: kubelets (and the simulated ones) renew a Lease in kube-node-lease; a node whose lease
// is older than the grace period gets Ready=Unknown and the unreachable taint. Nodes bring themselves
// back by posting Ready=True again, as kubelet does.

import { ApiError } from '../errors.ts';
import type { ObjectService } from '../objects/object-service.ts';
import type { ResourceDefinition } from '../registry/resource-definition.ts';
import type { ResourceRegistry } from '../registry/resource-registry.ts';
import type { KubeObject, Store } from '../storage/types.ts';

export interface NodeLifecycleOptions {
  gracePeriodMs: number;
  now?: () => number;
}

export const UNREACHABLE_TAINT = 'node.kubernetes.io/unreachable';

function timestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}

export class NodeLifecycleController {
  private readonly store: Store;
  private readonly objects: ObjectService;
  private readonly nodes: ResourceDefinition;
  private readonly gracePeriodMs: number;
  private readonly now: () => number;
  private readonly startedAt: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    store: Store,
    registry: ResourceRegistry,
    objects: ObjectService,
    options: NodeLifecycleOptions,
  ) {
    this.store = store;
    this.objects = objects;
    this.nodes = registry.get('', 'v1', 'nodes')!;
    this.gracePeriodMs = options.gracePeriodMs;
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
  }

  start(): void {
    const every = Math.max(250, Math.floor(this.gracePeriodMs / 4));
    this.timer = setInterval(() => this.check(), every);
    this.timer.unref();
  }

  /** The last sign of life of a node: its lease renewal, or its Ready heartbeat when it has no lease. */
  private lastHeartbeat(node: KubeObject): number {
    const lease = this.store.get(`/coordination.k8s.io/leases/kube-node-lease/${node.metadata.name}`);
    const renew = lease?.object.spec?.renewTime;
    const ready = (node.status?.conditions ?? []).find((c: KubeObject) => c.type === 'Ready');
    const candidates = [Date.parse(renew ?? ''), Date.parse(ready?.lastHeartbeatTime ?? '')].filter(
      (n) => !Number.isNaN(n),
    );
    // A server restart must not make every node look dead: count from when we started watching.
    return Math.max(this.startedAt, ...candidates);
  }

  check(): void {
    const now = this.now();
    for (const item of this.store.list('/core/nodes/').items) {
      const node = item.object;
      const conditions: KubeObject[] = node.status?.conditions ?? [];
      const ready = conditions.find((c) => c.type === 'Ready');
      if (
        ready?.status === 'True' &&
        (node.spec?.taints ?? []).some((t: KubeObject) => t.key === UNREACHABLE_TAINT)
      ) {
        this.clearTaint(node);
        continue;
      }
      if (!ready || ready.status === 'Unknown') continue;
      if (now - this.lastHeartbeat(node) <= this.gracePeriodMs) continue;
      this.markUnknown(node, now);
    }
  }

  private markUnknown(node: KubeObject, now: number): void {
    const name = node.metadata.name;
    const conditions = (node.status?.conditions ?? []).map((c: KubeObject) =>
      c.type === 'Ready'
        ? {
            ...c,
            status: 'Unknown',
            reason: 'NodeStatusUnknown',
            message: 'Kubelet stopped posting node status.',
            lastTransitionTime: timestamp(now),
          }
        : c,
    );
    try {
      this.objects.update(
        this.nodes,
        undefined,
        name,
        { ...node, status: { ...node.status, conditions } },
        { subresource: 'status' },
      );
      const fresh = this.objects.get(this.nodes, undefined, name);
      const taints: KubeObject[] = fresh.spec?.taints ?? [];
      if (!taints.some((t) => t.key === UNREACHABLE_TAINT)) {
        this.objects.update(this.nodes, undefined, name, {
          ...fresh,
          spec: {
            ...fresh.spec,
            taints: [...taints, { key: UNREACHABLE_TAINT, effect: 'NoSchedule', timeAdded: timestamp(now) }],
          },
        });
      }
    } catch (err) {
      // A concurrent write by the node itself wins; the next check looks again.
      if (!(err instanceof ApiError && (err.code === 409 || err.code === 404))) throw err;
    }
  }

  /** Nodes that report Ready again lose the unreachable taint. */
  private clearTaint(node: KubeObject): void {
    const taints = (node.spec?.taints ?? []).filter((t: KubeObject) => t.key !== UNREACHABLE_TAINT);
    try {
      this.objects.update(this.nodes, undefined, node.metadata.name, {
        ...node,
        spec: { ...node.spec, taints },
      });
    } catch (err) {
      if (!(err instanceof ApiError && (err.code === 409 || err.code === 404))) throw err;
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}

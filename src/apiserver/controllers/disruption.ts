// PodDisruptionBudgets and the Eviction API. Pods here are data (there is no kubelet), so a permitted
// eviction deletes the pod at once; a forbidden one is 429 TooManyRequests, exactly what kubectl drain
// and the rollout controller retry on. PDB status is kept current so `kubectl get pdb` tells the truth.

import { kubeTime } from '../../util/kube-time.ts';
import { ApiError, notFound } from '../errors.ts';
import type { ObjectService } from '../objects/object-service.ts';
import type { ResourceDefinition } from '../registry/resource-definition.ts';
import type { ResourceRegistry } from '../registry/resource-registry.ts';
import type { KubeObject, Store, StoreEvent } from '../storage/types.ts';
import { StoreController } from './store-controller.ts';

/** Matches a metav1.LabelSelector against labels; an empty selector matches everything. */
export type LabelSelectorMatcher = (
  selector: KubeObject | undefined,
  labels: Record<string, string>,
) => boolean;

export interface BudgetStatus {
  expectedPods: number;
  currentHealthy: number;
  desiredHealthy: number;
  disruptionsAllowed: number;
}

export function isPodHealthy(pod: KubeObject): boolean {
  if (pod.metadata?.deletionTimestamp !== undefined) return false;
  const conditions: KubeObject[] = pod.status?.conditions ?? [];
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

/** Resolves an int-or-percent against a total; percentages round up, as kube's intstr helpers do. */
export function scaledValue(value: number | string, total: number): number {
  if (typeof value === 'number') return value;
  const match = /^(\d+)%$/.exec(value);
  if (!match) return Number.parseInt(value, 10) || 0;
  return Math.ceil((Number(match[1]) * total) / 100);
}

/** The disruption controller's arithmetic over the pods a budget selects. */
export function budgetStatus(pdb: KubeObject, pods: KubeObject[]): BudgetStatus {
  const expectedPods = pods.length;
  const currentHealthy = pods.filter(isPodHealthy).length;
  const spec = pdb.spec ?? {};
  let desiredHealthy: number;
  if (spec.minAvailable !== undefined) {
    desiredHealthy = scaledValue(spec.minAvailable, expectedPods);
  } else if (spec.maxUnavailable !== undefined) {
    desiredHealthy = Math.max(0, expectedPods - scaledValue(spec.maxUnavailable, expectedPods));
  } else {
    desiredHealthy = 0;
  }
  return {
    expectedPods,
    currentHealthy,
    desiredHealthy,
    disruptionsAllowed: Math.max(0, currentHealthy - desiredHealthy),
  };
}

/**
 * kube's canIgnorePDB (pkg/registry/core/pod/storage/eviction.go): a terminal pod (Succeeded, Failed),
 * a Pending one and one already being deleted disrupt nothing more by going, so no budget is asked.
 */
export function canIgnorePDB(pod: KubeObject): boolean {
  const phase = pod.status?.phase;
  return (
    phase === 'Succeeded' ||
    phase === 'Failed' ||
    phase === 'Pending' ||
    pod.metadata?.deletionTimestamp !== undefined
  );
}

export class DisruptionController extends StoreController {
  private readonly matches: LabelSelectorMatcher;
  private readonly pods: ResourceDefinition;
  private readonly budgets: ResourceDefinition;

  constructor(
    store: Store,
    registry: ResourceRegistry,
    objects: ObjectService,
    matches: LabelSelectorMatcher,
  ) {
    super(store, objects);
    this.matches = matches;
    this.pods = registry.get('', 'v1', 'pods')!;
    this.budgets = registry.get('policy', 'v1', 'poddisruptionbudgets')!;
  }

  start(): void {
    for (const item of this.store.list('/policy/poddisruptionbudgets/').items) {
      const ns = item.object.metadata.namespace;
      this.queue.add(ns, () => this.refresh(ns));
    }
    this.followStore();
  }

  protected onEvent(event: StoreEvent): void {
    if (!event.key.startsWith('/core/pods/') && !event.key.startsWith('/policy/poddisruptionbudgets/'))
      return;
    const ns: string | undefined = event.object.metadata?.namespace;
    if (ns) this.queue.add(ns, () => this.refresh(ns));
  }

  private podsIn(namespace: string): KubeObject[] {
    return this.store.list(`/core/pods/${namespace}/`).items.map((i) => i.object);
  }

  private budgetsFor(pod: KubeObject): KubeObject[] {
    const labels = pod.metadata?.labels ?? {};
    return this.store
      .list(`/policy/poddisruptionbudgets/${pod.metadata.namespace}/`)
      .items.map((i) => i.object)
      .filter((pdb) => pdb.spec?.selector !== undefined && this.matches(pdb.spec.selector, labels));
  }

  /** Recomputes every budget's status in a namespace; writes only what changed. */
  private refresh(namespace: string): void {
    const pods = this.podsIn(namespace);
    for (const item of this.store.list(`/policy/poddisruptionbudgets/${namespace}/`).items) {
      const pdb = item.object;
      const selected = pods.filter(
        (p) => pdb.spec?.selector !== undefined && this.matches(pdb.spec.selector, p.metadata?.labels ?? {}),
      );
      const computed = budgetStatus(pdb, selected);
      const allowed = computed.disruptionsAllowed > 0;
      const previous = pdb.status ?? {};
      const conditionStatus = allowed ? 'True' : 'False';
      const priorCondition = (previous.conditions ?? []).find(
        (c: KubeObject) => c.type === 'DisruptionAllowed',
      );
      const status = {
        ...previous,
        observedGeneration: pdb.metadata.generation,
        ...computed,
        conditions: [
          {
            type: 'DisruptionAllowed',
            status: conditionStatus,
            reason: allowed ? 'SufficientPods' : 'InsufficientPods',
            message: '',
            observedGeneration: pdb.metadata.generation,
            lastTransitionTime:
              priorCondition?.status === conditionStatus ? priorCondition.lastTransitionTime : kubeTime(),
          },
        ],
      };
      if (JSON.stringify(status) === JSON.stringify(previous)) continue;
      try {
        this.objects.update(
          this.budgets,
          namespace,
          pdb.metadata.name,
          { ...pdb, status },
          { subresource: 'status' },
        );
      } catch (err) {
        if (err instanceof ApiError && (err.code === 404 || err.code === 409)) {
          this.queue.add(namespace, () => this.refresh(namespace));
          continue;
        }
        throw err;
      }
    }
  }

  /** POST pods/<name>/eviction. Returns the Status body of a permitted eviction. */
  evict(namespace: string, name: string, eviction: KubeObject): KubeObject {
    if (eviction.metadata?.name !== undefined && eviction.metadata.name !== name) {
      throw new ApiError(400, 'BadRequest', `name in URL does not match name in Eviction object`);
    }
    const pod = this.objects.tryGet(this.pods, namespace, name);
    if (!pod) throw notFound({ group: '', resource: 'pods', kind: 'Pod', name });
    const success = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
    const remove = () => {
      this.objects.delete(this.pods, namespace, name, eviction.deleteOptions ?? {});
      return success;
    };
    if (canIgnorePDB(pod)) return remove();
    const budgets = this.budgetsFor(pod);
    if (budgets.length === 0) return remove();
    if (budgets.length > 1) {
      throw new ApiError(
        500,
        'InternalError',
        'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
      );
    }
    const pdb = budgets[0]!;
    const selected = this.podsIn(namespace).filter((p) =>
      this.matches(pdb.spec.selector, p.metadata?.labels ?? {}),
    );
    const computed = budgetStatus(pdb, selected);
    const podHealthy = isPodHealthy(pod);
    // Unhealthy pods may go when the budget is met anyway (IfHealthyBudget) or always (AlwaysAllow).
    const unhealthyPolicy = pdb.spec?.unhealthyPodEvictionPolicy ?? 'IfHealthyBudget';
    if (
      !podHealthy &&
      (unhealthyPolicy === 'AlwaysAllow' || computed.currentHealthy >= computed.desiredHealthy)
    ) {
      return remove();
    }
    if (podHealthy && computed.disruptionsAllowed > 0) return remove();
    throw new ApiError(
      429,
      'TooManyRequests',
      "Cannot evict pod as it would violate the pod's disruption budget.",
      {
        causes: [
          {
            type: 'DisruptionBudget',
            message: `The disruption budget ${pdb.metadata.name} needs ${computed.desiredHealthy} healthy pods and has ${computed.currentHealthy} currently`,
          },
        ],
      },
    );
  }
}

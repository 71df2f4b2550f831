// kube-controller-manager's clusterrole-aggregation controller: a ClusterRole with an aggregationRule
// has as its `rules` the rules of every ClusterRole one of its clusterRoleSelectors matches (by labels;
// itself excluded), in name order and without repeats, rewritten whenever a ClusterRole changes. The
// RBAC authorizer reads `rules` only, so what `kubectl get clusterrole -o yaml` shows is what is granted.

import { jsonEqual } from '../../util/json-equal.ts';
import { RBAC_GROUP } from '../auth/rbac-authorizer.ts';
import { ApiError } from '../errors.ts';
import type { ObjectService } from '../objects/object-service.ts';
import type { ResourceDefinition } from '../registry/resource-definition.ts';
import type { ResourceRegistry } from '../registry/resource-registry.ts';
import { listPrefix, parseKey } from '../storage/keys.ts';
import type { KubeObject, Store, StoreEvent } from '../storage/types.ts';
import { StoreController } from './store-controller.ts';

export type LabelSelectorMatch = (
  selector: KubeObject | undefined,
  labels: Record<string, string>,
) => boolean;

/** The rules an aggregated ClusterRole has: those of the ClusterRoles its selectors match. */
export function aggregatedRules(
  role: KubeObject,
  all: readonly KubeObject[],
  matches: LabelSelectorMatch,
): unknown[] {
  const selectors: KubeObject[] = Array.isArray(role.aggregationRule?.clusterRoleSelectors)
    ? role.aggregationRule.clusterRoleSelectors
    : [];
  const rules: unknown[] = [];
  const sorted = [...all].sort((a, b) => String(a.metadata.name).localeCompare(String(b.metadata.name)));
  for (const other of sorted) {
    if (other.metadata.name === role.metadata.name) continue;
    const labels = (other.metadata.labels ?? {}) as Record<string, string>;
    if (!selectors.some((selector) => matches(selector, labels))) continue;
    for (const rule of Array.isArray(other.rules) ? other.rules : []) {
      if (!rules.some((seen) => jsonEqual(seen, rule))) rules.push(rule);
    }
  }
  return rules;
}

export class ClusterRoleAggregationController extends StoreController {
  private readonly clusterRoles: ResourceDefinition;
  private readonly matches: LabelSelectorMatch;

  constructor(store: Store, registry: ResourceRegistry, objects: ObjectService, matches: LabelSelectorMatch) {
    super(store, objects);
    this.matches = matches;
    this.clusterRoles = registry.get(RBAC_GROUP, 'v1', 'clusterroles')!;
  }

  start(): void {
    this.aggregate();
    this.followStore();
  }

  protected onEvent(event: StoreEvent): void {
    const key = parseKey(event.key);
    if (key?.group === RBAC_GROUP && key.resource === 'clusterroles') {
      this.queue.add('all', () => this.aggregate());
    }
  }

  private aggregate(): void {
    const all = this.store.list(listPrefix(RBAC_GROUP, 'clusterroles', undefined)).items.map((i) => i.object);
    for (const role of all) {
      if (!role.aggregationRule) continue;
      const rules = aggregatedRules(role, all, this.matches);
      if (jsonEqual(rules, role.rules ?? [])) continue;
      try {
        this.objects.update(this.clusterRoles, undefined, role.metadata.name, { ...role, rules });
      } catch (err) {
        // Changed or deleted meanwhile: its own event brings another pass.
        if (!(err instanceof ApiError && (err.code === 409 || err.code === 404))) throw err;
      }
    }
  }
}

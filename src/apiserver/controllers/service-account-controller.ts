// kube-controller-manager's serviceaccounts-controller: every namespace that is not terminating has a
// ServiceAccount named `default`, created when the namespace appears (and at start for namespaces that
// already exist) and re-created if someone deletes it.

import { ApiError } from '../errors.ts';
import type { ObjectService } from '../objects/object-service.ts';
import type { ResourceDefinition } from '../registry/resource-definition.ts';
import type { ResourceRegistry } from '../registry/resource-registry.ts';
import { parseKey } from '../storage/keys.ts';
import type { Store, StoreEvent } from '../storage/types.ts';
import { StoreController } from './store-controller.ts';

export const DEFAULT_SERVICE_ACCOUNT = 'default';

export class ServiceAccountController extends StoreController {
  private readonly namespaces: ResourceDefinition;
  private readonly serviceAccounts: ResourceDefinition;

  constructor(store: Store, registry: ResourceRegistry, objects: ObjectService) {
    super(store, objects);
    this.namespaces = registry.get('', 'v1', 'namespaces')!;
    this.serviceAccounts = registry.get('', 'v1', 'serviceaccounts')!;
  }

  start(): void {
    for (const item of this.store.list('/core/namespaces/').items) this.ensure(item.object.metadata.name);
    this.followStore();
  }

  protected onEvent(event: StoreEvent): void {
    const key = parseKey(event.key);
    if (key?.group !== '') return;
    if (key.resource === 'namespaces' && event.type !== 'DELETED') {
      this.queue.add(key.name, () => this.ensure(key.name));
    } else if (
      key.resource === 'serviceaccounts' &&
      event.type === 'DELETED' &&
      key.name === DEFAULT_SERVICE_ACCOUNT &&
      key.namespace !== undefined
    ) {
      const namespace = key.namespace;
      this.queue.add(namespace, () => this.ensure(namespace));
    }
  }

  private ensure(namespace: string): void {
    const ns = this.objects.tryGet(this.namespaces, undefined, namespace);
    if (!ns || ns.metadata.deletionTimestamp !== undefined) return;
    if (this.objects.tryGet(this.serviceAccounts, namespace, DEFAULT_SERVICE_ACCOUNT)) return;
    try {
      this.objects.create(this.serviceAccounts, namespace, { metadata: { name: DEFAULT_SERVICE_ACCOUNT } });
    } catch (err) {
      // Created meanwhile, or the namespace began terminating: nothing to do.
      if (!(err instanceof ApiError && (err.code === 409 || err.code === 403 || err.code === 404))) throw err;
    }
  }
}

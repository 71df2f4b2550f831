// Daemon pods and ControllerRevisions by the DaemonSet that controls them (namespace/name), kept from
// informer events, so a reconcile reads one DaemonSet's objects without scanning every pod.

import type { KubeObject } from '../../kube/types.ts';
import { controllingDaemonSet } from './daemonset-types.ts';

function keyOf(object: KubeObject): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
}

export class DaemonSetIndex<T extends KubeObject> {
  private readonly byOwner = new Map<string, Map<string, T>>();

  /** Applies an informer event; returns the DaemonSet keys the object belongs (or belonged) to. */
  apply(type: 'add' | 'update' | 'delete', object: T, old: T | undefined): string[] {
    const owners = new Set<string>();
    const before = old ? controllingDaemonSet(old) : undefined;
    const now = type === 'delete' ? undefined : controllingDaemonSet(object);
    if (before !== undefined && before !== now) {
      this.remove(before, old!);
      owners.add(before);
    }
    if (type === 'delete') {
      const owner = controllingDaemonSet(object);
      if (owner !== undefined) {
        this.remove(owner, object);
        owners.add(owner);
      }
    } else if (now !== undefined) {
      let items = this.byOwner.get(now);
      if (!items) {
        items = new Map();
        this.byOwner.set(now, items);
      }
      items.set(keyOf(object), object);
      owners.add(now);
    }
    return [...owners];
  }

  /** Replaces the content with a full list (after the informer synced). */
  reset(objects: readonly T[]): void {
    this.byOwner.clear();
    for (const object of objects) this.apply('add', object, undefined);
  }

  of(daemonSet: string): T[] {
    return [...(this.byOwner.get(daemonSet)?.values() ?? [])];
  }

  private remove(owner: string, object: T): void {
    const items = this.byOwner.get(owner);
    items?.delete(keyOf(object));
    if (items?.size === 0) this.byOwner.delete(owner);
  }
}

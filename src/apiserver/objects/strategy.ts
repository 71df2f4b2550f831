// Per-kind behaviour plugged into the generic object lifecycle: defaulting, validation and the few
// kind-specific rules (a namespace's phase, a CRD's conditions), and the lifecycle hooks a kind may add
// (what its own subresources write, what else keeps a deleted object). Mirrors kube's RESTCreateStrategy,
// RESTUpdateStrategy and RESTDeleteStrategy: the generic object code calls these and names no kind.

import type { StatusCause } from '../errors.ts';
import type { ResourceDefinition } from '../registry/resource-definition.ts';
import type { KubeObject } from '../storage/types.ts';

export interface StrategyContext {
  def: ResourceDefinition;
  /** 'create' | 'update' and whether the write targets the status subresource. */
  operation: 'create' | 'update';
  subresource: string | undefined;
}

export interface KindStrategy {
  /** Fill defaults and server-owned fields before validation. May mutate obj. */
  prepare?(obj: KubeObject, old: KubeObject | undefined, ctx: StrategyContext): void;
  /** Field causes for a 422 Invalid; empty when the object is acceptable. */
  validate?(obj: KubeObject, old: KubeObject | undefined, ctx: StrategyContext): StatusCause[];
  /**
   * This strategy's causes say better what earlier ones said of the same field (the profile's
   * validators beside the schema's generic messages): those earlier causes are dropped, so a field's
   * problem is reported once.
   */
  supersedesEarlierCauses?: boolean;
  /** Fields pruned as unknown (for fieldValidation Strict/Warn); may mutate obj. */
  prune?(obj: KubeObject, ctx: StrategyContext): string[];
  /**
   * The new state a write to one of the kind's own subresources makes from the stored object and the
   * request's (a Namespace's /finalize writes spec.finalizers only); undefined when it is not the kind's.
   */
  subresourceWrite?(subresource: string, old: KubeObject, incoming: KubeObject): KubeObject | undefined;
  /** Whether something besides metadata.finalizers keeps a deleted object (a Namespace's spec.finalizers). */
  blocksRemoval?(obj: KubeObject): boolean;
  /** Marks an object that deletion leaves waiting on its finalizers (a Namespace turns Terminating). */
  markDeleting?(obj: KubeObject): void;
}

export type StrategyLookup = (def: ResourceDefinition) => KindStrategy[];

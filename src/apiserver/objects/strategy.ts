// Per-kind behaviour plugged into the generic object lifecycle: defaulting, validation and the few
// kind-specific rules (a namespace's phase, a CRD's conditions). Mirrors kube's RESTCreateStrategy idea.

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
  /** Fields pruned as unknown (for fieldValidation Strict/Warn); may mutate obj. */
  prune?(obj: KubeObject, ctx: StrategyContext): string[];
}

export type StrategyLookup = (def: ResourceDefinition) => KindStrategy[];

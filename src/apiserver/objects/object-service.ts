// The generic object lifecycle of the API server: create, read, update, patch, apply and delete any
// resource with Kubernetes semantics (uid, generation, optimistic concurrency, status subresource,
// finalizers, deletionTimestamp, dry run). HTTP handlers and in-process controllers both go through it,
// so every write follows the same rules. This class is the face of objects/: each verb lives in its own
// file (create.ts, update.ts, patch.ts, apply.ts, delete.ts, list.ts) and knows no kind; what a kind
// adds comes in through its strategies (strategy.ts).

import type { ResourceDefinition } from '../registry/resource-definition.ts';
import type { KubeObject, Store } from '../storage/types.ts';
import { apply } from './apply.ts';
import type { ObjectContext } from './context.ts';
import { createObject } from './create.ts';
import { deleteCollection, deleteObject } from './delete.ts';
import { get, list, tryGet } from './list.ts';
import { patch } from './patch.ts';
import type { StrategyLookup } from './strategy.ts';
import type { ListPage, ListQuery, NameValidator, PatchApplier, WriteOptions, WriteResult } from './types.ts';
import { update } from './update.ts';

export { refOf } from './context.ts';
export type {
  AdmissionRequest,
  Admit,
  DeleteOptions,
  DeleteResult,
  ListPage,
  ListQuery,
  NameValidator,
  ObjectFilter,
  PatchApplier,
  WriteOptions,
  WriteResult,
} from './types.ts';

export interface ObjectServiceOptions {
  store: Store;
  strategies: StrategyLookup;
  applyPatch: PatchApplier;
  validateName: NameValidator;
  /** Decides whether a namespace accepts new objects; throws ApiError when it does not. */
  admitNamespace?: (namespace: string) => void;
  now?: () => Date;
}

/** A verb of objects/ without its first parameter, the context the service supplies. */
type WithoutContext<F> = F extends (ctx: ObjectContext, ...args: infer A) => infer R
  ? (...args: A) => R
  : never;

export class ObjectService {
  private readonly ctx: ObjectContext;

  constructor(options: ObjectServiceOptions) {
    this.ctx = {
      store: options.store,
      strategies: options.strategies,
      patcher: options.applyPatch,
      nameValidator: options.validateName,
      admitNamespace: options.admitNamespace,
      now: options.now ?? (() => new Date()),
    };
  }

  get(def: ResourceDefinition, namespace: string | undefined, name: string): KubeObject {
    return get(this.ctx, def, namespace, name);
  }

  /** Reads without throwing; in-process controllers use it. */
  tryGet(def: ResourceDefinition, namespace: string | undefined, name: string): KubeObject | undefined {
    return tryGet(this.ctx, def, namespace, name);
  }

  list(def: ResourceDefinition, namespace: string | undefined, query: ListQuery = {}): ListPage {
    return list(this.ctx, def, namespace, query);
  }

  create(
    def: ResourceDefinition,
    namespace: string | undefined,
    body: KubeObject,
    options: WriteOptions = {},
  ): WriteResult {
    return createObject(this.ctx, def, namespace, body, options);
  }

  // The verbs below are their files' functions with this service's context: their parameters are
  // declared once, there.

  /**
   * Replaces an object. With a status subresource, main-resource writes keep the stored status and
   * /status writes keep everything but status.
   */
  readonly update: WithoutContext<typeof update> = (...args) => update(this.ctx, ...args);

  /** Server-side apply of `config` by `options.fieldManager` (apply.ts). */
  readonly apply: WithoutContext<typeof apply> = (...args) => apply(this.ctx, ...args);

  /** Applies a patch to the stored object and writes it (patch.ts). */
  readonly patch: WithoutContext<typeof patch> = (...args) => patch(this.ctx, ...args);

  readonly delete: WithoutContext<typeof deleteObject> = (...args) => deleteObject(this.ctx, ...args);

  /** Deletes every object a list would return; finalizers are honoured per object. */
  readonly deleteCollection: WithoutContext<typeof deleteCollection> = (...args) =>
    deleteCollection(this.ctx, ...args);
}

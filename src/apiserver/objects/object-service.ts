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
import type {
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

  /**
   * Replaces an object. With a status subresource, main-resource writes keep the stored status and
   * /status writes keep everything but status.
   */
  update(
    def: ResourceDefinition,
    namespace: string | undefined,
    name: string,
    body: KubeObject,
    options: WriteOptions = {},
  ): WriteResult {
    return update(this.ctx, def, namespace, name, body, options);
  }

  /** Server-side apply of `config` by `options.fieldManager` (apply.ts). */
  apply(
    def: ResourceDefinition,
    namespace: string | undefined,
    name: string,
    config: KubeObject,
    options: WriteOptions,
  ): WriteResult {
    return apply(this.ctx, def, namespace, name, config, options);
  }

  /** Applies a patch to the stored object and writes it (patch.ts). */
  patch(
    def: ResourceDefinition,
    namespace: string | undefined,
    name: string,
    contentType: string,
    body: Buffer,
    options: WriteOptions = {},
  ): WriteResult {
    return patch(this.ctx, def, namespace, name, contentType, body, options);
  }

  delete(
    def: ResourceDefinition,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions = {},
  ): DeleteResult {
    return deleteObject(this.ctx, def, namespace, name, options);
  }

  /** Deletes every object a list would return; finalizers are honoured per object. */
  deleteCollection(
    def: ResourceDefinition,
    namespace: string | undefined,
    filter: ObjectFilter | undefined,
    options: DeleteOptions = {},
  ): KubeObject[] {
    return deleteCollection(this.ctx, def, namespace, filter, options);
  }
}

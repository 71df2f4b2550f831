// The generic object lifecycle of the API server: create, read, update, patch and delete any resource
// with Kubernetes semantics (uid, generation, optimistic concurrency, status subresource, finalizers,
// deletionTimestamp, dry run). HTTP handlers and in-process controllers both go through it, so every
// write follows the same rules.

import { randomUUID } from 'node:crypto';
import { jsonEqual } from '../../util/json-equal.ts';
import { kubeTime } from '../../util/kube-time.ts';
import {
  ApiError,
  alreadyExists,
  badRequest,
  conflict,
  invalid,
  notFound,
  objectTooLarge,
  type StatusCause,
} from '../errors.ts';
import { assertJsonDepth } from '../json-depth.ts';
import type { FieldSet } from '../managedfields/field-set.ts';
import {
  type ApplyPlan,
  LAST_APPLIED_ANNOTATION,
  lastAppliedFields,
  lastAppliedValue,
  type Manager,
  managersForApply,
  planApply,
  recordApply,
} from '../managedfields/managers.ts';
import { mergeApplied, removeFields } from '../managedfields/structured-merge.ts';
import type { ResourceDefinition } from '../registry/resource-definition.ts';
import { apiVersionOf } from '../registry/resource-definition.ts';
import { validateAnnotations, validateLabels } from '../schema/names.ts';
import { cloneJson } from '../storage/json-clone.ts';
import { listPrefix, objectKey } from '../storage/keys.ts';
import {
  type KubeObject,
  type Store,
  StoreConflictError,
  type StoredItem,
  StoreExistsError,
  StoreExpiredError,
  StoreNotFoundError,
  StoreTooLargeError,
} from '../storage/types.ts';
import {
  DEFAULT_FIELD_MANAGER,
  fieldTypeOf,
  recordUpdateOwnership,
  setManagedFields,
  storedManagers,
  writeScope,
} from './field-management.ts';
import type { KindStrategy, StrategyContext, StrategyLookup } from './strategy.ts';

export type ObjectFilter = (object: KubeObject) => boolean;

/** A write as admission sees it: after defaulting and validation, before it is stored. */
export interface AdmissionRequest {
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  def: ResourceDefinition;
  subresource: string | undefined;
  namespace: string | undefined;
  object: KubeObject | undefined;
  oldObject: KubeObject | undefined;
}

/** Throws (an ApiError, usually 403) to refuse a write; runs on dry runs too, as kube's admission does. */
export type Admit = (request: AdmissionRequest) => void;

export interface WriteOptions {
  dryRun?: boolean;
  admit?: Admit;
  /** Strict rejects unknown fields, Warn reports them, Ignore (default) drops them silently. */
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  subresource?: string | undefined;
  /** Who makes the write (recorded in metadata.managedFields); in-process writes default to the server. */
  fieldManager?: string | undefined;
  /** Server-side apply only: take over fields other managers own instead of failing with a conflict. */
  force?: boolean;
}

/** What a server-side apply adds to a write: the ownership plan, checked once the new state is final. */
interface ApplyOwnership {
  managers: Manager[];
  plan: ApplyPlan;
  force: boolean;
  /** Fields kubectl may take over from its client-side apply without force. */
  allowed?: FieldSet | undefined;
  /** A last-applied-configuration annotation to keep in step (kubectl's server-side apply). */
  lastApplied?: string | undefined;
}

export interface WriteResult {
  object: KubeObject;
  warnings: string[];
  /** A server-side apply created the object (answered 201). */
  created?: boolean;
}

export interface DeleteOptions {
  dryRun?: boolean;
  admit?: Admit;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
}

export interface DeleteResult {
  object: KubeObject;
  /** False when finalizers keep the object around with a deletionTimestamp. */
  deleted: boolean;
}

export interface ListQuery {
  filter?: ObjectFilter;
  /** The name a field selector pins (metadata.name=X): read one key instead of scanning. */
  name?: string;
  limit?: number;
  continueToken?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

export interface ListPage {
  items: KubeObject[];
  resourceVersion: string;
  continueToken?: string;
}

/** Patch application is injected so this file stays about lifecycle, not patch formats. */
export type PatchApplier = (
  contentType: string,
  current: KubeObject,
  patch: Buffer,
  def: ResourceDefinition,
) => KubeObject;

export type NameValidator = (def: ResourceDefinition, name: string) => string | undefined;

export interface ObjectServiceOptions {
  store: Store;
  strategies: StrategyLookup;
  applyPatch: PatchApplier;
  validateName: NameValidator;
  /** Decides whether a namespace accepts new objects; throws ApiError when it does not. */
  admitNamespace?: (namespace: string) => void;
  now?: () => Date;
}

const PATCH_RETRIES = 5;
/** Random suffix alphabet used by kube for generateName (no vowels, no look-alikes). */
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export function refOf(def: ResourceDefinition, name: string) {
  return { group: def.group, resource: def.resource, kind: def.kind, name };
}

/** A private copy of a JSON value (a request body, or a frozen object of the store) to change. */
function clone<T>(value: T): T {
  return cloneJson(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep equality for JSON values; used to decide whether a write changed anything outside metadata. */

/**
 * Empty metadata maps and lists are not kept: kube round-trips metadata through its Go type, whose
 * omitempty fields drop them (otherwise `annotations: {}` from a patch shows up in kubectl diff).
 */
function dropEmptyMetadata(meta: KubeObject): void {
  for (const field of ['labels', 'annotations', 'finalizers', 'ownerReferences']) {
    const value = meta[field];
    if (
      (Array.isArray(value) && value.length === 0) ||
      (isPlainObject(value) && Object.keys(value).length === 0)
    ) {
      delete meta[field];
    }
  }
}

function withoutKeys(obj: KubeObject, keys: string[]): KubeObject {
  const copy: KubeObject = { ...obj };
  for (const k of keys) delete copy[k];
  return copy;
}

interface ContinueToken {
  rv: number;
  key: string;
}

function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify(token)).toString('base64url');
}

function decodeContinue(raw: string): ContinueToken {
  try {
    const parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (typeof parsed?.rv === 'number' && typeof parsed?.key === 'string') return parsed;
  } catch {
    // fall through to the error below
  }
  throw badRequest('continue key is not valid: malformed continue token');
}

/** Where a resource's objects are kept: its own key space, or the one it is a view over. */
function storageOf(def: ResourceDefinition): ResourceDefinition {
  return def.storedAs?.def ?? def;
}

export class ObjectService {
  private readonly store: Store;
  private readonly strategies: StrategyLookup;
  private readonly patcher: PatchApplier;
  private readonly nameValidator: NameValidator;
  private readonly admitNamespace: ((namespace: string) => void) | undefined;
  private readonly now: () => Date;

  constructor(options: ObjectServiceOptions) {
    this.store = options.store;
    this.strategies = options.strategies;
    this.patcher = options.applyPatch;
    this.nameValidator = options.validateName;
    this.admitNamespace = options.admitNamespace;
    this.now = options.now ?? (() => new Date());
  }

  private timestamp(): string {
    return kubeTime(this.now().getTime());
  }

  /**
   * The object as the client of `def` sees it. Objects of the store are frozen and shared (types.ts):
   * one that already reads as `def` is answered as it is, anything else is a new object.
   */
  private present(def: ResourceDefinition, stored: KubeObject): KubeObject {
    const apiVersion = apiVersionOf(def);
    if (def.storedAs && stored.apiVersion !== apiVersion) {
      // A view over another resource's storage converts (once: an object already in the view's form stays).
      const object = def.storedAs.fromStorage(stored);
      object.apiVersion = apiVersion;
      object.kind = def.kind;
      return object;
    }
    if (stored.apiVersion === apiVersion && stored.kind === def.kind) return stored;
    // Served versions share storage without conversion: report the version the client asked for.
    return { ...stored, apiVersion, kind: def.kind };
  }

  private readItem(def: ResourceDefinition, namespace: string | undefined, name: string): StoredItem {
    const keyed = storageOf(def);
    const item = this.store.get(
      objectKey(keyed.group, keyed.resource, def.namespaced ? namespace : undefined, name),
    );
    if (!item) throw notFound(refOf(def, name));
    return item;
  }

  private viewResult(def: ResourceDefinition, result: WriteResult): WriteResult {
    return { ...result, object: this.present(def, result.object) };
  }

  get(def: ResourceDefinition, namespace: string | undefined, name: string): KubeObject {
    return this.present(def, this.readItem(def, namespace, name).object);
  }

  /** Reads without throwing; in-process controllers use it. */
  tryGet(def: ResourceDefinition, namespace: string | undefined, name: string): KubeObject | undefined {
    const keyed = storageOf(def);
    const item = this.store.get(
      objectKey(keyed.group, keyed.resource, def.namespaced ? namespace : undefined, name),
    );
    return item ? this.present(def, item.object) : undefined;
  }

  list(def: ResourceDefinition, namespace: string | undefined, query: ListQuery = {}): ListPage {
    const keyed = storageOf(def);
    const prefix = listPrefix(keyed.group, keyed.resource, def.namespaced ? namespace : '');
    const limit = query.limit && query.limit > 0 ? query.limit : undefined;
    let atRevision: number | undefined;
    let afterKey: string | undefined;
    if (query.continueToken) {
      const token = decodeContinue(query.continueToken);
      atRevision = token.rv;
      afterKey = token.key;
    } else if (
      query.resourceVersion &&
      query.resourceVersion !== '0' &&
      query.resourceVersionMatch === 'Exact'
    ) {
      if (!/^\d+$/.test(query.resourceVersion)) {
        throw badRequest(
          `resourceVersion: Invalid value: "${query.resourceVersion}": must be a non-negative integer`,
        );
      }
      atRevision = Number(query.resourceVersion);
    }
    // Every node agent lists its own Node by name: answer from one key, not a scan of all nodes.
    const oneKey =
      query.name !== undefined && atRevision === undefined && (!def.namespaced || namespace !== undefined);
    if (oneKey) {
      const item = this.store.get(
        objectKey(keyed.group, keyed.resource, def.namespaced ? namespace : undefined, query.name!),
      );
      const shown = item ? this.present(def, item.object) : undefined;
      const items = shown && (!query.filter || query.filter(shown)) ? [shown] : [];
      return { items, resourceVersion: String(this.store.currentRevision()) };
    }
    if (atRevision !== undefined && atRevision > this.store.currentRevision()) {
      throw new ApiError(
        504,
        'Timeout',
        `Too large resource version: ${atRevision}, current: ${this.store.currentRevision()}`,
        {
          retryAfterSeconds: 1,
        },
      );
    }

    const items: KubeObject[] = [];
    let revision = atRevision ?? this.store.currentRevision();
    let lastKey: string | undefined = afterKey;
    let more = false;
    try {
      // Filters apply after paging, as in kube: keep reading until the page is full or keys run out.
      for (;;) {
        const chunkSize = limit ? Math.max(limit - items.length, 1) * (query.filter ? 4 : 1) : undefined;
        const page = this.store.list(prefix, {
          ...(lastKey !== undefined ? { afterKey: lastKey } : {}),
          ...(chunkSize !== undefined ? { limit: chunkSize } : {}),
          atRevision: revision,
        });
        revision = page.revision;
        let stoppedEarly = false;
        for (const item of page.items) {
          if (limit && items.length >= limit) {
            stoppedEarly = true;
            break;
          }
          lastKey = item.key;
          const shown = this.present(def, item.object);
          if (!query.filter || query.filter(shown)) items.push(shown);
        }
        if (stoppedEarly) {
          more = true;
          break;
        }
        if (!page.more) break;
        if (limit && items.length >= limit) {
          more = true;
          break;
        }
      }
    } catch (err) {
      if (err instanceof StoreExpiredError) {
        throw new ApiError(
          410,
          'Expired',
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
        );
      }
      throw err;
    }
    const result: ListPage = { items, resourceVersion: String(revision) };
    if (more && lastKey !== undefined) {
      result.continueToken = encodeContinue({ rv: revision, key: lastKey });
    }
    return result;
  }

  private strategyContext(def: ResourceDefinition, operation: 'create' | 'update', subresource?: string) {
    return { def, operation, subresource } satisfies StrategyContext;
  }

  private runStrategies(
    strategies: KindStrategy[],
    obj: KubeObject,
    old: KubeObject | undefined,
    ctx: StrategyContext,
    fieldValidation: WriteOptions['fieldValidation'],
  ): { causes: StatusCause[]; warnings: string[] } {
    const warnings: string[] = [];
    for (const s of strategies) {
      const pruned = s.prune?.(obj, ctx) ?? [];
      if (pruned.length > 0) {
        if (fieldValidation === 'Strict') {
          throw badRequest(`strict decoding error: ${pruned.map((p) => `unknown field "${p}"`).join(', ')}`);
        }
        if (fieldValidation === 'Warn') warnings.push(...pruned.map((p) => `unknown field "${p}"`));
      }
    }
    for (const s of strategies) s.prepare?.(obj, old, ctx);
    const causes: StatusCause[] = [];
    for (const s of strategies) causes.push(...(s.validate?.(obj, old, ctx) ?? []));
    return { causes, warnings };
  }

  private checkTypeMeta(def: ResourceDefinition, body: KubeObject): void {
    if (!isPlainObject(body)) throw badRequest('the body of the request was not a JSON object');
    const expectedVersion = apiVersionOf(def);
    if (body.apiVersion !== undefined && body.apiVersion !== '' && body.apiVersion !== expectedVersion) {
      // kube accepts other served versions of the same group; we serve without conversion so insist on the URL's.
      const sameGroup =
        typeof body.apiVersion === 'string' &&
        (def.group === '' ? !body.apiVersion.includes('/') : body.apiVersion.startsWith(`${def.group}/`));
      if (!sameGroup) {
        throw badRequest(
          `the API version in the data (${body.apiVersion}) does not match the expected API version (${expectedVersion})`,
        );
      }
    }
    if (body.kind !== undefined && body.kind !== '' && body.kind !== def.kind) {
      throw badRequest(
        `the kind in the data (${String(body.kind)}) does not match the expected kind (${def.kind})`,
      );
    }
    if (body.metadata !== undefined && !isPlainObject(body.metadata)) {
      throw badRequest('metadata: must be an object');
    }
  }

  private checkMetadata(def: ResourceDefinition, meta: KubeObject): StatusCause[] {
    const causes: StatusCause[] = [];
    const name = meta.name;
    if (typeof name !== 'string' || name === '') {
      causes.push({
        type: 'FieldValueRequired',
        field: 'metadata.name',
        message: 'Required value: name or generateName is required',
      });
    } else {
      const problem = this.nameValidator(def, name);
      if (problem)
        causes.push({
          type: 'FieldValueInvalid',
          field: 'metadata.name',
          message: `Invalid value: "${name}": ${problem}`,
        });
    }
    for (const field of ['labels', 'annotations'] as const) {
      const value = meta[field];
      if (value === undefined || value === null) continue;
      if (!isPlainObject(value) || Object.values(value).some((v) => typeof v !== 'string')) {
        causes.push({
          type: 'FieldValueTypeInvalid',
          field: `metadata.${field}`,
          message: 'must be a map of string to string',
        });
      } else if (field === 'labels') {
        // Keys are qualified names, values label values (kube's ValidateLabels).
        causes.push(...validateLabels(value, 'metadata.labels'));
      } else {
        causes.push(...validateAnnotations(value, 'metadata.annotations'));
      }
    }
    if (meta.finalizers !== undefined && meta.finalizers !== null) {
      if (
        !Array.isArray(meta.finalizers) ||
        meta.finalizers.some((f: unknown) => typeof f !== 'string' || f === '')
      ) {
        causes.push({
          type: 'FieldValueInvalid',
          field: 'metadata.finalizers',
          message: 'must be a list of non-empty strings',
        });
      }
    }
    if (meta.ownerReferences !== undefined && meta.ownerReferences !== null) {
      if (!Array.isArray(meta.ownerReferences)) {
        causes.push({
          type: 'FieldValueTypeInvalid',
          field: 'metadata.ownerReferences',
          message: 'must be a list',
        });
      } else {
        meta.ownerReferences.forEach((ref: unknown, i: number) => {
          const r = ref as KubeObject;
          for (const f of ['apiVersion', 'kind', 'name', 'uid']) {
            if (!isPlainObject(r) || typeof r[f] !== 'string' || r[f] === '') {
              causes.push({
                type: 'FieldValueRequired',
                field: `metadata.ownerReferences[${i}].${f}`,
                message: 'Required value',
              });
            }
          }
        });
      }
    }
    return causes;
  }

  create(
    def: ResourceDefinition,
    namespace: string | undefined,
    body: KubeObject,
    options: WriteOptions = {},
  ): WriteResult {
    return this.createObject(def, namespace, body, options);
  }

  private createObject(
    def: ResourceDefinition,
    namespace: string | undefined,
    body: KubeObject,
    options: WriteOptions,
    apply?: ApplyOwnership,
  ): WriteResult {
    this.checkTypeMeta(def, body);
    if (def.storedAs) {
      const view = def.storedAs;
      return this.viewResult(def, this.create(view.def, namespace, view.toStorage(body), options));
    }
    const obj = clone(body);
    const meta: KubeObject = isPlainObject(obj.metadata) ? obj.metadata : {};
    obj.metadata = meta;
    const requestedManagedFields = meta.managedFields;
    dropEmptyMetadata(meta);
    if (def.namespaced) {
      if (
        meta.namespace !== undefined &&
        meta.namespace !== '' &&
        namespace !== undefined &&
        meta.namespace !== namespace
      ) {
        throw badRequest(
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      }
      const ns = namespace ?? meta.namespace;
      if (!ns) throw badRequest('the server could not find the requested resource: a namespace is required');
      meta.namespace = ns;
    } else {
      delete meta.namespace;
    }
    if (meta.resourceVersion !== undefined && meta.resourceVersion !== '') {
      throw badRequest('resourceVersion should not be set on objects to be created');
    }
    if (
      (!meta.name || meta.name === '') &&
      typeof meta.generateName === 'string' &&
      meta.generateName !== ''
    ) {
      let suffix = '';
      for (let i = 0; i < 5; i++) suffix += NAME_ALPHABET[Math.floor(Math.random() * NAME_ALPHABET.length)];
      meta.name = `${meta.generateName}${suffix}`;
    }
    meta.uid = randomUUID();
    meta.creationTimestamp = this.timestamp();
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.resourceVersion;
    delete meta.managedFields;
    if (def.tracksGeneration) meta.generation = 1;
    else delete meta.generation;
    // A status subresource means status is written only through /status; kube drops it on create for CRs.
    if (def.subresources.status && !def.builtin) delete obj.status;
    obj.apiVersion = apiVersionOf(def);
    obj.kind = def.kind;

    const ctx = this.strategyContext(def, 'create');
    const { causes, warnings } = this.runStrategies(
      this.strategies(def),
      obj,
      undefined,
      ctx,
      options.fieldValidation,
    );
    causes.unshift(...this.checkMetadata(def, meta));
    if (causes.length > 0) throw invalid(refOf(def, String(meta.name ?? '')), causes);
    if (def.namespaced && this.admitNamespace) this.admitNamespace(meta.namespace);
    this.recordOwnership(def, undefined, requestedManagedFields, obj, options, apply);
    options.admit?.({
      operation: 'CREATE',
      def,
      subresource: undefined,
      namespace: meta.namespace,
      object: obj,
      oldObject: undefined,
    });

    const key = objectKey(def.group, def.resource, def.namespaced ? meta.namespace : undefined, meta.name);
    if (options.dryRun) {
      if (this.store.get(key)) throw alreadyExists(refOf(def, meta.name));
      return { object: this.present(def, obj), warnings };
    }
    try {
      return { object: this.present(def, this.store.create(key, obj).object), warnings };
    } catch (err) {
      throw this.translateStoreError(err, def, meta.name);
    }
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
    this.checkTypeMeta(def, body);
    if (def.storedAs) {
      const view = def.storedAs;
      return this.viewResult(def, this.update(view.def, namespace, name, view.toStorage(body), options));
    }
    const meta: KubeObject = isPlainObject(body.metadata) ? body.metadata : {};
    if (meta.name !== undefined && meta.name !== name) {
      throw badRequest(
        `the name of the object (${String(meta.name)}) does not match the name on the URL (${name})`,
      );
    }
    if (
      def.namespaced &&
      meta.namespace !== undefined &&
      meta.namespace !== '' &&
      meta.namespace !== namespace
    ) {
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    const requestedRv = meta.resourceVersion;
    if ((requestedRv === undefined || requestedRv === '') && !def.builtin) {
      throw invalid(refOf(def, name), [
        {
          type: 'FieldValueInvalid',
          field: 'metadata.resourceVersion',
          message: 'Invalid value: 0x0: must be specified for an update',
        },
      ]);
    }
    const current = this.readItem(def, namespace, name);
    if (requestedRv !== undefined && requestedRv !== '' && String(requestedRv) !== String(current.revision)) {
      throw conflict(refOf(def, name));
    }
    return this.writeUpdate(def, current, clone(body), options);
  }

  /** Applies the new state on top of the stored one with every lifecycle rule, then compare-and-swaps. */
  private writeUpdate(
    def: ResourceDefinition,
    current: StoredItem,
    incoming: KubeObject,
    options: WriteOptions,
    apply?: ApplyOwnership,
  ): WriteResult {
    const old = current.object;
    const requestedManagedFields = isPlainObject(incoming.metadata)
      ? incoming.metadata.managedFields
      : undefined;
    const oldMeta: KubeObject = old.metadata;
    const statusWrite = options.subresource === 'status';
    let obj: KubeObject;
    if (statusWrite) {
      obj = clone(old);
      if (incoming.status === undefined) delete obj.status;
      else obj.status = incoming.status;
    } else if (options.subresource === 'finalize') {
      // A namespace's /finalize writes spec.finalizers and nothing else.
      obj = clone(old);
      obj.spec = { ...(obj.spec ?? {}), finalizers: incoming.spec?.finalizers ?? [] };
    } else {
      obj = incoming;
      if (def.subresources.status) {
        if (old.status === undefined) delete obj.status;
        else obj.status = clone(old.status);
      }
    }
    const meta: KubeObject = isPlainObject(obj.metadata) ? obj.metadata : {};
    obj.metadata = meta;
    // Server-owned metadata cannot be changed by clients.
    meta.name = oldMeta.name;
    if (def.namespaced) meta.namespace = oldMeta.namespace;
    else delete meta.namespace;
    meta.uid = oldMeta.uid;
    meta.creationTimestamp = oldMeta.creationTimestamp;
    if (oldMeta.deletionTimestamp !== undefined) {
      meta.deletionTimestamp = oldMeta.deletionTimestamp;
      if (oldMeta.deletionGracePeriodSeconds !== undefined)
        meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
    } else {
      delete meta.deletionTimestamp;
      delete meta.deletionGracePeriodSeconds;
    }
    delete meta.resourceVersion;
    delete meta.managedFields;
    dropEmptyMetadata(meta);
    if (def.tracksGeneration) meta.generation = oldMeta.generation ?? 1;
    else delete meta.generation;
    obj.apiVersion = apiVersionOf(def);
    obj.kind = def.kind;

    const ctx = this.strategyContext(def, 'update', options.subresource);
    const { causes, warnings } = this.runStrategies(
      this.strategies(def),
      obj,
      old,
      ctx,
      options.fieldValidation,
    );
    causes.unshift(...this.checkMetadata(def, meta).filter((c) => c.field !== 'metadata.name'));
    if (oldMeta.deletionTimestamp !== undefined) {
      const before = new Set<string>(oldMeta.finalizers ?? []);
      const added = (meta.finalizers ?? []).filter((f: string) => !before.has(f));
      if (added.length > 0) {
        causes.push({
          type: 'FieldValueForbidden',
          field: 'metadata.finalizers',
          message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
        });
      }
    }
    if (causes.length > 0) throw invalid(refOf(def, oldMeta.name), causes);
    this.recordOwnership(def, old, requestedManagedFields, obj, options, apply);
    options.admit?.({
      operation: 'UPDATE',
      def,
      subresource: options.subresource,
      namespace: oldMeta.namespace,
      object: obj,
      oldObject: old,
    });

    if (def.tracksGeneration) {
      const ignored = def.subresources.status
        ? ['metadata', 'status', 'apiVersion', 'kind']
        : ['metadata', 'apiVersion', 'kind'];
      if (!jsonEqual(withoutKeys(obj, ignored), withoutKeys(old, ignored)))
        meta.generation = (oldMeta.generation ?? 1) + 1;
    }

    // The stored object carries its resourceVersion; the new state never does, so compare without it.
    const unchanged = jsonEqual(withoutKeys(obj, ['apiVersion', 'kind']), {
      ...withoutKeys(old, ['apiVersion', 'kind']),
      metadata: withoutKeys(oldMeta, ['resourceVersion']),
    });
    const finalized =
      oldMeta.deletionTimestamp !== undefined &&
      (meta.finalizers ?? []).length === 0 &&
      !this.hasSpecFinalizers(obj);
    if (options.dryRun) {
      // kube answers a dry-run update with the object's current resourceVersion (kubectl diff relies on it).
      meta.resourceVersion = String(current.revision);
      return { object: this.present(def, obj), warnings };
    }
    if (finalized) {
      // The last finalizer is gone: the object disappears now.
      try {
        const gone = this.store.delete(current.key, current.revision);
        return { object: this.present(def, gone.object), warnings };
      } catch (err) {
        throw this.translateStoreError(err, def, oldMeta.name);
      }
    }
    // A no-op write keeps the resourceVersion, as kube does; watchers see nothing.
    if (unchanged) return { object: this.present(def, old), warnings };
    try {
      return {
        object: this.present(def, this.store.update(current.key, current.revision, obj).object),
        warnings,
      };
    } catch (err) {
      throw this.translateStoreError(err, def, oldMeta.name);
    }
  }

  /** Fills metadata.managedFields of the object about to be written: an Update by the writer, or an Apply. */
  private recordOwnership(
    def: ResourceDefinition,
    live: KubeObject | undefined,
    requested: unknown,
    obj: KubeObject,
    options: WriteOptions,
    apply: ApplyOwnership | undefined,
  ): void {
    const scope = writeScope(def, options.subresource, this.timestamp());
    if (!apply) {
      recordUpdateOwnership(live, requested, obj, options.fieldManager || DEFAULT_FIELD_MANAGER, scope);
      return;
    }
    const managers = recordApply(
      live ?? {},
      obj,
      apply.managers,
      apply.plan,
      apply.force,
      scope,
      apply.allowed,
    );
    setManagedFields(obj, managers);
    if (
      apply.lastApplied !== undefined &&
      obj.metadata.annotations?.[LAST_APPLIED_ANNOTATION] !== undefined
    ) {
      obj.metadata.annotations[LAST_APPLIED_ANNOTATION] = apply.lastApplied;
    }
  }

  /**
   * Server-side apply of `config` (an object decoded from application/apply-patch+yaml) by
   * `options.fieldManager`: merged into the live object per its schema, fields the manager no longer
   * applies removed unless others own them, conflicts with other managers refused unless forced. An
   * object that does not exist is created from the configuration, as kube does.
   */
  apply(
    def: ResourceDefinition,
    namespace: string | undefined,
    name: string,
    config: KubeObject,
    options: WriteOptions,
  ): WriteResult {
    const manager = options.fieldManager ?? '';
    const meta: KubeObject = isPlainObject(config.metadata) ? config.metadata : {};
    if (meta.managedFields !== undefined && meta.managedFields !== null) {
      throw badRequest('metadata.managedFields must be nil');
    }
    const expectedVersion = apiVersionOf(def);
    if (
      typeof config.apiVersion === 'string' &&
      config.apiVersion !== '' &&
      config.apiVersion !== expectedVersion
    ) {
      throw badRequest(
        `Incorrect version specified in apply patch. Specified patch version: ${config.apiVersion}, expected: ${expectedVersion}`,
      );
    }
    if (meta.name !== undefined && meta.name !== name) {
      throw badRequest(
        `the name of the object (${String(meta.name)}) does not match the name on the URL (${name})`,
      );
    }
    this.checkTypeMeta(def, config);
    for (let attempt = 0; ; attempt++) {
      const key = objectKey(def.group, def.resource, def.namespaced ? namespace : undefined, name);
      const current = this.store.get(key);
      const scope = writeScope(def, options.subresource, this.timestamp());
      const type = fieldTypeOf(def);
      if (!current) {
        if (options.subresource) throw notFound(refOf(def, name));
        const plan = planApply(config, [], manager, scope);
        const body = mergeApplied({}, config, type) as KubeObject;
        body.metadata = { ...(body.metadata ?? {}), name };
        delete body.metadata.resourceVersion;
        try {
          const created = this.createObject(def, namespace, body, options, {
            managers: [],
            plan,
            force: options.force === true,
          });
          return { ...created, created: true };
        } catch (err) {
          // Someone created it meanwhile: apply to theirs.
          if (err instanceof ApiError && err.reason === 'AlreadyExists' && attempt < PATCH_RETRIES) continue;
          throw err;
        }
      }
      // The merge below shares parts of the live object with its result, which the write then changes.
      const live = clone(current.object);
      const pinned = meta.resourceVersion;
      if (pinned !== undefined && pinned !== '' && String(pinned) !== String(current.revision)) {
        throw conflict(refOf(def, name));
      }
      const managers = managersForApply(live, storedManagers(live), scope);
      const plan = planApply(config, managers, manager, scope);
      const merged = removeFields(
        mergeApplied(live, config, type),
        plan.released,
        plan.kept,
        type,
      ) as KubeObject;
      delete merged.metadata?.resourceVersion;
      const kubectl = manager === 'kubectl';
      const ownership: ApplyOwnership = {
        managers,
        plan,
        force: options.force === true,
        allowed: kubectl ? lastAppliedFields(live, scope) : undefined,
        lastApplied: kubectl ? lastAppliedValue(config) : undefined,
      };
      try {
        return this.writeUpdate(def, current, merged, options, ownership);
      } catch (err) {
        const retriable = err instanceof ApiError && err.reason === 'Conflict' && !err.details?.causes;
        if (!retriable || pinned !== undefined || attempt >= PATCH_RETRIES) throw err;
      }
    }
  }

  /** Namespaces carry their lifecycle finalizers in spec.finalizers; they block removal like metadata ones. */
  private hasSpecFinalizers(obj: KubeObject): boolean {
    return obj.kind === 'Namespace' && Array.isArray(obj.spec?.finalizers) && obj.spec.finalizers.length > 0;
  }

  private translateStoreError(err: unknown, def: ResourceDefinition, name: string): unknown {
    if (err instanceof StoreConflictError) return conflict(refOf(def, name));
    if (err instanceof StoreNotFoundError) return notFound(refOf(def, name));
    if (err instanceof StoreExistsError) return alreadyExists(refOf(def, name));
    if (err instanceof StoreTooLargeError) return objectTooLarge();
    return err;
  }

  /**
   * Applies a patch to the stored object and writes it. Retries on a concurrent write unless the
   * patch itself pins metadata.resourceVersion (then a mismatch is the client's conflict).
   */
  patch(
    def: ResourceDefinition,
    namespace: string | undefined,
    name: string,
    contentType: string,
    patch: Buffer,
    options: WriteOptions = {},
  ): WriteResult {
    for (let attempt = 0; ; attempt++) {
      const current = this.readItem(def, namespace, name);
      // A view patches the object as its clients see it, then stores it in the storage's form. Patches
      // leave their input alone and answer a new object, so the stored one needs no copy.
      const shown = this.present(def, current.object);
      const patched: KubeObject = this.patcher(contentType, shown, patch, def);
      if (typeof patched !== 'object' || patched === null || Array.isArray(patched)) {
        throw badRequest('the patch did not produce a JSON object');
      }
      // A JSON patch can nest the object deeper than its body is (copying a subtree into itself).
      assertJsonDepth(patched, 'the patched object');
      const pinned = patched.metadata?.resourceVersion;
      if (pinned !== undefined && pinned !== '' && String(pinned) !== String(current.revision)) {
        throw conflict(refOf(def, name));
      }
      if (patched.metadata?.name !== undefined && patched.metadata.name !== name) {
        throw badRequest(
          `the name of the object (${String(patched.metadata.name)}) does not match the name on the URL (${name})`,
        );
      }
      this.checkTypeMeta(def, patched);
      try {
        if (def.storedAs) {
          const view = def.storedAs;
          return this.viewResult(def, this.writeUpdate(view.def, current, view.toStorage(patched), options));
        }
        return this.writeUpdate(def, current, patched, options);
      } catch (err) {
        const retriable = err instanceof ApiError && err.reason === 'Conflict' && pinned === undefined;
        if (!retriable || attempt >= PATCH_RETRIES) throw err;
      }
    }
  }

  delete(
    def: ResourceDefinition,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions = {},
  ): DeleteResult {
    if (def.storedAs) {
      const result = this.delete(def.storedAs.def, namespace, name, options);
      return { ...result, object: this.present(def, result.object) };
    }
    const current = this.readItem(def, namespace, name);
    const obj = clone(current.object);
    const meta: KubeObject = obj.metadata;
    const pre = options.preconditions;
    if (pre?.uid && pre.uid !== meta.uid) {
      throw new ApiError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${def.group ? `${def.resource}.${def.group}` : def.resource} "${name}": Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid}`,
        { name, group: def.group, kind: def.resource },
      );
    }
    if (pre?.resourceVersion && pre.resourceVersion !== String(current.revision)) {
      throw new ApiError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${def.group ? `${def.resource}.${def.group}` : def.resource} "${name}": Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.revision}`,
        { name, group: def.group, kind: def.resource },
      );
    }

    options.admit?.({
      operation: 'DELETE',
      def,
      subresource: undefined,
      namespace: meta.namespace,
      object: undefined,
      oldObject: current.object,
    });

    const finalizers: string[] = [...(meta.finalizers ?? [])];
    if (options.propagationPolicy === 'Foreground' && !finalizers.includes('foregroundDeletion')) {
      finalizers.push('foregroundDeletion');
    }
    if (options.propagationPolicy === 'Orphan' && !finalizers.includes('orphan')) finalizers.push('orphan');
    const blocked = finalizers.length > 0 || this.hasSpecFinalizers(obj);
    if (!blocked) {
      if (options.dryRun) return { object: this.present(def, obj), deleted: true };
      try {
        const gone = this.store.delete(current.key, current.revision);
        return { object: this.present(def, gone.object), deleted: true };
      } catch (err) {
        throw this.translateStoreError(err, def, name);
      }
    }
    if (meta.deletionTimestamp !== undefined && jsonEqual(finalizers, meta.finalizers ?? [])) {
      // Already being deleted: deleting again changes nothing.
      return { object: this.present(def, obj), deleted: false };
    }
    meta.deletionTimestamp ??= this.timestamp();
    meta.deletionGracePeriodSeconds ??= 0;
    meta.finalizers = finalizers;
    if (obj.kind === 'Namespace') obj.status = { ...(obj.status ?? {}), phase: 'Terminating' };
    if (options.dryRun) return { object: this.present(def, obj), deleted: false };
    try {
      const written = this.store.update(current.key, current.revision, obj);
      return { object: this.present(def, written.object), deleted: false };
    } catch (err) {
      throw this.translateStoreError(err, def, name);
    }
  }

  /** Deletes every object a list would return; finalizers are honoured per object. */
  deleteCollection(
    def: ResourceDefinition,
    namespace: string | undefined,
    filter: ObjectFilter | undefined,
    options: DeleteOptions = {},
  ): KubeObject[] {
    const page = this.list(def, namespace, filter ? { filter } : {});
    const deleted: KubeObject[] = [];
    for (const item of page.items) {
      try {
        deleted.push(this.delete(def, item.metadata.namespace, item.metadata.name, options).object);
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 404)) throw err;
      }
    }
    return deleted;
  }
}

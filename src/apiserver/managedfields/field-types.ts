// How each part of an object merges under server-side apply, as structured-merge-diff reads it from a
// schema: lists are atomic (replaced whole), sets (scalars merged as a set) or maps (items merged by
// their key fields); objects are granular (merged field by field) or atomic. Custom resources take it
// from their structural schema (x-kubernetes-list-type, -list-map-keys, -map-type); built-in kinds from
// the strategic-merge metadata of their Go types (a patch merge key makes a map list, as kube's
// OpenAPI declares those lists), and everything else follows kube's defaults for untyped values.

import type { PatchMeta } from '../patch/builtin-patch-meta.ts';
import type { JSONSchemaProps } from '../registry/resource-definition.ts';

export type ListType = { kind: 'atomic' } | { kind: 'set' } | { kind: 'map'; keys: readonly string[] };

export interface FieldType {
  readonly list: ListType;
  /** An atomic object is owned and replaced as a whole. */
  readonly atomicMap: boolean;
  /** The type of an object's field. */
  field(name: string): FieldType;
  /** The type of a list's items. */
  item(): FieldType;
}

const ATOMIC: ListType = { kind: 'atomic' };

/** Values nothing is known about: objects merge by field, lists are atomic (structured-merge-diff's deduced type). */
export const untypedField: FieldType = {
  list: ATOMIC,
  atomicMap: false,
  field: () => untypedField,
  item: () => untypedField,
};

// Types are made once per schema or patch metadata object (both are never changed once built): every
// write of a built-in kind walks its object through them (server-side apply's bookkeeping), and a type
// made afresh at each step cost an object and two closures per field visited.
const schemaTypes = new WeakMap<object, FieldType>();
const patchMetaTypes = new WeakMap<object, FieldType>();
const NO_PATCH_META: PatchMeta = Object.freeze({});

function remembered(types: WeakMap<object, FieldType>, key: unknown, make: () => FieldType): FieldType {
  if ((typeof key !== 'object' && typeof key !== 'function') || key === null) return make();
  let type = types.get(key);
  if (type === undefined) {
    type = make();
    types.set(key, type);
  }
  return type;
}

/** The type described by a structural schema (a CRD's openAPIV3Schema or part of it). */
export function schemaFieldType(schema: JSONSchemaProps | undefined): FieldType {
  if (!schema) return untypedField;
  return remembered(schemaTypes, schema, () => makeSchemaFieldType(schema));
}

function makeSchemaFieldType(schema: JSONSchemaProps): FieldType {
  const listType = schema['x-kubernetes-list-type'];
  const keys = schema['x-kubernetes-list-map-keys'] ?? [];
  const list: ListType =
    listType === 'set'
      ? { kind: 'set' }
      : listType === 'map' && keys.length > 0
        ? { kind: 'map', keys }
        : ATOMIC;
  return {
    list,
    atomicMap: schema['x-kubernetes-map-type'] === 'atomic',
    field(name) {
      const declared = schema.properties?.[name];
      if (declared) return schemaFieldType(declared);
      const extra = schema.additionalProperties;
      return typeof extra === 'object' ? schemaFieldType(extra) : untypedField;
    },
    item: () => schemaFieldType(schema.items),
  };
}

/** The type described by strategic-merge metadata (built-in kinds). */
export function patchMetaFieldType(meta: PatchMeta | undefined): FieldType {
  if (!meta) return untypedField;
  return remembered(patchMetaTypes, meta, () => makePatchMetaFieldType(meta));
}

function makePatchMetaFieldType(meta: PatchMeta): FieldType {
  const list: ListType =
    meta.strategy === 'merge'
      ? meta.mergeKey
        ? { kind: 'map', keys: [meta.mergeKey] }
        : { kind: 'set' }
      : ATOMIC;
  let item: FieldType | undefined;
  return {
    list,
    atomicMap: false,
    field: (name) => patchMetaFieldType(meta.fields?.[name] ?? NO_PATCH_META),
    item: () => {
      item ??= patchMetaFieldType(meta.fields ? { fields: meta.fields } : NO_PATCH_META);
      return item;
    },
  };
}

/**
 * The type of a whole object: ObjectMeta always from its Go type (custom resources' schemas leave
 * metadata open), the rest from `body`.
 */
export function objectFieldType(metadata: PatchMeta, body: FieldType): FieldType {
  const meta = patchMetaFieldType(metadata);
  return {
    list: ATOMIC,
    atomicMap: false,
    field: (name) => (name === 'metadata' ? meta : body.field(name)),
    item: () => untypedField,
  };
}

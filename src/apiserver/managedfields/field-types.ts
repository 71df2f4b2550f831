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

/** The type described by a structural schema (a CRD's openAPIV3Schema or part of it). */
export function schemaFieldType(schema: JSONSchemaProps | undefined): FieldType {
  if (!schema) return untypedField;
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
  const list: ListType =
    meta.strategy === 'merge'
      ? meta.mergeKey
        ? { kind: 'map', keys: [meta.mergeKey] }
        : { kind: 'set' }
      : ATOMIC;
  return {
    list,
    atomicMap: false,
    field: (name) => patchMetaFieldType(meta.fields?.[name] ?? {}),
    item: () => patchMetaFieldType(meta.fields ? { fields: meta.fields } : {}),
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

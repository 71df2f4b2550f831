// Pruning of fields a structural schema does not declare (apiextensions schema/pruning and
// objectmeta.Coerce). kube drops them from custom resources on every write and, depending on
// fieldValidation, reports them: Strict → 400 `strict decoding error: unknown field "spec.foo"`,
// Warn → one `unknown field "spec.foo"` warning each.

import type { JSONSchemaProps } from '../registry/resource-definition.ts';
import { childPath, type FieldPath, indexPath, keyPath } from './field-path.ts';
import { isJsonObject } from './json-value.ts';

const typeAndObjectMeta = new Set(['apiVersion', 'kind', 'metadata']);

/** The fields metav1.ObjectMeta decodes; anything else in metadata is unknown. */
const objectMetaFields = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);
const ownerReferenceFields = new Set([
  'apiVersion',
  'kind',
  'name',
  'uid',
  'controller',
  'blockOwnerDeletion',
]);
const managedFieldsEntryFields = new Set([
  'manager',
  'operation',
  'apiVersion',
  'time',
  'fieldsType',
  'fieldsV1',
  'subresource',
]);

export interface PruneOptions {
  /** The value is a whole resource: apiVersion, kind and metadata are kept (metadata is coerced). Default true. */
  isResourceRoot?: boolean;
}

// Pruned paths use dots for every key (maps included) and brackets for indexes, like kube's.
function dotted(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

class Pruner {
  readonly pruned: string[] = [];

  prune(x: unknown, s: JSONSchemaProps | undefined, path: string, embedded: boolean): void {
    if (s?.['x-kubernetes-preserve-unknown-fields']) {
      this.skip(x, s, path, embedded);
      return;
    }
    if (isJsonObject(x)) {
      for (const key of Object.keys(x)) {
        if (!s) {
          this.pruned.push(dotted(path, key));
          delete x[key];
          continue;
        }
        if (embedded && typeAndObjectMeta.has(key)) continue;
        if (!this.pruneDeclared(x, key, s, path)) {
          this.pruned.push(dotted(path, key));
          delete x[key];
        }
      }
    } else if (Array.isArray(x)) {
      const items = s?.items;
      x.forEach((item, i) => {
        this.prune(item, items, indexPath(path, i), !!items?.['x-kubernetes-embedded-resource']);
      });
    }
  }

  /** Prunes inside x[key] by the schema s declares for it; false when s declares none (an unknown field). */
  private pruneDeclared(x: Record<string, unknown>, key: string, s: JSONSchemaProps, path: string): boolean {
    const property = s.properties?.[key];
    if (property)
      this.prune(x[key], property, dotted(path, key), !!property['x-kubernetes-embedded-resource']);
    else if (s.additionalProperties !== undefined)
      this.prune(x[key], additionalSchema(s), dotted(path, key), false);
    else return false;
    return true;
  }

  /** Under x-kubernetes-preserve-unknown-fields unknown keys stay, but declared ones are still pruned inside. */
  private skip(x: unknown, s: JSONSchemaProps, path: string, embedded: boolean): void {
    if (isJsonObject(x)) {
      for (const key of Object.keys(x)) {
        if (embedded && typeAndObjectMeta.has(key)) continue;
        this.pruneDeclared(x, key, s, path);
      }
    } else if (Array.isArray(x) && s.items) {
      const items = s.items;
      x.forEach((item, i) => {
        this.skip(item, items, indexPath(path, i), !!items['x-kubernetes-embedded-resource']);
      });
    }
  }
}

/** `additionalProperties: true` carries no schema, so whatever sits below it is pruned. */
function additionalSchema(s: JSONSchemaProps): JSONSchemaProps | undefined {
  return typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
}

function dropUnknown(obj: Record<string, unknown>, known: Set<string>, path: string, out: string[]): void {
  for (const key of Object.keys(obj)) {
    if (!known.has(key)) {
      out.push(dotted(path, key));
      delete obj[key];
    }
  }
}

/** Keeps only what metav1.ObjectMeta understands, reporting the rest as `<path>.metadata.<field>`. */
function coerceObjectMeta(metadata: unknown, path: string, out: string[]): void {
  if (!isJsonObject(metadata)) return;
  dropUnknown(metadata, objectMetaFields, path, out);
  const lists: [string, Set<string>][] = [
    ['ownerReferences', ownerReferenceFields],
    ['managedFields', managedFieldsEntryFields],
  ];
  for (const [field, known] of lists) {
    const list = metadata[field];
    if (!Array.isArray(list)) continue;
    list.forEach((entry, i) => {
      if (isJsonObject(entry)) dropUnknown(entry, known, indexPath(dotted(path, field), i), out);
    });
  }
}

/** objectmeta.Coerce: metadata of every embedded resource below the root (field.Path spelling). */
function coerceEmbedded(x: unknown, s: JSONSchemaProps | undefined, path: FieldPath, out: string[]): void {
  if (!s) return;
  if (isJsonObject(x)) {
    if (s['x-kubernetes-embedded-resource'] && Object.hasOwn(x, 'metadata')) {
      coerceObjectMeta(x.metadata, childPath(path, 'metadata'), out);
    }
    for (const [key, item] of Object.entries(x)) {
      const property = s.properties?.[key];
      if (property) coerceEmbedded(item, property, childPath(path, key), out);
      else if (typeof s.additionalProperties === 'object')
        coerceEmbedded(item, s.additionalProperties, keyPath(path, key), out);
    }
  } else if (Array.isArray(x)) {
    x.forEach((item, i) => {
      coerceEmbedded(item, s.items, indexPath(path, i), out);
    });
  }
}

/**
 * Removes fields the schema does not declare from obj (in place) and returns their paths: unknown
 * fields of the root's metadata first, then the pruned fields sorted, then unknown fields in the
 * metadata of embedded resources. Without a schema everything but apiVersion/kind/metadata goes.
 */
export function pruneUnknownFields(
  obj: unknown,
  schema: JSONSchemaProps | undefined,
  options: PruneOptions = {},
): string[] {
  const isRoot = options.isResourceRoot ?? true;
  const rootMeta: string[] = [];
  if (isRoot && isJsonObject(obj)) coerceObjectMeta(obj.metadata, 'metadata', rootMeta);
  const pruner = new Pruner();
  pruner.prune(obj, schema ?? {}, '', isRoot || !!schema?.['x-kubernetes-embedded-resource']);
  const embeddedMeta: string[] = [];
  if (schema) coerceEmbedded(obj, schema, '', embeddedMeta);
  return [...rootMeta, ...pruner.pruned.sort(), ...embeddedMeta.sort()];
}

/**
 * Drops nulls the schema does not allow and cannot default (PruneNonNullableNullsWithoutDefaults);
 * kube does this right after pruning, so `foo: null` on a plain optional field is simply absent.
 */
export function pruneNonNullableNulls(x: unknown, s: JSONSchemaProps | undefined): void {
  if (isJsonObject(x)) {
    for (const key of Object.keys(x)) {
      const sub =
        s?.properties?.[key] ??
        (typeof s?.additionalProperties === 'object' ? s.additionalProperties : undefined);
      if (
        x[key] === null &&
        sub !== undefined &&
        !sub.nullable &&
        (sub.default === undefined || sub.default === null)
      ) {
        delete x[key];
      } else {
        pruneNonNullableNulls(x[key], sub);
      }
    }
  } else if (Array.isArray(x)) {
    for (const item of x) pruneNonNullableNulls(item, s?.items);
  }
}

/** One warning per unknown field, as kube sends them with fieldValidation=Warn. */
export function unknownFieldWarnings(paths: readonly string[]): string[] {
  return paths.map((p) => `unknown field "${p}"`);
}

/** The 400 BadRequest message kube sends with fieldValidation=Strict. */
export function strictDecodingError(paths: readonly string[]): string {
  return `strict decoding error: ${unknownFieldWarnings(paths).join(', ')}`;
}

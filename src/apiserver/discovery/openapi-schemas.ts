// components.schemas of the OpenAPI v3 documents: the shared meta.k8s.io types and, per kind, its
// object and list schemas tagged with x-kubernetes-group-version-kind (how kubectl explain and
// kubectl's patch logic find a kind's schema). Names follow kube's: io.k8s.api.core.v1.Pod for
// built-ins, the reversed group for custom resources (io.nodeherd.v1alpha1.NodeConfig).

import type { JSONSchemaProps, ResourceDefinition } from '../registry/resource-definition.ts';

export type OpenAPISchema = Record<string, unknown>;

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
export const OBJECT_META = `${META}.ObjectMeta`;
export const LIST_META = `${META}.ListMeta`;
export const STATUS = `${META}.Status`;
export const DELETE_OPTIONS = `${META}.DeleteOptions`;
export const PATCH = `${META}.Patch`;
export const EVICTION = 'io.k8s.api.policy.v1.Eviction';

export const ref = (name: string): OpenAPISchema => ({ $ref: `#/components/schemas/${name}` });

/** A $ref with its own description, written the way kube does (a $ref cannot have siblings in 3.0). */
const refWith = (name: string, description: string, extra: OpenAPISchema = {}): OpenAPISchema => ({
  allOf: [ref(name)],
  description,
  ...extra,
});

const s = (type: string, description: string, extra: OpenAPISchema = {}): OpenAPISchema => ({
  type,
  description,
  ...extra,
});
const stringMap = (description: string): OpenAPISchema => ({
  type: 'object',
  description,
  additionalProperties: { type: 'string', default: '' },
});

/** Schema name of a kind (or of its list kind). */
export function schemaName(def: ResourceDefinition, kind: string = def.kind): string {
  if (!def.builtin) return `${def.group.split('.').reverse().join('.')}.${def.version}.${kind}`;
  if (def.group === 'apiextensions.k8s.io') {
    return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${def.version}.${kind}`;
  }
  return `io.k8s.api.${def.group ? def.group.split('.')[0] : 'core'}.${def.version}.${kind}`;
}

const gvk = (group: string, version: string, kind: string) => [{ group, version, kind }];

const apiVersionField = s(
  'string',
  'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.',
);
const kindField = s(
  'string',
  'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase.',
);

/** The meta.k8s.io schemas every group-version document carries. */
export function metaSchemas(): Record<string, OpenAPISchema> {
  const time = (description: string) => s('string', description, { format: 'date-time' });
  return {
    [OBJECT_META]: {
      type: 'object',
      description:
        'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
      properties: {
        annotations: stringMap('Annotations is an unstructured key value map stored with a resource.'),
        creationTimestamp: time(
          'CreationTimestamp is a timestamp representing the server time when this object was created.',
        ),
        deletionGracePeriodSeconds: s(
          'integer',
          'Number of seconds allowed for this object to gracefully terminate.',
          { format: 'int64' },
        ),
        deletionTimestamp: time(
          'DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted.',
        ),
        finalizers: s('array', 'Must be empty before the object is deleted from the registry.', {
          items: { type: 'string', default: '' },
          'x-kubernetes-list-type': 'set',
          'x-kubernetes-patch-strategy': 'merge',
        }),
        generateName: s(
          'string',
          'GenerateName is an optional prefix, used by the server, to generate a unique name.',
        ),
        generation: s(
          'integer',
          'A sequence number representing a specific generation of the desired state.',
          { format: 'int64' },
        ),
        labels: stringMap(
          'Map of string keys and values that can be used to organize and categorize objects.',
        ),
        managedFields: s(
          'array',
          'ManagedFields maps workflow-id and version to the set of fields that are managed by that workflow.',
          {
            items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            'x-kubernetes-list-type': 'atomic',
          },
        ),
        name: s('string', 'Name must be unique within a namespace.'),
        namespace: s('string', 'Namespace defines the space within which each name must be unique.'),
        ownerReferences: s('array', 'List of objects depended by this object.', {
          items: { allOf: [ref(`${META}.OwnerReference`)], default: {} },
          'x-kubernetes-list-map-keys': ['uid'],
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-patch-merge-key': 'uid',
          'x-kubernetes-patch-strategy': 'merge',
        }),
        resourceVersion: s('string', 'An opaque value that represents the internal version of this object.'),
        selfLink: s(
          'string',
          'Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.',
        ),
        uid: s('string', 'UID is the unique in time and space value for this object.'),
      },
    },
    [`${META}.OwnerReference`]: {
      type: 'object',
      description: 'OwnerReference contains enough information to let you identify an owning object.',
      required: ['apiVersion', 'kind', 'name', 'uid'],
      properties: {
        apiVersion: s('string', 'API version of the referent.', { default: '' }),
        blockOwnerDeletion: s(
          'boolean',
          'If true, AND if the owner has the "foregroundDeletion" finalizer, then the owner cannot be deleted from the key-value store until this reference is removed.',
        ),
        controller: s('boolean', 'If true, this reference points to the managing controller.'),
        kind: s('string', 'Kind of the referent.', { default: '' }),
        name: s('string', 'Name of the referent.', { default: '' }),
        uid: s('string', 'UID of the referent.', { default: '' }),
      },
      'x-kubernetes-map-type': 'atomic',
    },
    [LIST_META]: {
      type: 'object',
      description:
        'ListMeta describes metadata that synthetic resources must have, including lists and various status objects.',
      properties: {
        continue: s('string', 'continue may be set if the user set a limit on the number of items returned.'),
        remainingItemCount: s(
          'integer',
          'The number of subsequent items in the list which are not included in this list response.',
          { format: 'int64' },
        ),
        resourceVersion: s('string', "String that identifies the server's internal version of this object."),
        selfLink: s(
          'string',
          'Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.',
        ),
      },
    },
    [STATUS]: {
      type: 'object',
      description: "Status is a return value for calls that don't return other objects.",
      properties: {
        apiVersion: apiVersionField,
        code: s('integer', 'Suggested HTTP return code for this status, 0 if not set.', { format: 'int32' }),
        details: s('object', 'Extended data associated with the reason.', {
          'x-kubernetes-preserve-unknown-fields': true,
        }),
        kind: kindField,
        message: s('string', 'A human-readable description of the status of this operation.'),
        metadata: refWith(LIST_META, 'Standard list metadata.', { default: {} }),
        reason: s(
          'string',
          'A machine-readable description of why this operation is in the "Failure" status.',
        ),
        status: s('string', 'Status of the operation. One of: "Success" or "Failure".'),
      },
      'x-kubernetes-group-version-kind': gvk('', 'v1', 'Status'),
    },
    [DELETE_OPTIONS]: {
      type: 'object',
      description: 'DeleteOptions may be provided when deleting an API object.',
      properties: {
        apiVersion: apiVersionField,
        dryRun: s('array', 'When present, indicates that modifications should not be persisted.', {
          items: { type: 'string', default: '' },
          'x-kubernetes-list-type': 'atomic',
        }),
        gracePeriodSeconds: s('integer', 'The duration in seconds before the object should be deleted.', {
          format: 'int64',
        }),
        kind: kindField,
        preconditions: s('object', 'Must be fulfilled before a deletion is carried out.', {
          properties: {
            resourceVersion: s('string', 'Specifies the target ResourceVersion'),
            uid: s('string', 'Specifies the target UID.'),
          },
        }),
        propagationPolicy: s(
          'string',
          "Whether and how garbage collection will be performed: 'Orphan', 'Background' or 'Foreground'.",
        ),
      },
    },
    [PATCH]: {
      type: 'object',
      description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.',
    },
  };
}

/** policy/v1 Eviction, carried by the core/v1 document because pods/eviction lives there. */
export function evictionSchema(): OpenAPISchema {
  return {
    type: 'object',
    description: 'Eviction evicts a pod from its node subject to certain policies and safety constraints.',
    properties: {
      apiVersion: apiVersionField,
      deleteOptions: refWith(DELETE_OPTIONS, 'DeleteOptions may be provided'),
      kind: kindField,
      metadata: refWith(OBJECT_META, 'ObjectMeta describes the pod that is being evicted.', { default: {} }),
    },
    'x-kubernetes-group-version-kind': gvk('policy', 'v1', 'Eviction'),
  };
}

/** Deep copy of a structural schema as OpenAPI v3 (the keywords are the same JSON). */
function fromJSONSchemaProps(schema: JSONSchemaProps): OpenAPISchema {
  return structuredClone(schema) as OpenAPISchema;
}

/**
 * A kind's object schema: its structural schema (or an open object when it has none) with
 * apiVersion, kind and metadata filled in as kube publishes them for custom resources.
 */
export function kindSchema(def: ResourceDefinition): OpenAPISchema {
  const base: OpenAPISchema = def.schema
    ? fromJSONSchemaProps(def.schema)
    : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const properties = { ...((base.properties as Record<string, OpenAPISchema> | undefined) ?? {}) };
  properties.apiVersion = apiVersionField;
  properties.kind = kindField;
  properties.metadata = refWith(OBJECT_META, "Standard object's metadata.", { default: {} });
  return {
    ...base,
    type: 'object',
    properties,
    'x-kubernetes-group-version-kind': gvk(def.group, def.version, def.kind),
  };
}

export function listSchema(def: ResourceDefinition): OpenAPISchema {
  return {
    type: 'object',
    description: `${def.listKind} is a list of ${def.kind}`,
    required: ['items'],
    properties: {
      apiVersion: apiVersionField,
      items: s('array', `List of ${def.resource}.`, { items: ref(schemaName(def)) }),
      kind: kindField,
      metadata: refWith(LIST_META, 'Standard list metadata.', { default: {} }),
    },
    'x-kubernetes-group-version-kind': gvk(def.group, def.version, def.listKind),
  };
}

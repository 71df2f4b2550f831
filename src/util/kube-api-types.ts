// Kubernetes API types that both the embedded API server and the nodeherd.io contract (src/api) speak:
// object metadata, structural schemas and printer columns of CRDs, Status causes, RBAC-style policy
// rules. They live here, below both and below the client stack, so that none has to import another.

/** metav1.OwnerReference. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** metav1.ObjectMeta: the fields nodeherd reads and writes (the server keeps the rest as sent). */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  /** Server-side apply bookkeeping; the controller's informers drop it (withoutManagedFields). */
  managedFields?: unknown[];
}

/** A subset of apiextensions.k8s.io/v1 JSONSchemaProps (structural schemas). */
export interface JSONSchemaProps {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  items?: JSONSchemaProps;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  oneOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  allOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-validations'?: {
    rule: string;
    message?: string;
    fieldPath?: string;
    reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  }[];
}

/** apiextensions.k8s.io/v1 CustomResourceColumnDefinition. */
export interface PrinterColumn {
  name: string;
  type: 'integer' | 'number' | 'string' | 'boolean' | 'date';
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
  /**
   * Built-in kinds only: computes the cell the way kubectl's compiled printers do (e.g. a node's
   * "Ready,SchedulingDisabled"). When present it wins over jsonPath; jsonPath stays a best-effort
   * fallback. 'date' columns return a timestamp string, formatted as an age like jsonPath dates.
   */
  compute?: (object: Record<string, any>) => unknown;
}

/** `type` is kube's CauseType; on the wire (metav1.StatusCause) it is spelled `reason`. */
export interface StatusCause {
  type?: string;
  message: string;
  field?: string;
}

export type RequestVerb =
  | 'get'
  | 'list'
  | 'watch'
  | 'create'
  | 'update'
  | 'patch'
  | 'delete'
  | 'deletecollection'
  | 'impersonate'
  | 'bind'
  | 'escalate';

export interface PolicyRule {
  groups: readonly string[];
  /** 'resource' or 'resource/subresource'; '*' matches every resource and subresource. */
  resources: readonly string[];
  verbs: readonly (RequestVerb | '*')[];
  /** Restricts the rule to these namespaces; absent means any namespace and cluster scope. */
  namespaces?: readonly string[];
}

/** The user extra kube (1.30+) sets on a token bound to a pod on a node, or to a node. */
export const NODE_NAME_EXTRA = 'authentication.kubernetes.io/node-name';

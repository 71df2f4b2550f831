// What the server knows about one resource type, built-in or served from a CustomResourceDefinition.
// Discovery, OpenAPI, routing, validation and Table output are all derived from these definitions.

import type { KubeObject } from '../storage/types.ts';

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
  'x-kubernetes-validations'?: { rule: string; message?: string; fieldPath?: string }[];
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
  compute?: (object: KubeObject) => unknown;
}

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export interface ResourceDefinition {
  group: string; // '' for core
  version: string;
  /** Plural, lower case: the URL segment. */
  resource: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: Verb[];
  /** Subresources served under <resource>/<name>/<sub>. */
  subresources: { status?: boolean; eviction?: boolean; token?: boolean };
  /** True for kinds compiled into the server (they accept strategic merge patch). */
  builtin: boolean;
  /** Structural schema of the served version (custom resources, and built-ins where we have one). */
  schema?: JSONSchemaProps;
  printerColumns: PrinterColumn[];
  /** Field selectors beyond metadata.name and metadata.namespace, e.g. spec.nodeName for pods. */
  selectableFields: Record<string, (object: KubeObject) => string | undefined>;
  /** Whether spec changes bump metadata.generation (kinds with a spec/status split). */
  tracksGeneration: boolean;
  /**
   * Set on a view over another resource's storage, as kube serves events.k8s.io/v1 Events from the
   * core Event store: objects are kept as `def` keeps them and converted on the way in and out.
   */
  storedAs?: StorageView;
}

export interface StorageView {
  def: ResourceDefinition;
  toStorage(object: KubeObject): KubeObject;
  fromStorage(object: KubeObject): KubeObject;
}

export function apiVersionOf(def: Pick<ResourceDefinition, 'group' | 'version'>): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}

// What the server knows about one resource type, built-in or served from a CustomResourceDefinition.
// Discovery, OpenAPI, routing, validation and Table output are all derived from these definitions.

import type { JSONSchemaProps, PrinterColumn } from '../../util/kube-api-types.ts';
import type { PatchMeta } from '../patch/builtin-patch-meta.ts';
import type { KubeObject } from '../storage/types.ts';

export type { JSONSchemaProps, PrinterColumn };

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
   * A built-in kind's strategic-merge metadata (its Go type's patchStrategy tags), which also types its
   * fields for managedFields; ObjectMeta's alone when not given. Custom resources merge by their schema.
   */
  patchMeta?: PatchMeta;
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

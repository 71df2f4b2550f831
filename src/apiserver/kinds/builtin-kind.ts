// What a kind compiled into the server brings, in one place, as Kubernetes keeps each built-in kind's
// rules in pkg/registry/<group>/<resource>/strategy.go: its served definitions (names, verbs, schema,
// printer columns, field selectors, strategic-merge metadata), what kube's decoder enforces on its Go
// type, its strategies (defaults, validation, lifecycle hooks), its naming rule and the protobuf messages
// typed clients send for it. Each kind is one file under kinds/<group>/; registration.ts lists them.
// The generic object, patch and HTTP code reads these through the definition and the strategies, and
// names no kind.

import type { KindStrategy } from '../objects/strategy.ts';
import type { MessageSpec } from '../protobuf/message.ts';
import type { ResourceDefinition, StorageView } from '../registry/resource-definition.ts';
import type { ResourceRegistry } from '../registry/resource-registry.ts';
import type { KindDecoding } from '../schema/builtin-decoding.ts';

/** What the running server lends the kinds whose rules depend on it (a CRD's names against the registry). */
export interface KindServices {
  registry: Pick<ResourceRegistry, 'namesConflict'>;
}

/** A metadata.name rule of schema/names.ts: the problems with a name, none when it is valid. */
export type NameRule = (name: string, prefix: boolean) => string[];

export interface BuiltinKind {
  /**
   * The kind's resource in each version served, in the order discovery lists them; a fresh copy on
   * every call (the registry and its callers may change what they are given).
   */
  definitions(): ResourceDefinition[];
  /** What kube's decoder enforces on the Go type: its time fields, the types of its values. */
  decoding?: KindDecoding;
  /**
   * Defaults, validation and lifecycle rules of the kind's writes, in the order they run (after the
   * schema's pruning and the decoding, before the profile's validation).
   */
  strategies?(services: KindServices): KindStrategy[];
  /** How metadata.name is checked; DNS subdomain (schema/names.ts) when not given. */
  validateName?: NameRule;
  /** Protobuf messages of the kind and its subresources' bodies, by `<apiVersion>/<Kind>`. */
  protobuf?: Readonly<Record<string, MessageSpec>>;
  /**
   * Served as a view over another kind's storage (events.k8s.io Events over core Events): the stored
   * resource, by group and resource, and the conversions each way.
   */
  storedAs?: { group: string; resource: string } & Omit<StorageView, 'def'>;
}

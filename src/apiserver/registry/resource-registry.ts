// The catalogue of every resource the server serves: the compiled-in kinds plus those served from
// Established CustomResourceDefinitions. Routing, discovery and OpenAPI read it; listeners hear
// about every change so cached discovery documents can be dropped.

import type { KubeObject } from '../storage/types.ts';
import { crdStorageVersion, crdToDefinitions } from './crd-to-definition.ts';
import type { ResourceDefinition } from './resource-definition.ts';

export interface RegistryChange {
  /** The registry generation after the change. */
  generation: number;
  /** metadata.name of the CustomResourceDefinition that changed. */
  crdName: string;
  added: ResourceDefinition[];
  removed: ResourceDefinition[];
}

export type RegistryListener = (change: RegistryChange) => void;

export interface GroupVersions {
  /** '' for the core group. */
  group: string;
  /** Highest priority first (kube's version priority: v1 > v1beta1 > v1alpha1 > non-kube names). */
  versions: string[];
  preferredVersion: string;
}

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;
const STABILITY: Record<string, number> = { alpha: 0, beta: 1, '': 2 };

/**
 * Orders two version names the way kube-apiserver ranks them for discovery: negative when `a` has
 * the higher priority. GA beats beta beats alpha whatever the major number; then the higher major,
 * then the higher alpha/beta number. Names that do not look like kube versions come last, in
 * alphabetical order (so "foo1" before "foo10").
 */
export function compareVersionPriority(a: string, b: string): number {
  if (a === b) return 0;
  const ma = KUBE_VERSION.exec(a);
  const mb = KUBE_VERSION.exec(b);
  if (!ma && !mb) return a < b ? -1 : 1;
  if (!ma) return 1;
  if (!mb) return -1;
  const stability = STABILITY[mb[2] ?? '']! - STABILITY[ma[2] ?? '']!;
  if (stability !== 0) return stability;
  const major = Number(mb[1]) - Number(ma[1]);
  if (major !== 0) return major;
  return Number(mb[3] ?? 0) - Number(ma[3] ?? 0);
}

export function sortByVersionPriority(versions: Iterable<string>): string[] {
  return [...new Set(versions)].sort(compareVersionPriority);
}

const gvrKey = (group: string, version: string, resource: string): string =>
  `${group}/${version}/${resource}`;

export class ResourceRegistry {
  readonly #builtins: ResourceDefinition[];
  /** Definitions served per CRD name, and the signature they were derived from. */
  readonly #custom = new Map<
    string,
    { signature: string; storageVersion: string | undefined; defs: ResourceDefinition[] }
  >();
  readonly #listeners = new Set<RegistryListener>();
  #index = new Map<string, ResourceDefinition>();
  #generation = 0;

  constructor(builtins: readonly ResourceDefinition[]) {
    this.#builtins = [...builtins];
    this.#reindex();
  }

  /** Increments on every change; discovery caches key on it. */
  get generation(): number {
    return this.#generation;
  }

  /** Every served definition: built-ins in catalogue order, then custom resources by CRD name. */
  definitions(): ResourceDefinition[] {
    const custom = [...this.#custom.keys()].sort().flatMap((name) => this.#custom.get(name)!.defs);
    return [...this.#builtins, ...custom];
  }

  get(group: string, version: string, resource: string): ResourceDefinition | undefined {
    return this.#index.get(gvrKey(group, version, resource));
  }

  getByKind(group: string, version: string, kind: string): ResourceDefinition | undefined {
    return this.definitions().find((d) => d.group === group && d.version === version && d.kind === kind);
  }

  /** The definitions served in one group-version, sorted by resource name. */
  resources(group: string, version: string): ResourceDefinition[] {
    return this.definitions()
      .filter((d) => d.group === group && d.version === version)
      .sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
  }

  /** Every served version of one resource, preferred (highest priority) first. */
  versionsOf(group: string, resource: string): ResourceDefinition[] {
    return this.definitions()
      .filter((d) => d.group === group && d.resource === resource)
      .sort((a, b) => compareVersionPriority(a.version, b.version));
  }

  /**
   * The version objects of this resource are stored in. Built-ins serve one version each; a CRD
   * names its storage version. Conversion strategy is None: every served version has the same
   * shape, so converting is rewriting apiVersion.
   */
  storageVersion(group: string, resource: string): string | undefined {
    for (const entry of this.#custom.values()) {
      const def = entry.defs[0];
      if (def && def.group === group && def.resource === resource) return entry.storageVersion ?? def.version;
    }
    return this.versionsOf(group, resource)[0]?.version;
  }

  /** Groups with their served versions; the core group ('') first, then built-in, then custom groups. */
  groups(): GroupVersions[] {
    const versions = new Map<string, string[]>();
    for (const def of this.definitions()) {
      const list = versions.get(def.group) ?? [];
      list.push(def.version);
      versions.set(def.group, list);
    }
    const builtinGroups = new Set(this.#builtins.map((d) => d.group));
    const names = [...versions.keys()].sort((a, b) => {
      const rank = (g: string) => (g === '' ? 0 : builtinGroups.has(g) ? 1 : 2);
      if (rank(a) !== rank(b)) return rank(a) - rank(b);
      // Built-in groups keep catalogue order; custom groups sort by name like kube's APIService priority ties.
      if (rank(a) === 1) return this.#builtinGroupOrder(a) - this.#builtinGroupOrder(b);
      return a < b ? -1 : 1;
    });
    return names.map((group) => {
      const sorted = sortByVersionPriority(versions.get(group)!);
      return { group, versions: sorted, preferredVersion: sorted[0]! };
    });
  }

  /**
   * Resolves what a user typed as kubectl does: plural, singular or short name, optionally
   * qualified as `<name>.<group>` or `<name>.<version>.<group>`. Preferred versions first; the core
   * group wins ties because kubectl ranks it first.
   */
  resolve(name: string): ResourceDefinition[] {
    const lower = name.toLowerCase();
    const order = new Map(this.groups().map((g, i) => [g.group, i]));
    const matches = this.definitions().filter((d) => {
      const names = [d.resource, d.singular, ...d.shortNames];
      if (names.includes(lower)) return true;
      return names.some((n) => lower === `${n}.${d.group}` || lower === `${n}.${d.version}.${d.group}`);
    });
    return matches.sort(
      (a, b) =>
        (order.get(a.group) ?? 0) - (order.get(b.group) ?? 0) || compareVersionPriority(a.version, b.version),
    );
  }

  /** Definitions of a kind in any group, preferred versions first. */
  findByKind(kind: string): ResourceDefinition[] {
    const order = new Map(this.groups().map((g, i) => [g.group, i]));
    return this.definitions()
      .filter((d) => d.kind === kind)
      .sort(
        (a, b) =>
          (order.get(a.group) ?? 0) - (order.get(b.group) ?? 0) ||
          compareVersionPriority(a.version, b.version),
      );
  }

  /** Definitions answering to a short name (e.g. "po"), in resolution order. */
  findByShortName(shortName: string): ResourceDefinition[] {
    return this.resolve(shortName).filter((d) => d.shortNames.includes(shortName.toLowerCase()));
  }

  /**
   * Why this CRD's names cannot be accepted (kube's NamesAccepted=False), or undefined when they can:
   * another CRD or a built-in in the same group already uses its plural, singular, short name or kind.
   */
  namesConflict(crd: KubeObject): string | undefined {
    const name: string = crd?.metadata?.name ?? '';
    const group: string = crd?.spec?.group ?? '';
    const names = crd?.spec?.names ?? {};
    const plural: string = names.plural ?? '';
    const singular: string = names.singular ?? plural;
    const shortNames: string[] = names.shortNames ?? [];
    for (const def of this.definitions()) {
      if (def.group !== group || this.#owner(def) === name) continue;
      if (def.resource === plural || def.singular === plural) return `"${plural}" is already in use`;
      if (singular && (def.resource === singular || def.singular === singular)) {
        return `"${singular}" is already in use`;
      }
      const clash = shortNames.find((s) => def.shortNames.includes(s));
      if (clash) return `"${clash}" is already in use`;
      if (def.kind === names.kind) return `"${names.kind}" is already in use`;
    }
    return undefined;
  }

  /**
   * Serves (or stops serving) what a CustomResourceDefinition describes. Call it for every CRD
   * write; it is a no-op unless the served definitions change. A CRD that is not Established serves
   * nothing. Definitions clashing with a built-in's group/version/resource are skipped.
   * Returns the definitions now served for this CRD.
   */
  applyCustomResourceDefinition(crd: KubeObject): ResourceDefinition[] {
    const name: string | undefined = crd?.metadata?.name;
    if (!name) return [];
    const defs = crdToDefinitions(crd).filter((d) => !this.#builtins.some((b) => sameGVR(b, d)));
    const signature = JSON.stringify({
      spec: crd.spec,
      acceptedNames: crd.status?.acceptedNames,
      served: defs.map((d) => d.version),
    });
    const previous = this.#custom.get(name);
    if (defs.length === 0) {
      this.removeCustomResourceDefinition(name);
      return [];
    }
    if (previous?.signature === signature) return previous.defs;
    this.#custom.set(name, { signature, storageVersion: crdStorageVersion(crd), defs });
    this.#changed(name, defs, previous?.defs ?? []);
    return defs;
  }

  /** Stops serving a deleted CRD. Returns whether anything was served for it. */
  removeCustomResourceDefinition(name: string): boolean {
    const previous = this.#custom.get(name);
    if (!previous) return false;
    this.#custom.delete(name);
    this.#changed(name, [], previous.defs);
    return true;
  }

  /** Subscribes to changes; returns the unsubscribe function. */
  onChange(listener: RegistryListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(crdName: string, added: ResourceDefinition[], removed: ResourceDefinition[]): void {
    this.#generation++;
    this.#reindex();
    const change: RegistryChange = { generation: this.#generation, crdName, added, removed };
    for (const listener of [...this.#listeners]) listener(change);
  }

  #reindex(): void {
    const index = new Map<string, ResourceDefinition>();
    for (const def of this.definitions()) {
      const key = gvrKey(def.group, def.version, def.resource);
      if (!index.has(key)) index.set(key, def);
    }
    this.#index = index;
  }

  #owner(def: ResourceDefinition): string | undefined {
    for (const [name, entry] of this.#custom) if (entry.defs.includes(def)) return name;
    return undefined;
  }

  #builtinGroupOrder(group: string): number {
    return this.#builtins.findIndex((d) => d.group === group);
  }
}

function sameGVR(a: ResourceDefinition, b: ResourceDefinition): boolean {
  return a.group === b.group && a.version === b.version && a.resource === b.resource;
}

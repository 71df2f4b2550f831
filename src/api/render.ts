// Rendering: the NodeConfigs of a pool merged, in name order, into one defaulted, sorted config and
// its hash. Later configs may add to what earlier ones define (drop-ins or filePaths of a unit, a
// version for a package); two configs that define the same thing differently are a conflict, listed
// with both sources, and then nothing is rendered: a conflicting config never reaches a node.
//
// Secret contents are never copied into the revision, nor any digest of them: a secretRef file keeps
// its reference plus the uid and resourceVersion of the Secret at render time. A changed Secret
// therefore yields a new revision (and a rollout), and the agent refuses a Secret other than the one
// rendered. Revisions are readable by every node; an unkeyed digest there would be an offline guessing
// oracle for low-entropy values, so the agent keeps the digest of what it wrote in its root-only state.
// References to Secrets outside SECRETS_NAMESPACE fail validation and are never rendered.

import { canonicalJson } from '../util/canonical-json.ts';
import { isTemplateUnit } from './config-rules.ts';
import { FieldErrors } from './field-errors.ts';
import { CURRENT_HASH_ALGORITHM, hashConfig } from './hash.ts';
import { matchesLabelSelector } from './label-selector.ts';
import { MAX_CONTENT_BYTES_PER_OBJECT, MAX_FILE_BYTES } from './limits.ts';
import { nodeConfigSpecSchema } from './node-config-schema.ts';
import { managerOf } from './packages/registry.ts';
import { applyDefaults, pruneUnknown } from './structural.ts';
import type {
  NodeConfig,
  NodeConfigPool,
  RenderConflict,
  RenderedConfig,
  RenderedFile,
  RenderedPackage,
  RenderedRepository,
  RenderedUnit,
  RevisionSource,
  SecretRef,
} from './types.ts';
import { validateNodeConfigSpec } from './validate-node-config.ts';

/** A Secret's value (decoded bytes of one key) and the version of the Secret it was read from. */
export interface SecretSnapshot {
  value: Uint8Array;
  uid: string;
  resourceVersion: string;
}

/** Returns a Secret key's value and the Secret's version, or undefined when the Secret or key does not exist. */
export type SecretLookup = (ref: {
  namespace: string;
  name: string;
  key: string;
}) => SecretSnapshot | undefined;

export interface RenderProblem {
  /** The NodeConfig at fault, when there is one. */
  source?: string;
  field?: string;
  message: string;
}

export interface RenderResult {
  /** Present only when there are neither errors nor conflicts. */
  config?: RenderedConfig;
  hash?: string;
  hashAlgorithm: string;
  sources: RevisionSource[];
  conflicts: RenderConflict[];
  errors: RenderProblem[];
  /** Legal but probably unintended, e.g. a unit listing a file no config manages. */
  warnings: string[];
  /** Secrets the config reads: re-render when one of them changes. */
  secretRefs: { namespace: string; name: string; key: string }[];
}

export interface RenderOptions {
  secrets?: SecretLookup;
}

/** The NodeConfigs a pool merges: selected by configSelector, not being deleted, in name order. */
export function selectConfigs(pool: NodeConfigPool, configs: readonly NodeConfig[]): NodeConfig[] {
  return configs
    .filter(
      (c) =>
        !c.metadata.deletionTimestamp && matchesLabelSelector(pool.spec.configSelector, c.metadata.labels),
    )
    .sort(byName);
}

function byName(a: NodeConfig, b: NodeConfig): number {
  return compare(a.metadata.name, b.metadata.name);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** First definition of each (kind, key, field) wins; a different later one is a conflict. */
class Claims {
  private readonly owners = new Map<string, { value: string; source: string }>();
  readonly conflicts: RenderConflict[] = [];

  claim(kind: string, key: string, field: string, value: unknown, source: string): void {
    if (value === undefined) return;
    const id = `${kind}\u0000${key}\u0000${field}`;
    const text = canonicalJson(value);
    const owner = this.owners.get(id);
    if (!owner) {
      this.owners.set(id, { value: text, source });
    } else if (owner.value !== text) {
      this.conflicts.push({
        kind,
        key,
        field,
        sources: [owner.source, source],
        message: `${kind} ${key}: ${field} differs between NodeConfigs ${owner.source} and ${source}`,
      });
    }
  }
}

interface Origin {
  source: string;
  index: number;
}

class Merger {
  readonly claims = new Claims();
  readonly files = new Map<string, { file: RenderedFile; origin: Origin }>();
  readonly units = new Map<string, RenderedUnit>();
  readonly repositories = new Map<string, RenderedRepository>();
  readonly packages = new Map<string, RenderedPackage>();
  readonly policies: RenderedConfig['disruptionPolicies'] = { files: [], units: [], packages: [] };
  private readonly policyKeys = new Set<string>();

  add(source: string, spec: RenderedConfig): void {
    const claim = this.claims.claim.bind(this.claims);
    spec.files.forEach((file, index) => {
      for (const field of ['mode', 'owner', 'group', 'content'] as const) {
        claim('file', file.path, field, file[field], source);
      }
      if (!this.files.has(file.path)) this.files.set(file.path, { file, origin: { source, index } });
    });
    for (const unit of spec.units) this.addUnit(source, unit);
    for (const repo of spec.repositories) {
      for (const field of ['uri', 'suites', 'components', 'architectures', 'signingKey'] as const) {
        claim('repository', repo.name, field, repo[field], source);
      }
      // Unset and the default manager named agree.
      claim('repository', repo.name, 'manager', managerOf(repo), source);
      if (!this.repositories.has(repo.name)) this.repositories.set(repo.name, repo);
    }
    for (const pkg of spec.packages) {
      claim('package', pkg.name, 'state', pkg.state, source);
      claim('package', pkg.name, 'version', pkg.version, source);
      claim('package', pkg.name, 'manager', managerOf(pkg), source);
      const merged = this.packages.get(pkg.name);
      // An unversioned package and a versioned one agree: the version is the stricter requirement.
      if (!merged) this.packages.set(pkg.name, { ...pkg });
      else if (merged.version === undefined && pkg.version !== undefined) merged.version = pkg.version;
    }
    const policies = spec.disruptionPolicies;
    for (const p of policies.files) this.addPolicy('files', p.path, p, source);
    for (const p of policies.units) this.addPolicy('units', p.name, p, source);
    for (const p of policies.packages) this.addPolicy('packages', p.name, p, source);
    claim('policy', 'default', 'action', policies.default, source);
    if (this.policies.default === undefined && policies.default !== undefined) {
      this.policies.default = policies.default;
    }
  }

  private addPolicy<K extends 'files' | 'units' | 'packages'>(
    list: K,
    key: string,
    policy: RenderedConfig['disruptionPolicies'][K][number],
    source: string,
  ): void {
    this.claims.claim('policy', `${list}:${key}`, 'action', policy.action, source);
    if (this.policyKeys.has(`${list}:${key}`)) return;
    this.policyKeys.add(`${list}:${key}`);
    (this.policies[list] as (typeof policy)[]).push(policy);
  }

  private addUnit(source: string, unit: RenderedUnit): void {
    const claim = this.claims.claim.bind(this.claims);
    for (const field of ['content', 'enabled', 'state', 'disruption', 'healthProbe'] as const) {
      claim('unit', unit.name, field, unit[field], source);
    }
    for (const dropIn of unit.dropIns)
      claim('dropIn', `${unit.name}/${dropIn.name}`, 'content', dropIn.content, source);
    const merged = this.units.get(unit.name);
    if (!merged) {
      this.units.set(unit.name, structuredClone(unit));
      return;
    }
    for (const field of ['content', 'enabled', 'state', 'disruption', 'healthProbe'] as const) {
      if (merged[field] === undefined && unit[field] !== undefined)
        Object.assign(merged, { [field]: unit[field] });
    }
    for (const dropIn of unit.dropIns) {
      if (!merged.dropIns.some((d) => d.name === dropIn.name)) merged.dropIns.push(dropIn);
    }
    merged.filePaths = [...new Set([...merged.filePaths, ...unit.filePaths])];
    merged.packages = [...new Set([...merged.packages, ...unit.packages])];
  }
}

/** Units nodeherd creates run and are enabled unless told otherwise; templates cannot run. */
function withUnitDefaults(unit: RenderedUnit): RenderedUnit {
  if (unit.content === undefined || isTemplateUnit(unit.name)) return unit;
  return { ...unit, enabled: unit.enabled ?? true, state: unit.state ?? 'running' };
}

function sortedBy<T>(items: Iterable<T>, key: (item: T) => string): T[] {
  return [...items].sort((a, b) => compare(key(a), key(b)));
}

function sortUnit(unit: RenderedUnit): RenderedUnit {
  return {
    ...unit,
    dropIns: sortedBy(unit.dropIns, (d) => d.name),
    filePaths: [...new Set(unit.filePaths)].sort(),
    packages: [...new Set(unit.packages)].sort(),
  };
}

function contentBytes(config: RenderedConfig): number {
  let total = 0;
  for (const file of config.files) total += Buffer.byteLength(file.content.inline?.data ?? '', 'utf8');
  for (const unit of config.units) {
    total += Buffer.byteLength(unit.content ?? '', 'utf8');
    for (const dropIn of unit.dropIns) total += Buffer.byteLength(dropIn.content, 'utf8');
  }
  return total;
}

function describeRef(ref: SecretRef): string {
  return `${ref.namespace}/${ref.name} key ${ref.key}`;
}

/** Defaults and prunes one NodeConfig spec as an API server would have. */
export function normaliseSpec(spec: unknown): RenderedConfig {
  const schema = nodeConfigSpecSchema.json;
  return pruneUnknown(schema, applyDefaults(schema, spec ?? {})) as RenderedConfig;
}

/** Merges configs (any order given; merged in name order) into one rendered config. */
export function renderConfigs(configs: readonly NodeConfig[], options: RenderOptions = {}): RenderResult {
  const sorted = [...configs].sort(byName);
  const result: RenderResult = {
    hashAlgorithm: CURRENT_HASH_ALGORITHM,
    sources: sorted.map((c) => ({
      name: c.metadata.name,
      ...(c.metadata.uid ? { uid: c.metadata.uid } : {}),
      ...(c.metadata.generation !== undefined ? { generation: c.metadata.generation } : {}),
      ...(c.metadata.resourceVersion ? { resourceVersion: c.metadata.resourceVersion } : {}),
    })),
    conflicts: [],
    errors: [],
    warnings: [],
    secretRefs: [],
  };

  for (const config of sorted) {
    const errors = new FieldErrors();
    validateNodeConfigSpec(errors, 'spec', config.spec);
    for (const cause of errors.causes) {
      result.errors.push({ source: config.metadata.name, field: cause.field, message: cause.message });
    }
  }
  if (result.errors.length > 0) return result;

  const merger = new Merger();
  for (const config of sorted) merger.add(config.metadata.name, normaliseSpec(config.spec));
  result.conflicts = merger.claims.conflicts;

  const files: RenderedFile[] = [];
  for (const { file, origin } of sortedBy(merger.files.values(), (f) => f.file.path)) {
    const ref = file.content.secretRef;
    if (!ref) {
      files.push(file);
      continue;
    }
    const plainRef = { namespace: ref.namespace, name: ref.name, key: ref.key };
    result.secretRefs.push(plainRef);
    const field = `spec.files[${origin.index}].content.secretRef`;
    const snapshot = options.secrets?.(plainRef);
    const value = snapshot?.value;
    if (!options.secrets) {
      result.errors.push({
        source: origin.source,
        field,
        message: 'no Secret lookup was given to the renderer',
      });
    } else if (value === undefined) {
      result.errors.push({
        source: origin.source,
        field,
        message: `Secret ${describeRef(ref)} does not exist`,
      });
    } else if (value.byteLength > MAX_FILE_BYTES) {
      result.errors.push({
        source: origin.source,
        field,
        message: `Secret ${describeRef(ref)} holds ${value.byteLength} bytes, more than ${MAX_FILE_BYTES}`,
      });
    } else {
      const { uid, resourceVersion } = snapshot!;
      files.push({ ...file, content: { secretRef: { ...plainRef, uid, resourceVersion } } });
    }
  }

  const config: RenderedConfig = {
    files,
    units: sortedBy(merger.units.values(), (u) => u.name).map((u) => sortUnit(withUnitDefaults(u))),
    repositories: sortedBy(merger.repositories.values(), (r) => r.name),
    packages: sortedBy(merger.packages.values(), (p) => p.name),
    disruptionPolicies: {
      files: sortedBy(merger.policies.files, (p) => p.path),
      units: sortedBy(merger.policies.units, (p) => p.name),
      packages: sortedBy(merger.policies.packages, (p) => p.name),
      ...(merger.policies.default !== undefined ? { default: merger.policies.default } : {}),
    },
  };

  const size = contentBytes(config);
  if (size > MAX_CONTENT_BYTES_PER_OBJECT) {
    result.errors.push({
      message: `the merged config holds ${size} bytes of content, more than ${MAX_CONTENT_BYTES_PER_OBJECT} fit in one NodeConfigRevision`,
    });
  }

  const paths = new Set(config.files.map((f) => f.path));
  const packages = new Set(config.packages.map((p) => p.name));
  for (const unit of config.units) {
    for (const path of unit.filePaths) {
      if (!paths.has(path)) {
        result.warnings.push(
          `unit ${unit.name} lists ${path}, which no NodeConfig of the pool manages: its changes go unnoticed`,
        );
      }
    }
    for (const pkg of unit.packages) {
      if (!packages.has(pkg)) {
        result.warnings.push(
          `unit ${unit.name} lists package ${pkg}, which no NodeConfig of the pool manages`,
        );
      }
    }
  }

  if (result.errors.length === 0 && result.conflicts.length === 0) {
    result.config = config;
    result.hash = hashConfig(config);
  }
  return result;
}

/** Selects the pool's configs and renders them. */
export function renderPool(
  pool: NodeConfigPool,
  configs: readonly NodeConfig[],
  options: RenderOptions = {},
): RenderResult {
  return renderConfigs(selectConfigs(pool, configs), options);
}

// A package manager as the contract sees it: how its repositories and packages are validated, what the
// plan calls the refresh of its package index, and how a pinned version matches an installed one. Pure
// rules, shared by validation (src/api), the plan (src/plan) and drift (src/agent/drift); what runs on
// a node is the manager's executor in src/agent/executors/<manager>/. Each manager is a folder beside
// this file and one line in registry.ts.

import type { FieldErrors } from '../field-errors.ts';
import type { AnySchema, Rule } from '../schema-builder.ts';

export interface ValidPackage {
  name?: string | undefined;
  version?: string | undefined;
}

export interface PackageManagerRules {
  /** The value of `manager` in a repository or package; unset means the registry's default (apt). */
  readonly name: string;
  /**
   * The plan action, kind and id at once, that refreshes the manager's package index (apt-get update):
   * planned when one of its repositories changed or one of its packages is to be installed.
   */
  readonly indexRefresh: string;
  /** Its repositories' fields in the NodeConfig schema, besides `name` and `manager`. */
  readonly repositoryFields: Readonly<Record<string, AnySchema>>;
  /**
   * CEL rules (x-kubernetes-validations) of its repositories and packages, for a real cluster's
   * kube-apiserver: `self` is the repository or package. The registry applies them to the items of this
   * manager only. Rules must stay within kube's cost budget (test/api/crd-cost.test.ts).
   */
  readonly repositoryRules: readonly Rule[];
  readonly packageRules: readonly Rule[];
  /**
   * Where the agent writes its repositories' files, as `nodeherd-<name>...`: a file in spec.files may not
   * be written there.
   */
  readonly repositoryDirs: readonly string[];
  /** Checks a repository of this manager (an object; `name` and `manager` are checked by the caller). */
  validateRepository(errors: FieldErrors, at: string, repository: Record<string, unknown>): void;
  /** Checks a package's name and version; returns those that are valid. */
  validatePackage(errors: FieldErrors, at: string, pkg: Record<string, unknown>): ValidPackage;
  /** Whether a pinned version (as the API accepts it, wildcards included) matches an installed version. */
  versionMatches(pattern: string, installed: string): boolean;
}

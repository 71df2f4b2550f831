// The package managers nodeherd knows: one line each. A repository or package without `manager` is the
// default manager's, so configs written before managers were named keep their meaning (and their hash:
// `manager` is never defaulted into a rendered config).

import type { PathProblem } from '../config-rules.ts';
import { REPOSITORY_FILE_PREFIX } from '../paths.ts';
import { celString, type Rule } from '../schema-builder.ts';
import { aptRules } from './apt/apt-rules.ts';
import { dnfRules } from './dnf/dnf-rules.ts';
import type { PackageManagerRules } from './package-manager.ts';

export const PACKAGE_MANAGERS = {
  apt: aptRules,
  dnf: dnfRules,
} as const satisfies Record<string, PackageManagerRules>;

export type PackageManagerName = keyof typeof PACKAGE_MANAGERS;

/**
 * The repository fields of every manager, in one schema (a CRD has no unions): a manager's validation
 * checks its own fields. A second manager spreads its fields here too; those only one manager requires
 * become optional in the schema, and that manager's validation requires them.
 */
export const REPOSITORY_FIELDS = { ...aptRules.repositoryFields, ...dnfRules.repositoryFields };
export const PACKAGE_MANAGER_NAMES = Object.keys(PACKAGE_MANAGERS) as [
  PackageManagerName,
  ...PackageManagerName[],
];
export const DEFAULT_PACKAGE_MANAGER: PackageManagerName = 'apt';

/** A manager's rules, applied to the items that are its own (`manager` unset: the default's). */
function keyedByManager(kind: 'repositoryRules' | 'packageRules'): Rule[] {
  return PACKAGE_MANAGER_NAMES.flatMap((name) =>
    PACKAGE_MANAGERS[name][kind].map((rule) => {
      const mine =
        name === DEFAULT_PACKAGE_MANAGER
          ? `(!has(self.manager) || self.manager == ${celString(name)})`
          : `(has(self.manager) && self.manager == ${celString(name)})`;
      return { ...rule, rule: `!${mine} || (${rule.rule})` };
    }),
  );
}

/** CEL rules of repositories and packages, keyed by manager (the CRD's x-kubernetes-validations). */
export const REPOSITORY_RULES: Rule[] = keyedByManager('repositoryRules');
export const PACKAGE_RULES: Rule[] = keyedByManager('packageRules');

/** repositoryFileProblem as CEL rules on a file path: no file under a manager's repository files. */
export const REPOSITORY_FILE_RULES: Rule[] = PACKAGE_MANAGER_NAMES.flatMap((name) =>
  PACKAGE_MANAGERS[name].repositoryDirs.map((dir) => ({
    rule: `!self.startsWith(${celString(`${dir}/${REPOSITORY_FILE_PREFIX}`)})`,
    message: `${dir}/${REPOSITORY_FILE_PREFIX}* is reserved for repositories`,
    reason: 'FieldValueForbidden' as const,
  })),
);

/** The plan action kinds that refresh a manager's index (`apt-update`, ...). */
export type IndexRefreshKind = (typeof PACKAGE_MANAGERS)[PackageManagerName]['indexRefresh'];

export function isPackageManagerName(name: string): name is PackageManagerName {
  return Object.hasOwn(PACKAGE_MANAGERS, name);
}

/** The manager a repository or package belongs to: its `manager`, or the default. */
export function managerOf(item: { manager?: string | undefined }): PackageManagerName {
  const name = item.manager ?? DEFAULT_PACKAGE_MANAGER;
  if (!isPackageManagerName(name)) throw new Error(`unknown package manager ${JSON.stringify(name)}`);
  return name;
}

export function packageManagerRules(name: PackageManagerName): PackageManagerRules {
  return PACKAGE_MANAGERS[name];
}

/** The plan action kind (and id) that refreshes the manager's index. */
export function indexRefreshOf(name: PackageManagerName): IndexRefreshKind {
  return PACKAGE_MANAGERS[name].indexRefresh;
}

/** Why a file may not be written at `path`: a package manager's repository files live there. */
export function repositoryFileProblem(path: string): PathProblem | undefined {
  for (const name of PACKAGE_MANAGER_NAMES) {
    for (const dir of PACKAGE_MANAGERS[name].repositoryDirs) {
      if (path.startsWith(`${dir}/${REPOSITORY_FILE_PREFIX}`)) {
        return {
          kind: 'forbidden',
          detail: `${dir}/${REPOSITORY_FILE_PREFIX}* is reserved for repositories`,
        };
      }
    }
  }
  return undefined;
}

/** The manager whose index refresh a plan action kind is, if it is one. */
export function indexRefreshManager(kind: string): PackageManagerName | undefined {
  return PACKAGE_MANAGER_NAMES.find((name) => PACKAGE_MANAGERS[name].indexRefresh === kind);
}

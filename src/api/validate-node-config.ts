// Validation of a NodeConfig spec (also of the merged config inside a revision), with exact field
// paths. It accepts raw, possibly undefaulted and wrongly typed input: a wrong type is a cause, never a crash.

import {
  decodedLength,
  filePathProblem,
  isTemplateUnit,
  normalisedPathProblem,
  policyPathProblem,
  unitNameProblem,
} from './config-rules.ts';
import {
  arrayAt,
  eachObject,
  enumAt,
  FieldErrors,
  integerAt,
  isObject,
  nonEmptyStringAt,
  objectAt,
  patterned,
  requiredPatterned,
  requiredValid,
  stringAt,
} from './field-errors.ts';
import { SECRETS_NAMESPACE } from './group.ts';
import { MAX_CONTENT_BYTES_PER_OBJECT, MAX_FILE_BYTES, MAX_PROBE_TIMEOUT_SECONDS } from './limits.ts';
import { DISRUPTION_ACTIONS } from './node-config-schema.ts';
import type { PackageManagerRules } from './packages/package-manager.ts';
import {
  DEFAULT_PACKAGE_MANAGER,
  PACKAGE_MANAGER_NAMES,
  packageManagerRules,
  repositoryFileProblem,
} from './packages/registry.ts';
import {
  DNS1123_SUBDOMAIN,
  DROP_IN_NAME,
  OWNER,
  PACKAGE_NAME,
  REPOSITORY_NAME,
  SECRET_KEY,
} from './patterns.ts';

export interface ConfigValidationOptions {
  /** Inside a NodeConfigRevision secretRef.uid and .resourceVersion are required; in a NodeConfig forbidden. */
  inRevision?: boolean;
}

const DEFAULT_POLICY_ACTIONS = ['None', 'DaemonReload', 'Drain', 'Reboot'] as const;

/**
 * A Secret reference's namespace: required, and only SECRETS_NAMESPACE (the CRD's enum says the same).
 * Exported for every other reference to a Secret (health gates' credentialsSecretRef).
 */
export function secretNamespace(errors: FieldErrors, field: string, value: unknown): void {
  if (value === undefined || value === null || value === '') errors.required(field);
  else if (value !== SECRETS_NAMESPACE) errors.notSupported(field, value, [SECRETS_NAMESPACE]);
}

/** Reports a duplicate key; returns false for a duplicate. */
function unique(errors: FieldErrors, seen: Set<string>, field: string, key: string | undefined): boolean {
  if (key === undefined) return true;
  if (seen.has(key)) {
    errors.duplicate(field, key);
    return false;
  }
  seen.add(key);
  return true;
}

/** A required name matching `pattern` (at most `maxLength`), unique among those `seen` holds. */
function uniqueName(
  errors: FieldErrors,
  seen: Set<string>,
  field: string,
  value: unknown,
  pattern: string,
  what: string,
  maxLength?: number,
): void {
  unique(errors, seen, field, requiredPatterned(errors, field, value, pattern, what, maxLength));
}

function booleanAt(errors: FieldErrors, field: string, value: unknown): void {
  if (value !== undefined && value !== null && typeof value !== 'boolean')
    errors.typeInvalid(field, value, 'a boolean');
}

class ConfigValidator {
  readonly errors: FieldErrors;
  readonly options: ConfigValidationOptions;
  contentBytes = 0;

  constructor(errors: FieldErrors, options: ConfigValidationOptions) {
    this.errors = errors;
    this.options = options;
  }

  private content(field: string, value: unknown, required: boolean): string | undefined {
    if (value === undefined || value === null) {
      if (required) this.errors.required(field);
      return undefined;
    }
    const text = stringAt(this.errors, field, value);
    if (text !== undefined) this.contentBytes += Buffer.byteLength(text, 'utf8');
    return text;
  }

  spec(field: string, value: unknown): void {
    const spec = objectAt(this.errors, field, value);
    if (!spec) {
      if (value === undefined || value === null) this.errors.required(field);
      return;
    }
    const paths = new Set<string>();
    eachObject(this.errors, `${field}.files`, spec.files, (f, at) => this.file(at, f, paths));
    const units = new Set<string>();
    eachObject(this.errors, `${field}.units`, spec.units, (u, at) => this.unit(at, u, units));
    const repos = new Set<string>();
    eachObject(this.errors, `${field}.repositories`, spec.repositories, (r, at) =>
      this.repository(at, r, repos),
    );
    const packages = new Set<string>();
    eachObject(this.errors, `${field}.packages`, spec.packages, (p, at) => this.package(at, p, packages));
    this.policies(`${field}.disruptionPolicies`, spec.disruptionPolicies);
    if (this.contentBytes > MAX_CONTENT_BYTES_PER_OBJECT) {
      this.errors.tooLong(field, MAX_CONTENT_BYTES_PER_OBJECT, this.contentBytes);
    }
  }

  private file(at: string, value: Record<string, any>, paths: Set<string>): void {
    const e = this.errors;
    const path = nonEmptyStringAt(e, `${at}.path`, value.path);
    if (path !== undefined) {
      const problem = filePathProblem(path) ?? repositoryFileProblem(path);
      if (problem?.kind === 'invalid') e.invalid(`${at}.path`, path, problem.detail);
      else if (problem?.kind === 'forbidden') e.forbidden(`${at}.path`, problem.detail);
      else unique(e, paths, `${at}.path`, path);
    }
    integerAt(e, `${at}.mode`, value.mode, 0, 0o7777);
    patterned(e, `${at}.owner`, value.owner, OWNER, 'a user name or a numeric uid', 32);
    patterned(e, `${at}.group`, value.group, OWNER, 'a group name or a numeric gid', 32);
    this.fileContent(`${at}.content`, value.content);
  }

  private fileContent(at: string, value: unknown): void {
    const e = this.errors;
    if (value === undefined || value === null) {
      e.required(at, 'exactly one of inline or secretRef');
      return;
    }
    if (!isObject(value)) {
      e.typeInvalid(at, value, 'an object');
      return;
    }
    const hasInline = value.inline !== undefined && value.inline !== null;
    const hasSecret = value.secretRef !== undefined && value.secretRef !== null;
    if (hasInline && hasSecret) {
      e.forbidden(at, 'exactly one of inline or secretRef may be set');
      return;
    }
    if (!hasInline && !hasSecret) {
      e.required(at, 'exactly one of inline or secretRef');
      return;
    }
    if (hasInline) {
      const inline = objectAt(e, `${at}.inline`, value.inline);
      if (!inline) return;
      const encoding = enumAt(e, `${at}.inline.encoding`, inline.encoding, ['plain', 'base64'] as const);
      const data = this.content(`${at}.inline.data`, inline.data, true);
      if (data === undefined) return;
      const size = decodedLength(data, encoding);
      if (size === undefined) e.invalid(`${at}.inline.data`, data, 'must be valid base64 (RFC 4648, padded)');
      else if (size > MAX_FILE_BYTES) e.tooLong(`${at}.inline.data`, MAX_FILE_BYTES, size);
      return;
    }
    const ref = objectAt(e, `${at}.secretRef`, value.secretRef);
    if (!ref) return;
    secretNamespace(e, `${at}.secretRef.namespace`, ref.namespace);
    requiredPatterned(e, `${at}.secretRef.name`, ref.name, DNS1123_SUBDOMAIN, 'a Secret name', 253);
    requiredPatterned(e, `${at}.secretRef.key`, ref.key, SECRET_KEY, 'a Secret key', 253);
    for (const field of ['uid', 'resourceVersion'] as const) {
      if (this.options.inRevision) {
        requiredPatterned(e, `${at}.secretRef.${field}`, ref[field], '^[^\\s]+$', 'a non-empty string', 128);
      } else if (ref[field] !== undefined) {
        e.forbidden(`${at}.secretRef.${field}`, 'set by the renderer in NodeConfigRevisions only');
      }
    }
  }

  private unit(at: string, value: Record<string, any>, names: Set<string>): void {
    const e = this.errors;
    const name = nonEmptyStringAt(e, `${at}.name`, value.name);
    if (name !== undefined) {
      const problem = unitNameProblem(name);
      if (problem) e.invalid(`${at}.name`, name, problem);
      else unique(e, names, `${at}.name`, name);
    }
    this.content(`${at}.content`, value.content, false);
    booleanAt(e, `${at}.enabled`, value.enabled);
    const state = enumAt(e, `${at}.state`, value.state, ['running', 'stopped'] as const);
    if (name !== undefined && isTemplateUnit(name) && state === 'running') {
      e.forbidden(`${at}.state`, 'a template unit cannot run; declare an instance such as name@x.service');
    }
    const dropIns = new Set<string>();
    eachObject(e, `${at}.dropIns`, value.dropIns, (d, dat) => {
      uniqueName(e, dropIns, `${dat}.name`, d.name, DROP_IN_NAME, 'a file name ending in .conf', 255);
      this.content(`${dat}.content`, d.content, true);
    });
    const filePaths = new Set<string>();
    arrayAt(e, `${at}.filePaths`, value.filePaths).forEach((p, i) => {
      const path = stringAt(e, `${at}.filePaths[${i}]`, p);
      if (path === undefined) return;
      const problem = normalisedPathProblem(path);
      if (problem) e.invalid(`${at}.filePaths[${i}]`, path, problem);
      else unique(e, filePaths, `${at}.filePaths[${i}]`, path);
    });
    const packages = new Set<string>();
    arrayAt(e, `${at}.packages`, value.packages).forEach((p, i) => {
      uniqueName(e, packages, `${at}.packages[${i}]`, p, PACKAGE_NAME, 'a package name');
    });
    enumAt(e, `${at}.disruption`, value.disruption, DISRUPTION_ACTIONS);
    if (value.healthProbe !== undefined && value.healthProbe !== null) {
      if (state === 'stopped') e.forbidden(`${at}.healthProbe`, 'a stopped unit cannot be probed');
      this.healthProbe(`${at}.healthProbe`, value.healthProbe);
    }
  }

  private healthProbe(at: string, value: unknown): void {
    const e = this.errors;
    const probe = objectAt(e, at, value);
    if (!probe) return;
    const hasHttp = probe.http !== undefined && probe.http !== null;
    const hasExec = probe.exec !== undefined && probe.exec !== null;
    if (hasHttp === hasExec) {
      if (hasHttp) e.forbidden(at, 'exactly one of http or exec may be set');
      else e.required(at, 'exactly one of http or exec');
    }
    const http = objectAt(e, `${at}.http`, probe.http);
    if (http) {
      const url = stringAt(e, `${at}.http.url`, http.url);
      if (url === undefined) e.required(`${at}.http.url`);
      else if (!URL.canParse(url) || !['http:', 'https:'].includes(new URL(url).protocol)) {
        e.invalid(`${at}.http.url`, url, 'must be an http:// or https:// URL');
      }
      integerAt(e, `${at}.http.expectStatus`, http.expectStatus, 100, 599);
    }
    const exec = objectAt(e, `${at}.exec`, probe.exec);
    if (exec) {
      const command = arrayAt(e, `${at}.exec.command`, exec.command);
      if (command.length === 0) e.required(`${at}.exec.command`);
      command.forEach((arg, i) => {
        stringAt(e, `${at}.exec.command[${i}]`, arg);
      });
    }
    integerAt(e, `${at}.timeoutSeconds`, probe.timeoutSeconds, 1, MAX_PROBE_TIMEOUT_SECONDS);
  }

  private repository(at: string, value: Record<string, any>, names: Set<string>): void {
    const e = this.errors;
    uniqueName(
      e,
      names,
      `${at}.name`,
      value.name,
      REPOSITORY_NAME,
      'lower case alphanumerics, ., _ or -',
      63,
    );
    this.manager(at, value)?.validateRepository(e, at, value);
  }

  private package(at: string, value: Record<string, any>, names: Set<string>): void {
    const e = this.errors;
    const { name, version } = this.manager(at, value)?.validatePackage(e, at, value) ?? {};
    unique(e, names, `${at}.name`, name);
    const state = enumAt(e, `${at}.state`, value.state, ['present', 'absent'] as const);
    if (version !== undefined && state === 'absent') {
      e.forbidden(`${at}.version`, 'a package to be removed has no version');
    }
  }

  /** The rules of a repository's or package's manager (unset: the default), or undefined if unknown. */
  private manager(at: string, value: Record<string, unknown>): PackageManagerRules | undefined {
    const name = enumAt(this.errors, `${at}.manager`, value.manager, PACKAGE_MANAGER_NAMES);
    if (name === undefined && value.manager !== undefined && value.manager !== null) return undefined;
    return packageManagerRules(name ?? DEFAULT_PACKAGE_MANAGER);
  }

  private policies(at: string, value: unknown): void {
    const e = this.errors;
    const policies = objectAt(e, at, value);
    if (!policies) return;
    const paths = new Set<string>();
    eachObject(e, `${at}.files`, policies.files, (p, pat) => {
      unique(e, paths, `${pat}.path`, requiredValid(e, `${pat}.path`, p.path, policyPathProblem));
      this.action(`${pat}.action`, p.action);
    });
    const units = new Set<string>();
    eachObject(e, `${at}.units`, policies.units, (p, pat) => {
      unique(e, units, `${pat}.name`, requiredValid(e, `${pat}.name`, p.name, unitNameProblem));
      this.action(`${pat}.action`, p.action);
    });
    const packages = new Set<string>();
    eachObject(e, `${at}.packages`, policies.packages, (p, pat) => {
      uniqueName(e, packages, `${pat}.name`, p.name, PACKAGE_NAME, 'a package name');
      this.action(`${pat}.action`, p.action);
    });
    enumAt(e, `${at}.default`, policies.default, DEFAULT_POLICY_ACTIONS);
  }

  private action(field: string, value: unknown): void {
    if (value === undefined || value === null) this.errors.required(field);
    else enumAt(this.errors, field, value, DISRUPTION_ACTIONS);
  }
}

/** Appends the causes of a NodeConfig spec at `field` (e.g. `spec`, or `spec.config` in a revision). */
export function validateNodeConfigSpec(
  errors: FieldErrors,
  field: string,
  spec: unknown,
  options: ConfigValidationOptions = {},
): void {
  new ConfigValidator(errors, options).spec(field, spec);
}

/** Causes for a whole NodeConfig object; empty when it is acceptable. */
export function validateNodeConfig(obj: unknown): FieldErrors['causes'] {
  const errors = new FieldErrors();
  if (!isObject(obj)) {
    errors.typeInvalid('', obj, 'an object');
    return errors.causes;
  }
  validateNodeConfigSpec(errors, 'spec', obj.spec);
  return errors.causes;
}

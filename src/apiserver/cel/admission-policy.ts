// Evaluates an admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy (and optionally its binding)
// against one admission request the way kube-apiserver does: matchConstraints (resourceRules with
// subresources, excludeResourceRules, scope, resourceNames, namespace/object selectors), the binding's
// matchResources, matchConditions, lazily evaluated `variables`, then validations with message,
// messageExpression and reason, under failurePolicy and the binding's validationActions.
//
// Not supported (documented in docs/apiserver.md): `authorizer` (expressions using it fail to compile
// and so fall under failurePolicy), paramKind/paramRef (`params` is null), auditAnnotations,
// matchPolicy Equivalent (requests match by their own group/version/resource only), and namespace
// labels the caller does not pass as `namespaceObject`.

import { EvaluationError } from '@marcbachmann/cel-js';
import { type LabelSelectorObject, labelSelectorFromObject } from '../selectors/label-selector.ts';
import {
  CelCompileError,
  type CompiledExpression,
  celEnvironment,
  compileExpression,
  runExpression,
} from './environment.ts';
import { celValueSize, toCelValue } from './json-values.ts';

type JsonObject = Record<string, unknown>;

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  operation: AdmissionOperation;
  resource: { group: string; version: string; resource: string };
  subResource?: string;
  kind?: { group: string; version: string; kind: string };
  name?: string;
  namespace?: string;
  /** The object being written; ignored (null) for DELETE. */
  object?: JsonObject | null;
  /** The stored object; ignored (null) for CREATE and CONNECT. */
  oldObject?: JsonObject | null;
  userInfo: { username: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  dryRun?: boolean;
  /** CreateOptions, UpdateOptions, DeleteOptions or the CONNECT options object. */
  options?: JsonObject | null;
  /** The request's Namespace object (for namespaceSelector and the `namespaceObject` variable). */
  namespaceObject?: JsonObject | null;
  /** Whether the resource is namespaced; by default, whether the request has a namespace. */
  namespaced?: boolean;
  /** The `params` object the binding's paramRef resolves to (the caller resolves it); null if none. */
  params?: JsonObject | null;
}

export interface PolicyFailure {
  message: string;
  /** metav1.StatusReason: the validation's reason (Invalid by default). */
  reason: string;
  expression: string;
}

export interface PolicyDecision {
  /** Whether the policy (and binding) apply to the request at all. */
  matched: boolean;
  /** False when a failure is to be denied (validationActions has Deny). */
  allowed: boolean;
  failures: PolicyFailure[];
  /** Failures reported as warnings (validationActions has Warn). */
  warnings: string[];
}

interface RuleWithOperations {
  apiGroups?: string[];
  apiVersions?: string[];
  operations?: string[];
  resources?: string[];
  resourceNames?: string[];
  scope?: string;
}

interface MatchResources {
  resourceRules?: RuleWithOperations[];
  excludeResourceRules?: RuleWithOperations[];
  namespaceSelector?: LabelSelectorObject;
  objectSelector?: LabelSelectorObject;
}

interface PolicySpec {
  failurePolicy?: 'Fail' | 'Ignore';
  matchConstraints?: MatchResources;
  matchConditions?: { name: string; expression: string }[];
  variables?: { name: string; expression: string }[];
  validations?: { expression: string; message?: string; messageExpression?: string; reason?: string }[];
}

const BASE_VARIABLES = ['object', 'oldObject', 'request', 'params', 'namespaceObject'];

type Compiled = CompiledExpression | { error: string };

function compile(expression: string, variables: readonly string[]): Compiled {
  try {
    return compileExpression(celEnvironment(variables), expression);
  } catch (err) {
    if (err instanceof CelCompileError) return { error: `compilation failed: ${err.message}` };
    throw err;
  }
}

function ruleMatches(rule: RuleWithOperations, a: AdmissionAttributes): boolean {
  const any = (list: string[] | undefined, value: string) =>
    (list ?? []).some((v) => v === '*' || v === value);
  if (!any(rule.operations, a.operation)) return false;
  if (!any(rule.apiGroups, a.resource.group) || !any(rule.apiVersions, a.resource.version)) return false;
  const sub = a.subResource ?? '';
  const resourceMatch = (rule.resources ?? []).some((r) => {
    const [res, s = ''] = r.split('/', 2) as [string, string?];
    return (res === '*' || res === a.resource.resource) && (s === '*' || s === sub);
  });
  if (!resourceMatch) return false;
  const namespaced = a.namespaced ?? (a.namespace ?? '') !== '';
  const scope = rule.scope ?? '*';
  if (scope === 'Cluster' && namespaced) return false;
  if (scope === 'Namespaced' && !namespaced) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(a.name ?? '');
}

const labelsOf = (o: JsonObject | null | undefined): Record<string, string> =>
  ((o?.metadata as JsonObject | undefined)?.labels as Record<string, string> | undefined) ?? {};

/** matchConstraints / a binding's matchResources; `rulesRequired`: an empty resourceRules matches nothing. */
function resourcesMatch(
  m: MatchResources | undefined,
  a: AdmissionAttributes,
  rulesRequired: boolean,
): boolean {
  const rules = m?.resourceRules ?? [];
  if ((rulesRequired || rules.length > 0) && !rules.some((r) => ruleMatches(r, a))) return false;
  if ((m?.excludeResourceRules ?? []).some((r) => ruleMatches(r, a))) return false;
  const objectSelector = labelSelectorFromObject(m?.objectSelector ?? {}, 'objectSelector');
  if (!objectSelector.matches(labelsOf(a.object)) && !objectSelector.matches(labelsOf(a.oldObject)))
    return false;
  // The namespace a request is in; a Namespace is in itself; other cluster-scoped objects are in none.
  const isNamespace = a.resource.group === '' && a.resource.resource === 'namespaces';
  if ((a.namespace ?? '') === '' && !isNamespace) return true;
  const namespaceSelector = labelSelectorFromObject(m?.namespaceSelector ?? {}, 'namespaceSelector');
  const namespaceLabels = isNamespace ? labelsOf(a.object ?? a.oldObject) : labelsOf(a.namespaceObject);
  return namespaceSelector.matches(namespaceLabels);
}

/** The `request` variable: admission.k8s.io/v1 AdmissionRequest, every field present as in kube. */
function requestOf(a: AdmissionAttributes): JsonObject {
  return {
    uid: '',
    kind: a.kind ?? { group: a.resource.group, version: a.resource.version, kind: '' },
    resource: a.resource,
    subResource: a.subResource ?? '',
    requestKind: a.kind ?? { group: a.resource.group, version: a.resource.version, kind: '' },
    requestResource: a.resource,
    requestSubResource: a.subResource ?? '',
    name: a.name ?? '',
    namespace: a.namespace ?? '',
    operation: a.operation,
    userInfo: {
      username: a.userInfo.username,
      uid: a.userInfo.uid ?? '',
      groups: a.userInfo.groups ?? [],
      extra: a.userInfo.extra ?? {},
    },
    dryRun: a.dryRun ?? false,
    options: a.options ?? null,
  };
}

export interface CompiledPolicy {
  name: string;
  evaluate(attributes: AdmissionAttributes, binding?: JsonObject): PolicyDecision;
}

/** Compiles a ValidatingAdmissionPolicy's expressions once, for many requests. */
export function compileAdmissionPolicy(policy: JsonObject): CompiledPolicy {
  const name = String((policy.metadata as JsonObject | undefined)?.name ?? '');
  const spec = (policy.spec ?? {}) as PolicySpec;
  const failClosed = (spec.failurePolicy ?? 'Fail') === 'Fail';
  const conditions = (spec.matchConditions ?? []).map((c) => ({
    ...c,
    compiled: compile(c.expression, BASE_VARIABLES),
  }));
  const withVariables = [...BASE_VARIABLES, 'variables'];
  const variables = (spec.variables ?? []).map((v) => ({
    ...v,
    compiled: compile(v.expression, withVariables),
  }));
  const validations = (spec.validations ?? []).map((v) => ({
    ...v,
    compiled: compile(v.expression, withVariables),
    messageCompiled:
      v.messageExpression === undefined ? undefined : compile(v.messageExpression, withVariables),
  }));

  function evaluate(attributes: AdmissionAttributes, binding?: JsonObject): PolicyDecision {
    const noMatch: PolicyDecision = { matched: false, allowed: true, failures: [], warnings: [] };
    const bindingSpec = (binding?.spec ?? {}) as {
      matchResources?: MatchResources;
      validationActions?: string[];
    };
    if (!resourcesMatch(spec.matchConstraints, attributes, true)) return noMatch;
    if (bindingSpec.matchResources && !resourcesMatch(bindingSpec.matchResources, attributes, false))
      return noMatch;

    const a = attributes;
    // The objects become CEL values when an expression first reads them: most writes are stopped by
    // matchConditions that read only `request` (an agent policy and a controller's write).
    const context: Record<string, unknown> = { request: toCelValue(requestOf(a)) };
    const convertLazily = (name: string, value: () => unknown) => {
      let converted: { value: unknown } | undefined;
      Object.defineProperty(context, name, {
        enumerable: true,
        get() {
          converted ??= { value: value() };
          return converted.value;
        },
      });
    };
    convertLazily('object', () => (a.operation === 'DELETE' ? null : toCelValue(a.object ?? null)));
    convertLazily('oldObject', () =>
      a.operation === 'CREATE' || a.operation === 'CONNECT' ? null : toCelValue(a.oldObject ?? null),
    );
    convertLazily('params', () => toCelValue(a.params ?? null));
    convertLazily('namespaceObject', () => toCelValue(a.namespaceObject ?? null));
    let size: number | undefined;
    // The input size matters only to the guard of nested comprehensions (cost-guard.ts).
    const inputSize = (c: { depth: number }): number => {
      if (c.depth < 2) return 0;
      if (size === undefined) {
        size =
          celValueSize(context.object) +
          celValueSize(context.oldObject) +
          celValueSize(context.namespaceObject);
      }
      return size;
    };
    const run = (c: Compiled) =>
      'error' in c ? { ok: false as const, error: c.error } : runExpression(c, context, inputSize(c));

    const failures: PolicyFailure[] = [];
    const fail = (expression: string, error: string) => {
      if (failClosed)
        failures.push({
          expression,
          message: `expression '${expression}' resulted in error: ${error}`,
          reason: 'Invalid',
        });
    };

    // Every condition false → not matched; otherwise an error among them falls under failurePolicy.
    let conditionError: { expression: string; error: string } | undefined;
    for (const c of conditions) {
      const r = run(c.compiled);
      if (r.ok && r.value === false) return noMatch;
      if (!r.ok) conditionError ??= { expression: c.expression, error: r.error };
      else if (r.value !== true)
        conditionError ??= { expression: c.expression, error: 'matchCondition must evaluate to bool' };
    }
    if (conditionError) {
      fail(conditionError.expression, conditionError.error);
      return decide(failures, bindingSpec.validationActions);
    }

    // variables.<name>: evaluated on first use, errors surfacing in the expression that uses them.
    const lazy = Object.create(null) as Record<string, unknown>;
    context.variables = lazy;
    for (const v of variables) {
      let result: ReturnType<typeof run> | undefined;
      Object.defineProperty(lazy, v.name, {
        enumerable: true,
        get() {
          result ??= run(v.compiled);
          if (!result.ok) throw new EvaluationError(`variable '${v.name}' failed: ${result.error}`);
          return result.value;
        },
      });
    }

    for (const v of validations) {
      const r = run(v.compiled);
      if (!r.ok) {
        fail(v.expression, r.error);
        continue;
      }
      if (typeof r.value !== 'boolean') {
        fail(v.expression, `expected a bool, got ${typeof r.value === 'bigint' ? 'int' : typeof r.value}`);
        continue;
      }
      if (r.value) continue;
      let message = v.message ?? `failed expression: ${v.expression}`;
      if (v.messageCompiled) {
        const m = run(v.messageCompiled);
        if (m.ok && typeof m.value === 'string' && m.value.trim() !== '' && !m.value.includes('\n'))
          message = m.value;
      }
      failures.push({ expression: v.expression, message, reason: v.reason ?? 'Invalid' });
    }
    return decide(failures, bindingSpec.validationActions);
  }

  function decide(failures: PolicyFailure[], actions: string[] | undefined): PolicyDecision {
    const act = actions ?? ['Deny'];
    return {
      matched: true,
      allowed: failures.length === 0 || !act.includes('Deny'),
      failures,
      warnings: act.includes('Warn')
        ? failures.map((f) => `Validation failed for ValidatingAdmissionPolicy '${name}': ${f.message}`)
        : [],
    };
  }

  return { name, evaluate };
}

const REASON_CODES: Record<string, number> = {
  Unauthorized: 401,
  Forbidden: 403,
  Invalid: 422,
  RequestEntityTooLarge: 413,
};

/** The HTTP status kube answers a denial with: the failure's reason picks the code (Invalid, 422, otherwise). */
export function denialStatus(failure: PolicyFailure): { code: number; reason: string } {
  const code = REASON_CODES[failure.reason];
  return code === undefined ? { code: 422, reason: 'Invalid' } : { code, reason: failure.reason };
}

/** Kube's denial message for a decision's first failure. */
export function denialMessage(policyName: string, bindingName: string, failure: PolicyFailure): string {
  return `ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}' denied request: ${failure.message}`;
}

/**
 * The expressions of a policy that do not compile, by field path (`spec.validations[0].expression`),
 * for refusing such a policy when it is written (kube type-checks them and reports in status).
 */
export function policyCompileErrors(policy: JsonObject): { field: string; error: string }[] {
  const spec = (policy.spec ?? {}) as PolicySpec;
  const errors: { field: string; error: string }[] = [];
  const check = (field: string, expression: unknown, names: string[]) => {
    if (typeof expression !== 'string' || expression === '') {
      errors.push({ field, error: 'Required value' });
      return;
    }
    const compiled = compile(expression, names);
    if ('error' in compiled) errors.push({ field, error: `compilation failed: ${compiled.error}` });
  };
  const withVariables = [...BASE_VARIABLES, 'variables'];
  (spec.matchConditions ?? []).forEach((c, i) => {
    check(`spec.matchConditions[${i}].expression`, c.expression, BASE_VARIABLES);
  });
  (spec.variables ?? []).forEach((v, i) => {
    check(`spec.variables[${i}].expression`, v.expression, withVariables);
  });
  (spec.validations ?? []).forEach((v, i) => {
    check(`spec.validations[${i}].expression`, v.expression, withVariables);
    if (v.messageExpression !== undefined) {
      check(`spec.validations[${i}].messageExpression`, v.messageExpression, withVariables);
    }
  });
  return errors;
}

const compiledPolicies = new WeakMap<JsonObject, CompiledPolicy>();

/** Evaluates a policy (compiled once per policy object) against one request. */
export function evaluateAdmissionPolicy(
  policy: JsonObject,
  attributes: AdmissionAttributes,
  binding?: JsonObject,
): PolicyDecision {
  let compiled = compiledPolicies.get(policy);
  if (!compiled) {
    compiled = compileAdmissionPolicy(policy);
    compiledPolicies.set(policy, compiled);
  }
  return compiled.evaluate(attributes, binding);
}

// x-kubernetes-validations: CEL rules of a CRD's structural schema, compiled when the CRD is written
// (a rule that does not compile makes the CRD invalid) and evaluated on every create, update, patch and
// status write of its custom resources, the way kube-apiserver's CEL validator does:
// - `self` is the value at the rule's location, typed per the schema; at the root and in embedded
//   resources `self.metadata` has only name and generateName;
// - transition rules (using `oldSelf`) run only on update, where an old value exists at the same
//   place (object fields, map values, items of map- and set-type lists); with optionalOldSelf they run
//   always and `oldSelf` is an optional;
// - rules not using oldSelf are ratcheted: a value unchanged since the old object is not re-checked;
// - failures are field errors: per `reason` (Invalid by default) at the rule's path plus `fieldPath`,
//   with `message`, the result of `messageExpression`, or "failed rule: <rule>".
// Not done as kube: type-checking is limited to fields selected on self/oldSelf (schema-fields.ts;
// a misspelt field elsewhere fails at evaluation, "no such key"). The static cost check
// (checkSchemaRuleCosts) is a conservative estimate with kube's constants (cel/static-cost.ts); at
// evaluation, cost-guard.ts bounds nested comprehensions.

import { Optional } from '@marcbachmann/cel-js';
import { type AstNode, children } from '../cel/ast.ts';
import {
  CelCompileError,
  type CompiledExpression,
  celEnvironment,
  compileExpression,
  runExpression,
} from '../cel/environment.ts';
import { celValueSize, toCelValue } from '../cel/json-values.ts';
import { undefinedFields } from '../cel/schema-fields.ts';
import {
  costExceededMessage,
  estimateRuleCost,
  STATIC_ESTIMATED_COST_LIMIT,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
  unboundedCardinality,
} from '../cel/static-cost.ts';
import type { StatusCause } from '../errors.ts';
import type { JSONSchemaProps } from '../registry/resource-definition.ts';
import { duplicate, forbidden, invalid, required } from './field-errors.ts';
import { childPath, type FieldPath, indexPath, keyPath } from './field-path.ts';
import { isJsonObject, jsonEqual } from './json-value.ts';

type RuleSpec = NonNullable<JSONSchemaProps['x-kubernetes-validations']>[number] & {
  messageExpression?: string;
  reason?: string;
  optionalOldSelf?: boolean;
};

interface CompiledRule {
  spec: RuleSpec;
  /** Absent when the rule does not compile (a CRD stored before its rules were checked). */
  program?: CompiledExpression;
  compileError?: string;
  messageProgram?: CompiledExpression;
  /** Uses oldSelf: evaluated on update only (unless optionalOldSelf), never ratcheted. */
  transition: boolean;
  /** `fieldPath` as a field.Path suffix: `foo.bar`, `foo[key]`; '' for none. */
  fieldPath: string;
}

const RULE_VARIABLES = ['self', 'oldSelf'];

/** Whether a rule refers to oldSelf: from its parse tree, or its text when it does not compile. */
function usesOldSelf(source: string, ast: AstNode | undefined): boolean {
  if (ast) {
    const refers = (n: AstNode): boolean =>
      (n.op === 'id' && n.args === 'oldSelf') || children(n).some(refers);
    return refers(ast);
  }
  // An identifier, not part of a longer one or a field (`self.oldSelf`) or a string.
  const withoutStrings = source.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""');
  return /(^|[^\w.])oldSelf\b/.test(withoutStrings);
}

/** Parses a rule's fieldPath (`.a.b`, `.a['b.c']`) into its segments; undefined when malformed. */
function parseFieldPath(fieldPath: string): string[] | undefined {
  const segments: string[] = [];
  let rest = fieldPath.trim();
  while (rest !== '') {
    const ident = /^\.([A-Za-z_][\w-]*)/.exec(rest);
    if (ident) {
      segments.push(ident[1] as string);
      rest = rest.slice(ident[0].length);
      continue;
    }
    const key = /^\['((?:[^'\\]|\\.)*)'\]/.exec(rest);
    if (!key) return undefined;
    segments.push((key[1] as string).replace(/\\(.)/g, '$1'));
    rest = rest.slice(key[0].length);
  }
  return segments;
}

/** The field.Path suffix for fieldPath, or an error when it does not name a field of the schema. */
function resolveFieldPath(fieldPath: string, schema: JSONSchemaProps): { path: string } | { error: string } {
  const segments = parseFieldPath(fieldPath);
  if (!segments || segments.length === 0) return { error: 'must be a valid path' };
  let s: JSONSchemaProps | undefined = schema;
  let path = '';
  for (const seg of segments) {
    const prop: JSONSchemaProps | undefined = s?.properties?.[seg];
    const additional: JSONSchemaProps | undefined =
      typeof s?.additionalProperties === 'object' ? s.additionalProperties : undefined;
    if (prop) {
      path = /^[A-Za-z_][\w-]*$/.test(seg) ? childPath(path, seg) : keyPath(path, seg);
      s = prop;
    } else if (additional || s?.['x-kubernetes-preserve-unknown-fields']) {
      path = keyPath(path, seg);
      s = additional;
    } else {
      return { error: `does not refer to a valid field: ${seg} is not in the schema` };
    }
  }
  return { path };
}

/**
 * Compiles a rule's or message's expression and checks the fields it names against the schema. An
 * unknown field is a compile error, but its AST is kept (whether the rule reads oldSelf still counts).
 */
function compileAgainst(
  env: ReturnType<typeof celEnvironment>,
  text: string,
  schema: JSONSchemaProps,
  isResource: boolean,
): { program?: CompiledExpression; ast?: AstNode; error?: string } {
  try {
    const program = compileExpression(env, text);
    const undefinedField = undefinedFields(program.ast, schema, isResource)[0];
    return undefinedField ? { ast: program.ast, error: undefinedField } : { program, ast: program.ast };
  } catch (err) {
    if (!(err instanceof CelCompileError)) throw err;
    return { error: err.message };
  }
}

/**
 * Compiles one rule of the schema node `schema`; `at` is where the rule sits in the CRD
 * (`...x-kubernetes-validations[0]`). Causes are for a 422 on the CRD.
 */
function compileRule(
  spec: RuleSpec,
  schema: JSONSchemaProps,
  at: FieldPath,
  correlatable: boolean,
  isResource: boolean,
): { rule?: CompiledRule; causes: StatusCause[] } {
  const causes: StatusCause[] = [];
  // oldSelf.value() on a dyn oldSelf leaves the library unable to pick an operator overload.
  const env = celEnvironment(spec.optionalOldSelf ? ['self', ['oldSelf', 'optional<dyn>']] : RULE_VARIABLES);
  const { program, ast: parsedAst, error: compileError } = compileAgainst(env, spec.rule, schema, isResource);
  if (compileError !== undefined) {
    causes.push(invalid(childPath(at, 'rule'), spec.rule, `compilation failed: ${compileError}`));
  }
  let messageProgram: CompiledExpression | undefined;
  if (spec.messageExpression !== undefined && spec.messageExpression.trim() !== '') {
    const message = compileAgainst(env, spec.messageExpression, schema, isResource);
    messageProgram = message.program;
    if (message.error !== undefined) {
      causes.push(
        invalid(
          childPath(at, 'messageExpression'),
          spec.messageExpression,
          `messageExpression compilation failed: ${message.error}`,
        ),
      );
    }
  }
  const transition = usesOldSelf(spec.rule, parsedAst);
  if (transition && !correlatable) {
    causes.push(
      invalid(
        childPath(at, 'rule'),
        spec.rule,
        'oldSelf cannot be used on the uncorrelatable portion of the schema within items of a list that is not a map or a set',
      ),
    );
  }
  if (spec.optionalOldSelf && !transition) {
    causes.push(forbidden(childPath(at, 'optionalOldSelf'), 'may not be set if oldSelf is not used in rule'));
  }
  let fieldPath = '';
  if (spec.fieldPath !== undefined && spec.fieldPath.trim() !== '') {
    const resolved = resolveFieldPath(spec.fieldPath, schema);
    if ('error' in resolved) causes.push(invalid(childPath(at, 'fieldPath'), spec.fieldPath, resolved.error));
    else fieldPath = resolved.path;
  }
  const rule: CompiledRule = { spec, transition, fieldPath };
  if (program) rule.program = program;
  if (compileError !== undefined) rule.compileError = compileError;
  if (messageProgram) rule.messageProgram = messageProgram;
  return { rule, causes };
}

// Compiled once per schema node: definitions keep their schema objects while the CRD is unchanged.
const compiledRules = new WeakMap<JSONSchemaProps, CompiledRule[]>();

function rulesOf(schema: JSONSchemaProps, correlatable: boolean, isResource: boolean): CompiledRule[] {
  let rules = compiledRules.get(schema);
  if (!rules) {
    rules = (schema['x-kubernetes-validations'] ?? []).flatMap((spec) => {
      const { rule } = compileRule(spec as RuleSpec, schema, '', correlatable, isResource);
      return rule ? [rule] : [];
    });
    compiledRules.set(schema, rules);
  }
  return rules;
}

/** Whether the old items of a list can be matched to the new ones (map lists by key, sets by value). */
function listCorrelates(schema: JSONSchemaProps): boolean {
  const type = schema['x-kubernetes-list-type'];
  return type === 'map' || type === 'set';
}

type SchemaVisitor = (
  s: JSONSchemaProps,
  path: FieldPath,
  correlatable: boolean,
  isResource: boolean,
) => void;

function walkSchema(
  s: JSONSchemaProps,
  path: FieldPath,
  correlatable: boolean,
  visit: SchemaVisitor,
  isResource = true,
): void {
  visit(s, path, correlatable, isResource);
  const embedded = (sub: JSONSchemaProps) => !!sub['x-kubernetes-embedded-resource'];
  for (const [name, sub] of Object.entries(s.properties ?? {})) {
    walkSchema(sub, keyPath(childPath(path, 'properties'), name), correlatable, visit, embedded(sub));
  }
  if (typeof s.additionalProperties === 'object') {
    const sub = s.additionalProperties;
    walkSchema(sub, childPath(path, 'additionalProperties'), correlatable, visit, embedded(sub));
  }
  if (s.items)
    walkSchema(
      s.items,
      childPath(path, 'items'),
      correlatable && listCorrelates(s),
      visit,
      embedded(s.items),
    );
}

/**
 * Compiles every rule of a CRD schema; the causes (422 on the CRD) name the rule, messageExpression
 * or fieldPath that is wrong. Rules whose shape is already refused (an empty rule) are skipped.
 */
export function compileSchemaRules(schema: JSONSchemaProps, schemaPath: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  walkSchema(schema, schemaPath, true, (s, path, correlatable, isResource) => {
    (s['x-kubernetes-validations'] ?? []).forEach((spec, i) => {
      if (typeof spec?.rule !== 'string' || spec.rule.trim() === '') return;
      const at = indexPath(childPath(path, 'x-kubernetes-validations'), i);
      causes.push(...compileRule(spec as RuleSpec, s, at, correlatable, isResource).causes);
    });
  });
  return causes;
}

/** A rule's estimated cost and where it sits, for the CRD's cost check. */
export interface RuleCost {
  path: FieldPath;
  rule: string;
  /** Estimated largest cost of one evaluation. */
  cost: number;
  /** Most evaluations per object: the product of maxItems/maxProperties of the lists and maps above. */
  cardinality: number;
  /** It traverses a string, list or map the schema does not bound. */
  unbounded: boolean;
}

/** The estimated cost of every rule of a CRD schema (conservative: static-cost.ts). */
export function schemaRuleCosts(schema: JSONSchemaProps, schemaPath: FieldPath): RuleCost[] {
  const costs: RuleCost[] = [];
  const walk = (s: JSONSchemaProps, path: FieldPath, cardinality: number, isResource: boolean): void => {
    (s['x-kubernetes-validations'] ?? []).forEach((spec, i) => {
      if (typeof spec?.rule !== 'string' || spec.rule.trim() === '') return;
      const at = childPath(indexPath(childPath(path, 'x-kubernetes-validations'), i), 'rule');
      const env = celEnvironment(
        (spec as RuleSpec).optionalOldSelf ? ['self', ['oldSelf', 'optional<dyn>']] : RULE_VARIABLES,
      );
      try {
        const { cost, unbounded } = estimateRuleCost(compileExpression(env, spec.rule).ast, s, isResource);
        costs.push({ path: at, rule: spec.rule, cost, cardinality, unbounded });
      } catch (err) {
        if (!(err instanceof CelCompileError)) throw err;
        // reported by compileSchemaRules
      }
    });
    const embedded = (sub: JSONSchemaProps) => !!sub['x-kubernetes-embedded-resource'];
    for (const [name, sub] of Object.entries(s.properties ?? {})) {
      walk(sub, keyPath(childPath(path, 'properties'), name), cardinality, embedded(sub));
    }
    const times = (bound: number | undefined, items: JSONSchemaProps) =>
      Math.min(cardinality * (bound ?? unboundedCardinality(items)), Number.MAX_SAFE_INTEGER);
    if (typeof s.additionalProperties === 'object') {
      const sub = s.additionalProperties;
      walk(sub, childPath(path, 'additionalProperties'), times(s.maxProperties, sub), embedded(sub));
    }
    if (s.items) walk(s.items, childPath(path, 'items'), times(s.maxItems, s.items), embedded(s.items));
  };
  walk(schema, schemaPath, 1, true);
  return costs;
}

/**
 * kube's static cost check of a CRD schema: a rule whose estimate times its cardinality exceeds
 * StaticEstimatedCostLimit is refused, and so is a schema whose rules add up to more than
 * StaticEstimatedCRDCostLimit.
 */
export function checkSchemaRuleCosts(schema: JSONSchemaProps, schemaPath: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  let total = 0;
  for (const r of schemaRuleCosts(schema, schemaPath)) {
    const cost = Math.min(r.cost * r.cardinality, Number.MAX_SAFE_INTEGER);
    if (cost > STATIC_ESTIMATED_COST_LIMIT) {
      causes.push(
        forbidden(r.path, costExceededMessage('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT)),
      );
    }
    total = Math.min(total + cost, Number.MAX_SAFE_INTEGER);
  }
  if (total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    causes.push(
      forbidden(
        schemaPath,
        `x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of ${(total / STATIC_ESTIMATED_CRD_COST_LIMIT).toFixed(1)}x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
      ),
    );
  }
  return causes;
}

/** A CEL result's type as kube names it in "Invalid value" (the schema's type at the rule's place). */
function schemaTypeName(s: JSONSchemaProps): string {
  if (s.type) return s.type;
  if (s['x-kubernetes-int-or-string']) return 'integer-or-string';
  return 'object';
}

function failure(rule: CompiledRule, path: FieldPath, s: JSONSchemaProps, message: string): StatusCause {
  const at = rule.fieldPath === '' ? path : childPath(path, rule.fieldPath);
  switch (rule.spec.reason) {
    case 'FieldValueForbidden':
      return forbidden(at, message);
    case 'FieldValueRequired':
      return required(at, message);
    case 'FieldValueDuplicate':
      return duplicate(at, schemaTypeName(s));
    default:
      return invalid(at, schemaTypeName(s), message);
  }
}

const ruleErrorString = (spec: RuleSpec): string => spec.message?.trim() || spec.rule.trim();

/** `self` for a rule: the value typed per its schema, with only name/generateName of resource metadata. */
function celSelf(value: unknown, s: JSONSchemaProps, isResource: boolean): unknown {
  const v = toCelValue(value, s);
  if (isResource && v instanceof Map && v.get('metadata') instanceof Map) {
    const meta = v.get('metadata') as Map<string, unknown>;
    const kept = new Map<string, unknown>();
    for (const k of ['name', 'generateName']) if (meta.has(k)) kept.set(k, meta.get(k));
    v.set('metadata', kept);
  }
  return v;
}

interface Walk {
  causes: StatusCause[];
}

/**
 * Where rules are evaluated: a value, its schema, the old value it corresponds to (on update, when one
 * does), its path, whether it is a resource (its metadata is cut to name and generateName), and whether
 * the values below it can still be correlated with old ones (transition rules need that).
 */
interface Place {
  s: JSONSchemaProps;
  value: unknown;
  old: { value: unknown } | undefined;
  path: FieldPath;
  isResource: boolean;
  correlatable: boolean;
}

function evaluateRules(place: Place, walk: Walk): void {
  const { s, value, old, path, isResource, correlatable } = place;
  const rules = rulesOf(s, correlatable, isResource);
  if (rules.length === 0) return;
  const unchanged = old !== undefined && jsonEqual(value, old.value);
  let self: unknown;
  let oldSelf: unknown;
  for (const rule of rules) {
    if (rule.transition && !old && !rule.spec.optionalOldSelf) continue;
    if (!rule.transition && unchanged) continue; // ratcheting
    self ??= celSelf(value, s, isResource);
    if (old && oldSelf === undefined) oldSelf = celSelf(old.value, s, isResource);
    const context: Record<string, unknown> = { self, oldSelf: old ? oldSelf : null };
    if (rule.spec.optionalOldSelf) context.oldSelf = old ? Optional.of(oldSelf) : Optional.none();
    const size = celValueSize(self) + (old ? celValueSize(oldSelf) : 0);
    if (!rule.program) {
      walk.causes.push(invalid(path, schemaTypeName(s), `rule compile error: ${rule.compileError}`));
      continue;
    }
    const result = runExpression(rule.program, context, size);
    if (!result.ok) {
      const detail = result.error.startsWith('operation cancelled')
        ? `call cost exceeds limit for rule: ${ruleErrorString(rule.spec)}`
        : `${result.error} evaluating rule: ${ruleErrorString(rule.spec)}`;
      walk.causes.push(invalid(path, schemaTypeName(s), detail));
      continue;
    }
    if (result.value === true) continue;
    if (result.value !== false) {
      walk.causes.push(
        invalid(path, schemaTypeName(s), `rule did not evaluate to a bool: ${ruleErrorString(rule.spec)}`),
      );
      continue;
    }
    let message = rule.spec.message?.trim() || `failed rule: ${rule.spec.rule.trim()}`;
    if (rule.messageProgram) {
      const m = runExpression(rule.messageProgram, context, size);
      if (m.ok && typeof m.value === 'string' && m.value.trim() !== '' && !/[\r\n]/.test(m.value)) {
        message = m.value;
      }
    }
    walk.causes.push(failure(rule, path, s, message));
  }
}

/** The old item a new list item corresponds to: same keys in a map list, same value in a set. */
function correlatedItem(s: JSONSchemaProps, item: unknown, oldList: unknown): { value: unknown } | undefined {
  if (!Array.isArray(oldList)) return undefined;
  if (s['x-kubernetes-list-type'] === 'set') {
    return oldList.some((o) => jsonEqual(o, item)) ? { value: item } : undefined;
  }
  if (s['x-kubernetes-list-type'] === 'map' && isJsonObject(item)) {
    const keys = s['x-kubernetes-list-map-keys'] ?? [];
    const found = oldList.find((o) => isJsonObject(o) && keys.every((k) => jsonEqual(o[k], item[k])));
    return found === undefined ? undefined : { value: found };
  }
  return undefined;
}

function visit(place: Place, walk: Walk): void {
  const { s, value, old, path, correlatable } = place;
  if (value === null || value === undefined) return;
  evaluateRules(place, walk);
  if (Array.isArray(value)) {
    if (!s.items) return;
    const items = s.items;
    const itemsCorrelate = correlatable && listCorrelates(s);
    value.forEach((item, i) => {
      const oldItem = itemsCorrelate && old ? correlatedItem(s, item, old.value) : undefined;
      const isResource = !!items['x-kubernetes-embedded-resource'];
      const itemPath = indexPath(path, i);
      visit(
        { s: items, value: item, old: oldItem, path: itemPath, isResource, correlatable: itemsCorrelate },
        walk,
      );
    });
    return;
  }
  if (!isJsonObject(value)) return;
  const oldObject = old && isJsonObject(old.value) ? old.value : undefined;
  const additional = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  for (const [name, v] of Object.entries(value)) {
    const sub = s.properties?.[name] ?? additional;
    if (!sub) continue;
    const oldChild = oldObject && Object.hasOwn(oldObject, name) ? { value: oldObject[name] } : undefined;
    const at = s.properties?.[name] ? childPath(path, name) : keyPath(path, name);
    const isResource = !!sub['x-kubernetes-embedded-resource'];
    visit({ s: sub, value: v, old: oldChild, path: at, isResource, correlatable }, walk);
  }
}

const schemasWithRules = new WeakMap<JSONSchemaProps, boolean>();

/** True when the schema (or any part of it) has CEL rules: kube then has a CEL validator for it. */
export function hasValidationRules(schema: JSONSchemaProps): boolean {
  let found = schemasWithRules.get(schema);
  if (found === undefined) {
    found = false;
    walkSchema(schema, '', true, (s) => {
      if ((s['x-kubernetes-validations'] ?? []).length > 0) found = true;
    });
    schemasWithRules.set(schema, found);
  }
  return found;
}

/**
 * Evaluates every CEL rule of the schema against a custom resource (and, on update, the stored one);
 * the causes are kube's field errors, empty when every rule holds.
 */
export function validateCelRules(obj: unknown, old: unknown, schema: JSONSchemaProps): StatusCause[] {
  const walk: Walk = { causes: [] };
  const oldRoot = old === undefined ? undefined : { value: old };
  visit({ s: schema, value: obj, old: oldRoot, path: '', isResource: true, correlatable: true }, walk);
  return walk.causes;
}

// Label selectors: the query-string syntax (`env=prod,tier in (web,api),!canary`) and the
// metav1.LabelSelector object (matchLabels / matchExpressions), both compiled into one matcher.
// Parsing and validation follow apimachinery's pkg/labels so errors carry the same messages;
// a bad query string is 400 BadRequest, a bad selector object is 422 Invalid naming the field.

import { isPlainObject as isRecord } from '../../util/plain-object.ts';
import type { StatusCause } from '../errors.ts';
import { ApiError, badRequest } from '../errors.ts';
import { isQualifiedName, isValidLabelValue } from '../schema/names.ts';

/** field.Invalid(...).Error(): `<path>: Invalid value: "<value>": <detail>`. */
function invalidValue(path: string, value: string, detail: string): string {
  return `${path}: Invalid value: ${JSON.stringify(value)}: ${detail}`;
}

/** selection.Operator values, as Kubernetes spells them. */
export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

export type Labels = Readonly<Record<string, string>> | undefined | null;

export interface LabelSelector {
  /** Sorted by key, like the real parser. */
  readonly requirements: readonly LabelRequirement[];
  matches(labels: Labels): boolean;
  /** True when the selector does not restrict anything (matches every object). */
  isEverything(): boolean;
  /** True for the selector of a null metav1.LabelSelector, which matches nothing. */
  isNothing(): boolean;
  /** The value the selector pins `key` to (=, ==, or `in` with one value), if any. */
  requiresExactMatch(key: string): string | undefined;
  toString(): string;
}

const BINARY_OPERATORS: readonly LabelOperator[] = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** strconv.ParseInt(s, 10, 64). */
function parseInt64(value: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(value)) return undefined;
  const n = BigInt(value);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

function requirementMatches(r: LabelRequirement, labels: Labels): boolean {
  const has = labels != null && Object.hasOwn(labels, r.key);
  const value = has ? labels![r.key]! : undefined;
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(value!);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(value!);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || r.values.length !== 1) return false;
      const actual = parseInt64(value!);
      const bound = parseInt64(r.values[0]!);
      if (actual === undefined || bound === undefined) return false;
      return r.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

function requirementString(r: LabelRequirement): string {
  const values = r.values.length === 1 ? r.values[0]! : [...r.values].sort().join(',');
  switch (r.operator) {
    case 'exists':
      return r.key;
    case '!':
      return `!${r.key}`;
    case 'in':
    case 'notin':
      return `${r.key} ${r.operator} (${values})`;
    case 'gt':
      return `${r.key}>${values}`;
    case 'lt':
      return `${r.key}<${values}`;
    default:
      return `${r.key}${r.operator}${values}`;
  }
}

function selectorOf(requirements: LabelRequirement[], nothing = false): LabelSelector {
  const sorted = [...requirements].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return {
    requirements: sorted,
    matches: (labels) => !nothing && sorted.every((r) => requirementMatches(r, labels)),
    isEverything: () => !nothing && sorted.length === 0,
    isNothing: () => nothing,
    requiresExactMatch: (key) => {
      const r = sorted.find((candidate) => candidate.key === key);
      if (r?.values.length !== 1) return undefined;
      return r.operator === '=' || r.operator === '==' || r.operator === 'in' ? r.values[0] : undefined;
    },
    toString: () => sorted.map(requirementString).join(','),
  };
}

/** Matches every object. */
export function everything(): LabelSelector {
  return selectorOf([]);
}

/** Matches no object (a null metav1.LabelSelector, e.g. a PodDisruptionBudget without selector). */
export function nothing(): LabelSelector {
  return selectorOf([], true);
}

/** Checks one requirement like labels.NewRequirement; returns Go-style field error strings. */
function requirementErrors(r: LabelRequirement, path: string): string[] {
  const errors: string[] = [];
  const keyPath = path ? `${path}.key` : 'key';
  const valuesPath = path ? `${path}.values` : 'values';
  for (const message of isQualifiedName(r.key)) errors.push(invalidValue(keyPath, r.key, message));
  switch (r.operator) {
    case 'in':
    case 'notin':
      if (r.values.length === 0) {
        errors.push(
          `${valuesPath}: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty`,
        );
      }
      break;
    case '=':
    case '==':
    case '!=':
      if (r.values.length !== 1)
        errors.push(`${valuesPath}: Invalid value: exact-match compatibility requires one single value`);
      break;
    case 'exists':
    case '!':
      if (r.values.length !== 0)
        errors.push(`${valuesPath}: Invalid value: values set must be empty for exists and does not exist`);
      break;
    case 'gt':
    case 'lt':
      if (r.values.length !== 1) {
        errors.push(`${valuesPath}: Invalid value: for 'Gt', 'Lt' operators, exactly one value is required`);
      }
      r.values.forEach((value, i) => {
        if (parseInt64(value) === undefined) {
          errors.push(
            invalidValue(
              `${valuesPath}[${i}]`,
              value,
              "for 'Gt', 'Lt' operators, the value must be an integer",
            ),
          );
        }
      });
      break;
  }
  r.values.forEach((value, i) => {
    for (const message of isValidLabelValue(value))
      errors.push(invalidValue(`${valuesPath}[${i}][${r.key}]`, value, message));
  });
  return errors;
}

/** utilerrors.Aggregate's message: one error as is, several in brackets. */
function aggregate(errors: string[]): string {
  return errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
}

// ---- the query-string syntax -------------------------------------------------------------

type TokenKind =
  | 'end'
  | 'identifier'
  | '('
  | ')'
  | ','
  | '!'
  | '='
  | '=='
  | '!='
  | '>'
  | '<'
  | 'in'
  | 'notin'
  | 'error';

interface Token {
  kind: TokenKind;
  text: string;
}

const SYMBOLS = new Set(['(', ')', ',', '!', '=', '==', '!=', '>', '<']);
const KEYWORDS = new Set(['in', 'notin']);

function isWhitespace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
}

function isSymbolChar(ch: string): boolean {
  return '=!(),><'.includes(ch);
}

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  for (;;) {
    while (pos < input.length && isWhitespace(input[pos]!)) pos++;
    if (pos >= input.length) {
      tokens.push({ kind: 'end', text: '' });
      return tokens;
    }
    if (isSymbolChar(input[pos]!)) {
      // Longest run of symbol characters that is still an operator ("!=" not "!" then "=").
      let text = '';
      let matched = '';
      let end = pos;
      while (end < input.length && isSymbolChar(input[end]!)) {
        text += input[end];
        if (SYMBOLS.has(text)) matched = text;
        else if (matched) break;
        end++;
      }
      if (!matched) {
        tokens.push({ kind: 'error', text: `error expected: keyword found '${text}'` });
        pos = end;
        continue;
      }
      tokens.push({ kind: matched as TokenKind, text: matched });
      pos += matched.length;
      continue;
    }
    let end = pos;
    while (end < input.length && !isWhitespace(input[end]!) && !isSymbolChar(input[end]!)) end++;
    const text = input.slice(pos, end);
    tokens.push({ kind: KEYWORDS.has(text) ? (text as TokenKind) : 'identifier', text });
    pos = end;
  }
}

class SelectorParser {
  private readonly tokens: Token[];
  private position = 0;

  constructor(input: string) {
    this.tokens = tokenize(input);
  }

  /** In value position the keywords `in` and `notin` are ordinary identifiers. */
  private peek(asValue: boolean): Token {
    const token = this.tokens[this.position]!;
    return asValue && (token.kind === 'in' || token.kind === 'notin')
      ? { kind: 'identifier', text: token.text }
      : token;
  }

  private next(asValue: boolean): Token {
    const token = this.peek(asValue);
    this.position++;
    return token;
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const token = this.peek(true);
      if (token.kind === 'end') return requirements;
      if (token.kind !== 'identifier' && token.kind !== '!') {
        throw new Error(`found '${token.text}', expected: !, identifier, or 'end of string'`);
      }
      try {
        requirements.push(this.requirement());
      } catch (error) {
        throw new Error(`unable to parse requirement: ${(error as Error).message}`);
      }
      const after = this.next(true);
      if (after.kind === 'end') return requirements;
      if (after.kind !== ',') throw new Error(`found '${after.text}', expected: ',' or 'end of string'`);
      const following = this.peek(true);
      if (following.kind !== 'identifier' && following.kind !== '!') {
        throw new Error(`found '${following.text}', expected: identifier after ','`);
      }
    }
  }

  private requirement(): LabelRequirement {
    let token = this.next(true);
    let operator: LabelOperator | undefined;
    if (token.kind === '!') {
      operator = '!';
      token = this.next(true);
    }
    if (token.kind !== 'identifier') throw new Error(`found '${token.text}', expected: identifier`);
    const key = token.text;
    const keyErrors = isQualifiedName(key);
    if (keyErrors.length > 0) throw new Error(invalidValue('<nil>', key, keyErrors.join('; ')));
    const following = this.peek(true).kind;
    if (following === 'end' || following === ',') operator ??= 'exists';
    let values: string[] = [];
    if (operator !== 'exists' && operator !== '!') {
      operator = this.operator();
      values = operator === 'in' || operator === 'notin' ? this.valueSet() : [this.exactValue()];
    }
    const requirement = { key, operator, values: [...new Set(values)].sort() };
    const errors = requirementErrors(requirement, '');
    if (errors.length > 0) throw new Error(aggregate(errors));
    return requirement;
  }

  private operator(): LabelOperator {
    const token = this.next(false);
    switch (token.kind) {
      case 'in':
      case 'notin':
      case '=':
      case '==':
      case '!=':
        return token.kind;
      case '>':
        return 'gt';
      case '<':
        return 'lt';
      default:
        throw new Error(`found '${token.text}', expected: ${BINARY_OPERATORS.join(', ')}`);
    }
  }

  private valueSet(): string[] {
    const open = this.next(true);
    if (open.kind !== '(') throw new Error(`found '${open.text}' expected: '('`);
    const first = this.peek(true);
    if (first.kind === ')') {
      this.next(true);
      return [''];
    }
    if (first.kind !== 'identifier' && first.kind !== ',') {
      throw new Error(`found '${first.text}', expected: ',', ')' or identifier`);
    }
    const values = this.identifierList();
    const close = this.next(true);
    if (close.kind !== ')') throw new Error(`found '${first.text}', expected: ')'`);
    return values;
  }

  /** Comma-separated values in parentheses; empty entries ("a,,b", "(,") are empty-string values. */
  private identifierList(): string[] {
    const values: string[] = [];
    for (;;) {
      const token = this.next(true);
      if (token.kind === 'identifier') {
        values.push(token.text);
        const after = this.peek(true);
        if (after.kind === ',') continue;
        if (after.kind === ')') return values;
        throw new Error(`found '${after.text}', expected: ',' or ')'`);
      }
      if (token.kind !== ',') throw new Error(`found '${token.text}', expected: ',', or identifier`);
      if (values.length === 0) values.push('');
      const after = this.peek(true).kind;
      if (after === ')') {
        values.push('');
        return values;
      }
      if (after === ',') values.push('');
    }
  }

  private exactValue(): string {
    const token = this.peek(true);
    if (token.kind === 'end' || token.kind === ',') return '';
    this.next(true);
    if (token.kind === 'identifier') return token.text;
    throw new Error(`found '${token.text}', expected: identifier`);
  }
}

/** Parses a `labelSelector` query parameter. Throws 400 BadRequest with the parser's message. */
export function parseLabelSelector(selector: string): LabelSelector {
  try {
    return selectorOf(new SelectorParser(selector).parse());
  } catch (error) {
    throw badRequest((error as Error).message);
  }
}

/** A selector requiring exactly these labels (nodeSelector maps, matchLabels). */
export function labelSelectorFromSet(
  set: Readonly<Record<string, string>> | undefined | null,
): LabelSelector {
  return selectorOf(
    Object.entries(set ?? {}).map(([key, value]) => ({ key, operator: '=' as const, values: [value] })),
  );
}

// ---- metav1.LabelSelector objects ---------------------------------------------------------

export interface LabelSelectorRequirementObject {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirementObject[];
}

const OBJECT_OPERATORS: Record<string, LabelOperator> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

function cause(type: string, field: string, message: string): StatusCause {
  return { type, field, message };
}

/**
 * ValidateLabelSelector: the causes (field paths under `path`, e.g. "spec.selector") a 422 Invalid
 * should list. Empty when the selector is valid; null and undefined are valid.
 */
export function validateLabelSelector(selector: unknown, path: string): StatusCause[] {
  if (selector === null || selector === undefined) return [];
  if (!isRecord(selector)) return [cause('FieldValueInvalid', path, 'Invalid value: must be an object')];
  const causes: StatusCause[] = [];
  const { matchLabels, matchExpressions } = selector;
  const labelsPath = `${path}.matchLabels`;
  if (matchLabels !== undefined && matchLabels !== null) {
    if (!isRecord(matchLabels)) {
      causes.push(cause('FieldValueInvalid', labelsPath, 'Invalid value: must be a map of strings'));
    } else {
      for (const [key, value] of Object.entries(matchLabels)) {
        for (const message of isQualifiedName(key)) {
          causes.push(
            cause('FieldValueInvalid', labelsPath, `Invalid value: ${JSON.stringify(key)}: ${message}`),
          );
        }
        if (typeof value !== 'string') {
          causes.push(cause('FieldValueInvalid', `${labelsPath}[${key}]`, 'Invalid value: must be a string'));
          continue;
        }
        for (const message of isValidLabelValue(value)) {
          causes.push(
            cause('FieldValueInvalid', labelsPath, `Invalid value: ${JSON.stringify(value)}: ${message}`),
          );
        }
      }
    }
  }
  if (matchExpressions !== undefined && matchExpressions !== null) {
    if (!Array.isArray(matchExpressions)) {
      causes.push(cause('FieldValueInvalid', `${path}.matchExpressions`, 'Invalid value: must be a list'));
    } else {
      matchExpressions.forEach((expression, i) => {
        causes.push(...expressionCauses(expression, `${path}.matchExpressions[${i}]`));
      });
    }
  }
  return causes;
}

function expressionCauses(expression: unknown, path: string): StatusCause[] {
  if (!isRecord(expression)) return [cause('FieldValueInvalid', path, 'Invalid value: must be an object')];
  const causes: StatusCause[] = [];
  const { key, operator } = expression;
  const values = expression.values ?? [];
  const valuesPath = `${path}.values`;
  if (!Array.isArray(values)) {
    causes.push(cause('FieldValueInvalid', valuesPath, 'Invalid value: must be a list of strings'));
  } else if (operator === 'In' || operator === 'NotIn') {
    if (values.length === 0) {
      causes.push(
        cause(
          'FieldValueRequired',
          valuesPath,
          "Required value: must be specified when `operator` is 'In' or 'NotIn'",
        ),
      );
    }
  } else if (operator === 'Exists' || operator === 'DoesNotExist') {
    if (values.length > 0) {
      causes.push(
        cause(
          'FieldValueForbidden',
          valuesPath,
          "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        ),
      );
    }
  } else {
    const shown = typeof operator === 'string' ? JSON.stringify(operator) : String(operator);
    causes.push(
      cause(
        'FieldValueInvalid',
        `${path}.operator`,
        `Invalid value: ${shown}: not a valid selector operator`,
      ),
    );
  }
  // A missing key is the empty string to Go, which fails the qualified-name rules.
  if (key !== undefined && typeof key !== 'string') {
    causes.push(cause('FieldValueInvalid', `${path}.key`, 'Invalid value: must be a string'));
  } else {
    for (const message of isQualifiedName(key ?? '')) {
      causes.push(
        cause('FieldValueInvalid', `${path}.key`, `Invalid value: ${JSON.stringify(key ?? '')}: ${message}`),
      );
    }
  }
  if (Array.isArray(values)) {
    values.forEach((value, i) => {
      if (typeof value !== 'string') {
        causes.push(cause('FieldValueInvalid', `${valuesPath}[${i}]`, 'Invalid value: must be a string'));
        return;
      }
      for (const message of isValidLabelValue(value)) {
        causes.push(
          cause(
            'FieldValueInvalid',
            `${valuesPath}[${i}]`,
            `Invalid value: ${JSON.stringify(value)}: ${message}`,
          ),
        );
      }
    });
  }
  return causes;
}

/**
 * LabelSelectorAsSelector: a null selector matches nothing, an empty one everything. Throws 422
 * Invalid (causes under `path`) when the selector is not valid.
 */
export function labelSelectorFromObject(
  selector: LabelSelectorObject | null | undefined,
  path = 'selector',
): LabelSelector {
  if (selector === null || selector === undefined) return nothing();
  const causes = validateLabelSelector(selector, path);
  if (causes.length > 0) {
    const summary = causes.map((c) => `${c.field}: ${c.message}`).join(', ');
    throw new ApiError(422, 'Invalid', `the label selector is invalid: ${summary}`, { causes });
  }
  const requirements: LabelRequirement[] = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => ({
    key,
    operator: '=',
    values: [value],
  }));
  for (const expression of selector.matchExpressions ?? []) {
    requirements.push({
      key: expression.key,
      operator: OBJECT_OPERATORS[expression.operator]!,
      values: [...(expression.values ?? [])],
    });
  }
  return selectorOf(requirements);
}

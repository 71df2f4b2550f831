// The JSONPath dialect of client-go's util/jsonpath, as used by additionalPrinterColumns and
// `kubectl -o jsonpath`: `.metadata.name`, `.spec.items[0]`, `.spec.list[*].name`, `.items[-1:]`,
// `['app.kubernetes.io/name']`, `..name`, `.status.conditions[?(@.type=="Ready")].status`.
// Missing keys yield no result (AllowMissingKeys), never an error. Templates with several
// {actions} and {range}/{end} are not supported: a printer column holds a single path.

import { goJson, goNumber } from './go-format.ts';
import { isJsonObject, jsonEqual } from './json-value.ts';

export class JsonPathError extends Error {}

type Operator = '==' | '!=' | '<' | '>' | '<=' | '>=';

type Operand = { kind: 'literal'; value: unknown } | { kind: 'path'; relative: boolean; steps: Step[] };

export type Step =
  | { kind: 'field'; name: string }
  | { kind: 'wildcard' }
  | { kind: 'recursive' }
  | { kind: 'index'; indexes: number[] }
  | { kind: 'slice'; start?: number; end?: number; step?: number }
  | { kind: 'keys'; names: string[] }
  | { kind: 'filter'; left: Step[]; operator?: Operator; right?: Operand };

export interface JsonPath {
  readonly expression: string;
  readonly steps: readonly Step[];
}

const terminators = new Set([' ', '\t', '\n', '\r', '.', ',', '[', ']', '$', '@', '{', '}']);

class Parser {
  private readonly text: string;
  private pos = 0;

  constructor(text: string) {
    this.text = text;
  }

  private fail(message: string): never {
    throw new JsonPathError(`${message} in ${JSON.stringify(this.text)} at ${this.pos}`);
  }

  parse(): Step[] {
    const steps: Step[] = [];
    if (this.text[this.pos] === '$' || this.text[this.pos] === '@') this.pos++;
    while (this.pos < this.text.length) {
      const c = this.text[this.pos]!;
      if (c === '.' && this.text[this.pos + 1] === '.') {
        this.pos += 2;
        steps.push({ kind: 'recursive' });
        this.afterDot(steps);
      } else if (c === '.') {
        this.pos++;
        if (this.pos >= this.text.length) break; // `.` alone is the whole object
        this.afterDot(steps);
      } else if (c === '[') {
        steps.push(this.bracket());
      } else {
        this.fail(`unrecognized character ${JSON.stringify(c)}`);
      }
    }
    return steps;
  }

  /** What follows `.` or `..`: `*`, a field name, or nothing when a bracket comes next. */
  private afterDot(steps: Step[]): void {
    if (this.text[this.pos] === '*') {
      this.pos++;
      steps.push({ kind: 'wildcard' });
    } else if (this.text[this.pos] !== '[') {
      steps.push({ kind: 'field', name: this.name() });
    }
  }

  /** A field name up to the next terminator; a backslash escapes (`app\.kubernetes\.io`). */
  private name(): string {
    let name = '';
    while (this.pos < this.text.length) {
      const c = this.text[this.pos]!;
      if (c === '\\' && this.pos + 1 < this.text.length) {
        name += this.text[this.pos + 1];
        this.pos += 2;
        continue;
      }
      if (terminators.has(c)) break;
      name += c;
      this.pos++;
    }
    if (name === '') this.fail('missing field name');
    return name;
  }

  /** The text up to the matching ']', honouring quotes and parentheses. */
  private bracketText(): string {
    const start = ++this.pos;
    let depth = 0;
    let quote = '';
    while (this.pos < this.text.length) {
      const c = this.text[this.pos]!;
      if (quote !== '') {
        if (c === '\\') this.pos++;
        else if (c === quote) quote = '';
      } else if (c === '"' || c === "'") quote = c;
      else if (c === '(') depth++;
      else if (c === ')') depth--;
      else if (c === ']' && depth === 0) {
        const inner = this.text.slice(start, this.pos);
        this.pos++;
        return inner.trim();
      }
      this.pos++;
    }
    this.fail('unterminated array');
  }

  private bracket(): Step {
    const inner = this.bracketText();
    if (inner === '*') return { kind: 'wildcard' };
    if (inner.startsWith('?(') && inner.endsWith(')')) return parseFilter(inner.slice(2, -1).trim());
    if (inner.startsWith('"') || inner.startsWith("'")) {
      return { kind: 'keys', names: splitTopLevel(inner).map((part) => unquote(part.trim(), this.text)) };
    }
    if (inner.includes(':')) {
      const parts = inner.split(':').map((p) => p.trim());
      if (parts.length > 3) this.fail('invalid slice');
      const num = (p: string | undefined) => {
        if (p === undefined || p === '') return undefined;
        if (!/^-?\d+$/.test(p)) this.fail(`invalid array index ${p}`);
        return Number(p);
      };
      const slice: Step = { kind: 'slice' };
      const [start, end, step] = [num(parts[0]), num(parts[1]), num(parts[2])];
      if (start !== undefined) slice.start = start;
      if (end !== undefined) slice.end = end;
      if (step !== undefined) slice.step = step;
      return slice;
    }
    const indexes = inner.split(',').map((p) => {
      const t = p.trim();
      if (!/^-?\d+$/.test(t)) this.fail(`invalid array index ${t}`);
      return Number(t);
    });
    return { kind: 'index', indexes };
  }
}

function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let quote = '';
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== '') {
      current += c;
      if (c === '\\' && i + 1 < text.length) current += text[++i];
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") {
      quote = c;
      current += c;
    } else if (c === ',') {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  return parts;
}

function unquote(text: string, context: string): string {
  const q = text[0];
  if ((q !== '"' && q !== "'") || text.length < 2 || text[text.length - 1] !== q) {
    throw new JsonPathError(`invalid quoted key ${text} in ${JSON.stringify(context)}`);
  }
  return text.slice(1, -1).replace(/\\(.)/g, '$1');
}

function parseOperand(text: string): Operand {
  if (text.startsWith('@') || text.startsWith('$')) {
    return { kind: 'path', relative: text.startsWith('@'), steps: new Parser(text).parse() };
  }
  if (text.startsWith('"') || text.startsWith("'")) return { kind: 'literal', value: unquote(text, text) };
  if (text === 'true' || text === 'false') return { kind: 'literal', value: text === 'true' };
  if (text === 'null') return { kind: 'literal', value: null };
  if (/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) return { kind: 'literal', value: Number(text) };
  throw new JsonPathError(`unrecognized filter operand ${text}`);
}

function parseFilter(text: string): Step {
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== '') {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      continue;
    }
    const two = text.slice(i, i + 2);
    const operator =
      (['==', '!=', '<=', '>='] as const).find((op) => op === two) ??
      (c === '<' || c === '>' ? c : undefined);
    if (operator) {
      const left = text.slice(0, i).trim();
      const right = text.slice(i + operator.length).trim();
      const leftOperand = parseOperand(left);
      if (leftOperand.kind !== 'path') throw new JsonPathError(`filter must start with a path: ${text}`);
      return { kind: 'filter', left: leftOperand.steps, operator, right: parseOperand(right) };
    }
  }
  const operand = parseOperand(text);
  if (operand.kind !== 'path') throw new JsonPathError(`filter must be a path: ${text}`);
  return { kind: 'filter', left: operand.steps };
}

/** Parses `{.spec.x}` or `.spec.x`; throws JsonPathError. */
export function parseJsonPath(expression: string): JsonPath {
  let text = expression.trim();
  if (text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1).trim();
  if (text.includes('{') || text.includes('}'))
    throw new JsonPathError(`unsupported template ${JSON.stringify(expression)}`);
  return { expression, steps: new Parser(text).parse() };
}

function descendants(value: unknown, out: unknown[]): void {
  out.push(value);
  if (Array.isArray(value)) for (const item of value) descendants(item, out);
  else if (isJsonObject(value)) for (const item of Object.values(value)) descendants(item, out);
}

function compare(left: unknown, operator: Operator, right: unknown): boolean {
  if (operator === '==') return jsonEqual(left, right);
  if (operator === '!=') return !jsonEqual(left, right);
  const comparable =
    (typeof left === 'number' && typeof right === 'number') ||
    (typeof left === 'string' && typeof right === 'string');
  if (!comparable) return false;
  const l = left as number | string;
  const r = right as number | string;
  switch (operator) {
    case '<':
      return l < r;
    case '>':
      return l > r;
    case '<=':
      return l <= r;
    default:
      return l >= r;
  }
}

function sliceOf(list: unknown[], step: { start?: number; end?: number; step?: number }): unknown[] {
  const len = list.length;
  const by = step.step ?? 1;
  if (by === 0) return [];
  const clamp = (n: number) => Math.min(Math.max(n < 0 ? n + len : n, 0), len);
  const out: unknown[] = [];
  if (by > 0) {
    for (let i = clamp(step.start ?? 0); i < clamp(step.end ?? len); i += by) out.push(list[i]);
  } else {
    const start = step.start === undefined ? len - 1 : Math.min(clamp(step.start), len - 1);
    const end = step.end === undefined ? -1 : clamp(step.end);
    for (let i = start; i > end; i += by) out.push(list[i]);
  }
  return out;
}

function run(steps: readonly Step[], input: unknown, root: unknown): unknown[] {
  let current: unknown[] = [input];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const value of current) apply(step, value, root, next);
    current = next;
  }
  return current;
}

function apply(step: Step, value: unknown, root: unknown, out: unknown[]): void {
  switch (step.kind) {
    case 'field':
      if (isJsonObject(value) && Object.hasOwn(value, step.name)) out.push(value[step.name]);
      return;
    case 'keys':
      if (isJsonObject(value))
        for (const name of step.names) if (Object.hasOwn(value, name)) out.push(value[name]);
      return;
    case 'wildcard':
      if (Array.isArray(value)) out.push(...value);
      else if (isJsonObject(value)) out.push(...Object.values(value));
      return;
    case 'recursive':
      descendants(value, out);
      return;
    case 'index':
      if (!Array.isArray(value)) return;
      for (const index of step.indexes) {
        const i = index < 0 ? value.length + index : index;
        if (i >= 0 && i < value.length) out.push(value[i]);
      }
      return;
    case 'slice':
      if (Array.isArray(value)) out.push(...sliceOf(value, step));
      return;
    case 'filter': {
      if (!Array.isArray(value)) return;
      for (const item of value) {
        const lefts = run(step.left, item, root);
        if (step.operator === undefined || step.right === undefined) {
          if (lefts.length > 0 && lefts[0] !== null && lefts[0] !== false) out.push(item);
          continue;
        }
        const right = step.right;
        const rights =
          right.kind === 'literal' ? [right.value] : run(right.steps, right.relative ? item : root, root);
        if (lefts.length > 0 && rights.length > 0 && compare(lefts[0], step.operator, rights[0]))
          out.push(item);
      }
      return;
    }
  }
}

/** Every value the path selects in data, in document order; [] when nothing matches. */
export function evaluateJsonPath(path: JsonPath | string, data: unknown): unknown[] {
  const parsed = typeof path === 'string' ? parseJsonPath(path) : path;
  return run(parsed.steps, data, data);
}

/** How `kubectl -o jsonpath` prints one result: strings raw, numbers as Go does, objects as compact JSON. */
export function formatJsonPathResult(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return goNumber(value);
  if (typeof value === 'boolean') return String(value);
  if (value === null || value === undefined) return 'null';
  return goJson(value);
}

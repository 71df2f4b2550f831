// Kubernetes' CEL environment: the CEL standard library and macros (has, all, exists, exists_one,
// map, filter), optional types (`self.?field`, optionalOldSelf), and the extension libraries
// kube-apiserver adds: strings, lists, regex, quantity, url, ip/cidr. Expressions are compiled once (parse, type-check with
// the declared variables as dyn, RE2 check of constant patterns) and evaluated many times.

import { Environment } from '@marcbachmann/cel-js';
import { type AstNode, children } from './ast.ts';
import { costExceeded } from './cost-guard.ts';
import { registerIPLibrary } from './library-ip.ts';
import { registerListsLibrary } from './library-lists.ts';
import { registerQuantityLibrary } from './library-quantity.ts';
import { compileRe2, RE2_MATCHES, registerRegexLibrary } from './library-regex.ts';
import { LOWER_ASCII, registerStringsLibrary, UPPER_ASCII } from './library-strings.ts';
import { registerUrlLibrary } from './library-url.ts';

function kubernetesBase(): Environment {
  const env = new Environment({
    enableOptionalTypes: true,
    // JSON lists and maps are heterogeneous (int-or-string, preserved unknown fields).
    homogeneousAggregateLiterals: false,
  });
  registerStringsLibrary(env);
  registerListsLibrary(env);
  registerRegexLibrary(env);
  registerQuantityLibrary(env);
  registerUrlLibrary(env);
  registerIPLibrary(env);
  return env;
}

let base: Environment | undefined;

const environments = new Map<string, Environment>();

/**
 * A CEL environment with Kubernetes' libraries and the given variables: names (dyn) or
 * [name, type] pairs (e.g. ['oldSelf', 'optional<dyn>']). One per distinct set, reused.
 */
export function celEnvironment(variables: readonly (string | readonly [string, string])[]): Environment {
  const declared = variables.map((v) => (typeof v === 'string' ? ([v, 'dyn'] as const) : v));
  const key = declared.map(([n, t]) => `${n}:${t}`).join(',');
  let env = environments.get(key);
  if (!env) {
    base ??= kubernetesBase();
    env = base.clone();
    for (const [name, type] of declared) env.registerVariable(name, type);
    environments.set(key, env);
  }
  return env;
}

const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

/** How deeply comprehension macros nest in an expression (0: none). */
function comprehensionDepth(n: AstNode): number {
  const inner = Math.max(0, ...children(n).map(comprehensionDepth));
  const isComprehension = n.op === 'rcall' && COMPREHENSIONS.has((n.args as unknown[])[0] as string);
  return inner + (isComprehension ? 1 : 0);
}

// Library functions whose semantics differ from cel-go's are called under other names: `matches`
// (a backtracking RegExp there, RE2 here), lowerAscii/upperAscii (which there change non-ASCII letters).
const REPLACED: Record<string, string> = {
  matches: RE2_MATCHES,
  lowerAscii: LOWER_ASCII,
  upperAscii: UPPER_ASCII,
};

/** Where replaced functions are called in the source, and the constant patterns given to `matches`. */
function replacedCalls(source: string, n: AstNode, at: [number, string][], patterns: string[]): void {
  const args = n.args as unknown[];
  const name = n.op === 'rcall' || n.op === 'call' ? (args[0] as string) : '';
  if (Object.hasOwn(REPLACED, name)) {
    const receiver = n.op === 'rcall' ? (args[1] as AstNode) : undefined;
    const i = source.indexOf(name, receiver ? receiver.end : n.start);
    if (i >= 0) at.push([i, name]);
    if (name === 'matches') {
      const pattern = (n.op === 'rcall' ? (args[2] as AstNode[])[0] : (args[1] as AstNode[])[1]) as
        | AstNode
        | undefined;
      if (pattern?.op === 'value' && typeof pattern.args === 'string') patterns.push(pattern.args);
    }
  }
  for (const c of children(n)) replacedCalls(source, c, at, patterns);
}

/** A library message with the replaced names put back. */
function userFacing(message: string): string {
  let out = message;
  for (const [name, replacement] of Object.entries(REPLACED)) out = out.replaceAll(replacement, name);
  return out;
}

export interface CompiledExpression {
  source: string;
  /** The parsed expression (before functions were routed to their replacements). */
  ast: AstNode;
  /** Comprehension nesting depth, for the cost guard. */
  depth: number;
  evaluate(context: Record<string, unknown>): unknown;
}

export class CelCompileError extends Error {}

/**
 * Parses and type-checks an expression; throws CelCompileError with the library's message.
 * `matches` is routed to the RE2 implementation (constant patterns must compile as RE2), and
 * lowerAscii/upperAscii to ASCII-only ones.
 */
export function compileExpression(env: Environment, source: string): CompiledExpression {
  let parsed: ReturnType<Environment['parse']>;
  try {
    parsed = env.parse(source);
  } catch (err) {
    throw new CelCompileError(firstLine(err));
  }
  const at: [number, string][] = [];
  const patterns: string[] = [];
  replacedCalls(source, parsed.ast as unknown as AstNode, at, patterns);
  for (const p of patterns) {
    try {
      compileRe2(p);
    } catch (err) {
      throw new CelCompileError(`invalid regular expression '${p}': ${firstLine(err)}`);
    }
  }
  let rewritten = source;
  for (const [i, name] of at.sort((a, b) => b[0] - a[0])) {
    rewritten = rewritten.slice(0, i) + REPLACED[name] + rewritten.slice(i + name.length);
  }
  const program = rewritten === source ? parsed : env.parse(rewritten);
  const checked = program.check();
  if (!checked.valid) {
    throw new CelCompileError(firstLine(checked.error));
  }
  const ast = parsed.ast as unknown as AstNode;
  return {
    source,
    ast,
    depth: comprehensionDepth(ast),
    evaluate: (context) => program(context),
  };
}

function firstLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return userFacing(message.split('\n')[0] ?? message);
}

export type CelOutcome = { ok: true; value: unknown } | { ok: false; error: string };

/** Runs a compiled expression; errors (and the cost guard's refusal) come back as messages. */
export function runExpression(
  expr: CompiledExpression,
  context: Record<string, unknown>,
  inputSize: number,
): CelOutcome {
  const refused = costExceeded(expr.depth, inputSize);
  if (refused) return { ok: false, error: refused };
  try {
    return { ok: true, value: expr.evaluate(context) };
  } catch (err) {
    return { ok: false, error: firstLine(err) };
  }
}

// Kubernetes' CEL environment: the CEL standard library and macros (has, all, exists, exists_one,
// map, filter), optional types (`self.?field`, optionalOldSelf), and the extension libraries
// kube-apiserver adds: strings, lists, regex. Expressions are compiled once (parse, type-check with
// the declared variables as dyn, RE2 check of constant patterns) and evaluated many times.

import { Environment } from '@marcbachmann/cel-js';
import { costExceeded } from './cost-guard.ts';
import { registerListsLibrary } from './library-lists.ts';
import { compileRe2, RE2_MATCHES, registerRegexLibrary } from './library-regex.ts';
import { registerStringsLibrary } from './library-strings.ts';

function kubernetesBase(): Environment {
  const env = new Environment({
    enableOptionalTypes: true,
    // JSON lists and maps are heterogeneous (int-or-string, preserved unknown fields).
    homogeneousAggregateLiterals: false,
  });
  registerStringsLibrary(env);
  registerListsLibrary(env);
  registerRegexLibrary(env);
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

interface AstNode {
  op: string;
  args: unknown;
  start: number;
  end: number;
}

function isNode(v: unknown): v is AstNode {
  return typeof v === 'object' && v !== null && 'op' in v && 'start' in v;
}

function children(n: AstNode): AstNode[] {
  const out: AstNode[] = [];
  const visit = (v: unknown): void => {
    if (isNode(v)) out.push(v);
    else if (Array.isArray(v)) v.forEach(visit);
  };
  if (n.op !== 'id' && n.op !== 'value') visit(n.args);
  return out;
}

const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

/** How deeply comprehension macros nest in an expression (0: none). */
function comprehensionDepth(n: AstNode): number {
  const inner = Math.max(0, ...children(n).map(comprehensionDepth));
  const isComprehension = n.op === 'rcall' && COMPREHENSIONS.has((n.args as unknown[])[0] as string);
  return inner + (isComprehension ? 1 : 0);
}

/** Where `matches` is called in the source, and the constant patterns it is given. */
function matchesCalls(source: string, n: AstNode, at: number[], patterns: string[]): void {
  const args = n.args as unknown[];
  if ((n.op === 'rcall' || n.op === 'call') && args[0] === 'matches') {
    const receiver = n.op === 'rcall' ? (args[1] as AstNode) : undefined;
    const from = receiver ? receiver.end : n.start;
    const name = source.indexOf('matches', from);
    if (name >= 0) at.push(name);
    const pattern = (n.op === 'rcall' ? (args[2] as AstNode[])[0] : (args[1] as AstNode[])[1]) as
      | AstNode
      | undefined;
    if (pattern?.op === 'value' && typeof pattern.args === 'string') patterns.push(pattern.args);
  }
  for (const c of children(n)) matchesCalls(source, c, at, patterns);
}

export interface CompiledExpression {
  source: string;
  /** Comprehension nesting depth, for the cost guard. */
  depth: number;
  evaluate(context: Record<string, unknown>): unknown;
}

export class CelCompileError extends Error {}

/**
 * Parses and type-checks an expression; throws CelCompileError with the library's message.
 * `matches` is routed to the RE2 implementation, and constant patterns must compile as RE2.
 */
export function compileExpression(env: Environment, source: string): CompiledExpression {
  let parsed: ReturnType<Environment['parse']>;
  try {
    parsed = env.parse(source);
  } catch (err) {
    throw new CelCompileError(firstLine(err));
  }
  const at: number[] = [];
  const patterns: string[] = [];
  matchesCalls(source, parsed.ast as unknown as AstNode, at, patterns);
  for (const p of patterns) {
    try {
      compileRe2(p);
    } catch (err) {
      throw new CelCompileError(`invalid regular expression '${p}': ${firstLine(err)}`);
    }
  }
  let rewritten = source;
  for (const i of at.sort((a, b) => b - a)) {
    rewritten = rewritten.slice(0, i) + RE2_MATCHES + rewritten.slice(i + 'matches'.length);
  }
  const program = rewritten === source ? parsed : env.parse(rewritten);
  const checked = program.check();
  if (!checked.valid) {
    const message = firstLine(checked.error).replaceAll(RE2_MATCHES, 'matches');
    throw new CelCompileError(message);
  }
  return {
    source,
    depth: comprehensionDepth(parsed.ast as unknown as AstNode),
    evaluate: (context) => program(context),
  };
}

function firstLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return (message.split('\n')[0] ?? message).replaceAll(RE2_MATCHES, 'matches');
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

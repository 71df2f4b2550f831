// Kubernetes' regex library (find, findAll) and `matches` with RE2 semantics, as kube-apiserver has
// them. Patterns are compiled with re2js: linear-time matching, so a user's rule cannot hang the
// server the way a backtracking RegExp can (`(a+)+$`), and Go's syntax (`(?i)`, `\pL`) is accepted
// while what RE2 refuses (lookahead, backreferences) is refused here too.

import type { Environment } from '@marcbachmann/cel-js';
import { EvaluationError } from '@marcbachmann/cel-js';
import { RE2JS } from 're2js';

// Rules are evaluated on every write; the same few patterns recur.
const compiled = new Map<string, RE2JS>();
const CACHE_LIMIT = 500;

/** The RE2 program for a pattern; throws with RE2's message when it does not compile. */
export function compileRe2(pattern: string): RE2JS {
  let re = compiled.get(pattern);
  if (re === undefined) {
    re = RE2JS.compile(pattern);
    if (compiled.size >= CACHE_LIMIT) compiled.clear();
    compiled.set(pattern, re);
  }
  return re;
}

function regex(pattern: string): RE2JS {
  try {
    return compileRe2(pattern);
  } catch (err) {
    throw new EvaluationError(`invalid regular expression '${pattern}': ${(err as Error).message}`);
  }
}

/** The name `matches` calls are renamed to (the library's own `matches` uses a backtracking RegExp). */
export const RE2_MATCHES = 'matchesRe2';

function findAll(s: string, pattern: string, limit: bigint): string[] {
  const out: string[] = [];
  if (limit === 0n) return out;
  const m = regex(pattern).matcher(s);
  while (m.find()) {
    out.push(m.group() ?? '');
    if (limit > 0n && BigInt(out.length) >= limit) break;
  }
  return out;
}

export function registerRegexLibrary(env: Environment): void {
  env.registerFunction(`string.${RE2_MATCHES}(string): bool`, (s: string, p: string) =>
    regex(p).matcher(s).find(),
  );
  env.registerFunction(`${RE2_MATCHES}(string, string): bool`, (s: string, p: string) =>
    regex(p).matcher(s).find(),
  );
  env.registerFunction('string.find(string): string', (s: string, p: string) => {
    const m = regex(p).matcher(s);
    return m.find() ? (m.group() ?? '') : '';
  });
  env.registerFunction('string.findAll(string): list<string>', (s: string, p: string) => findAll(s, p, -1n));
  env.registerFunction('string.findAll(string, int): list<string>', (s: string, p: string, n: bigint) =>
    findAll(s, p, n),
  );
}

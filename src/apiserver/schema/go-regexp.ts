// CRD `pattern`s are Go regular expressions, matched by kube-apiserver with Go's regexp package (RE2:
// linear time in the input, no backtracking). re2js is a port of RE2/Go's regexp/syntax to JavaScript,
// so patterns parse, fail and match as they do in kube — and a pattern such as `^(a+)+$` cannot stall
// the server the way a backtracking engine (V8's RegExp) would.

import { RE2JS, RE2JSSyntaxException } from 're2js';

export class GoRegexpError extends Error {}

const cache = new Map<string, RE2JS | GoRegexpError>();
const CACHE_LIMIT = 1000;

// Go's syntax.Error always ends in ": `expr`", even when expr is empty (trailing backslash).
function goMessage(message: string): string {
  return message.endsWith('`') ? message : `${message}: \`\``;
}

/** Compiles a Go regular expression; throws GoRegexpError with regexp.Compile's message. */
export function compileGoRegexp(pattern: string): RE2JS {
  let compiled = cache.get(pattern);
  if (compiled === undefined) {
    try {
      compiled = RE2JS.compile(pattern);
    } catch (err) {
      if (!(err instanceof RE2JSSyntaxException)) throw err;
      compiled = new GoRegexpError(goMessage(err.message));
    }
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(pattern, compiled);
  }
  if (compiled instanceof GoRegexpError) throw compiled;
  return compiled;
}

/** Go's regexp.MatchString: an unanchored search. */
export function goRegexpMatches(pattern: string, value: string): boolean {
  return compileGoRegexp(pattern).matcher(value).find();
}

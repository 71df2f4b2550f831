// Objects nested deeper than this are refused with 400 before anything walks them: validation,
// pruning, cloning and patching recurse, and a body of a few kilobytes nested ~2,000 levels deep
// would otherwise overflow the stack (an unlogged 500). kube's JSON decoder stops at 10,000 levels;
// no real object comes near either bound.

import { badRequest } from './errors.ts';

export const MAX_JSON_DEPTH = 512;

/** Nesting depth of a JSON value (a scalar is 0), counted without recursion; stops past `limit`. */
export function jsonDepth(value: unknown, limit = MAX_JSON_DEPTH): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    const level = depth + 1;
    if (level > deepest) deepest = level;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) stack.push([child, level]);
    }
  }
  return deepest;
}

/** Throws 400 BadRequest when `value` nests deeper than MAX_JSON_DEPTH; `what` names it. */
export function assertJsonDepth(value: unknown, what: string): void {
  if (jsonDepth(value) > MAX_JSON_DEPTH) {
    throw badRequest(`${what}: json: exceeded max depth of ${MAX_JSON_DEPTH} nested objects and arrays`);
  }
}

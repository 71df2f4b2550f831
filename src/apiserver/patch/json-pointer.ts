// JSON Pointer (RFC 6901) parsing: "/a/b~1c/0" → ["a", "b/c", "0"]. Only ~0 and ~1 are escapes.

/** Returns the reference tokens, or an error message for a malformed pointer. */
export function parseJsonPointer(pointer: string): string[] | { error: string } {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return { error: `JSON pointer "${pointer}" must be empty or start with "/"` };
  const tokens: string[] = [];
  for (const raw of pointer.slice(1).split('/')) {
    if (/~(?![01])/.test(raw)) return { error: `JSON pointer "${pointer}" has an invalid escape sequence` };
    tokens.push(raw.replaceAll('~1', '/').replaceAll('~0', '~'));
  }
  return tokens;
}

/** An array index token: "0", "12" (no sign, no leading zeros), or undefined. */
export function parseArrayIndex(token: string): number | undefined {
  return /^(0|[1-9][0-9]*)$/.test(token) ? Number(token) : undefined;
}

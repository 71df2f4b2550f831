// Key order shared by the in-memory index and SQLite. SQLite's BINARY collation compares UTF-8 bytes, which
// is Unicode code point order; JavaScript's `<` compares UTF-16 code units, which differs for characters
// above U+FFFF. Both sides must agree, or paging that mixes memory and SQL reads would skip or repeat keys.

/** Code point order: a surrogate (half of a character above U+FFFF) sorts after U+E000..U+FFFF. */
export function compareKeys(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}

/**
 * The smallest string greater than every string that starts with prefix, or undefined when no such bound
 * exists (the empty prefix). Lets a prefix scan be an exact index range `key >= prefix AND key < bound`
 * without LIKE and its wildcards.
 */
export function prefixUpperBound(prefix: string): string | undefined {
  let head = prefix;
  while (head.length > 0) {
    const last = lastCodePoint(head);
    head = head.slice(0, head.length - (last > 0xffff ? 2 : 1));
    if (last < 0x10ffff) {
      const next = last + 1 === 0xd800 ? 0xe000 : last + 1;
      return head + String.fromCodePoint(next);
    }
  }
  return undefined;
}

function lastCodePoint(text: string): number {
  const low = text.charCodeAt(text.length - 1);
  if (low >= 0xdc00 && low <= 0xdfff && text.length >= 2) {
    const high = text.charCodeAt(text.length - 2);
    if (high >= 0xd800 && high <= 0xdbff) return (high - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
  }
  return low;
}

// The JSON text of the objects the store hands out. They are deeply frozen and shared (types.ts), so the
// text of one never changes: the answer to a write and every watch event of it serialise the same object
// (a NodeConfigRevision watched by the 1,000 agents of its pool would be serialised 1,000 times), and so
// do the lists and gets that follow. The texts of the objects serialised last are kept, up to a number of
// characters: the store's objects are many and their texts as large as they are, while a write's object
// is serialised again within milliseconds of the write, if at all.

/** Objects the store froze: only their text is known not to change. */
const storeObjects = new WeakSet<object>();
/** Kept texts, oldest first. */
const recent = new Map<object, string>();
const KEPT_CHARS = 8 * 1024 * 1024;
let keptChars = 0;

/** Records an object as the store's (deeply frozen, never to change); returns it. */
export function markStored<T extends object>(object: T): T {
  storeObjects.add(object);
  return object;
}

/** JSON.stringify(value), answered from the kept texts for an object of the store. */
export function jsonText(value: unknown): string {
  if (typeof value !== 'object' || value === null || !storeObjects.has(value)) return JSON.stringify(value);
  const known = recent.get(value);
  if (known !== undefined) return known;
  const text = JSON.stringify(value);
  if (text.length <= KEPT_CHARS / 16) {
    keptChars += text.length;
    recent.set(value, text);
    for (const [oldest, oldText] of recent) {
      if (keptChars <= KEPT_CHARS) break;
      recent.delete(oldest);
      keptChars -= oldText.length;
    }
  }
  return text;
}

/** The JSON text of a list body `{kind, apiVersion, metadata, items}`, its items through jsonText. */
export function listJsonText(list: {
  kind: string;
  apiVersion: string;
  metadata: unknown;
  items: unknown[];
}): string {
  const head = JSON.stringify({ kind: list.kind, apiVersion: list.apiVersion, metadata: list.metadata });
  return `${head.slice(0, -1)},"items":[${list.items.map(jsonText).join(',')}]}`;
}

// The JSON text of the objects the store hands out. They are deeply frozen and shared (types.ts), so the
// text of one never changes: the answer to a write and every watch event of it serialise the same object
// (a NodeConfigRevision watched by the 1,000 agents of its pool would be serialised 1,000 times), and so
// do the lists and gets that follow. The texts of the objects serialised last are kept, up to a number of
// characters: the store's objects are many and their texts as large as they are, while a write's object
// is serialised again within milliseconds of the write, if at all. Texts are held weakly by their objects,
// so an object the store has replaced is not kept alive for its text.

/** Objects the store froze: only their text is known not to change. */
const storeObjects = new WeakSet<object>();
/** Kept texts. Weak: a text never keeps an object the store has replaced alive. */
const texts = new WeakMap<object, string>();
/** The objects whose texts are kept, oldest first, with their lengths, to bound what is kept. */
const kept: { object: WeakRef<object>; chars: number }[] = [];
let keptFrom = 0;
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
  const known = texts.get(value);
  if (known !== undefined) return known;
  const text = JSON.stringify(value);
  if (text.length <= KEPT_CHARS / 16) {
    texts.set(value, text);
    kept.push({ object: new WeakRef(value), chars: text.length });
    keptChars += text.length;
    while (keptChars > KEPT_CHARS) {
      const oldest = kept[keptFrom++]!;
      const object = oldest.object.deref();
      if (object !== undefined) texts.delete(object);
      keptChars -= oldest.chars;
    }
    if (keptFrom > 1024 && keptFrom * 2 > kept.length) {
      kept.splice(0, keptFrom);
      keptFrom = 0;
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

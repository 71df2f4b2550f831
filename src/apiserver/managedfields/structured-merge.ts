// The value side of server-side apply, after structured-merge-diff's semantics: which fields a value
// sets, how two versions of an object differ field by field, how an applied configuration merges into
// the live object, and how fields a manager stopped applying are removed. Pure functions over JSON
// values and a FieldType; nothing here knows about managers or HTTP.

import { jsonEqual } from '../../util/json-equal.ts';
import { isPlainObject } from '../../util/plain-object.ts';
import { FieldSet, fieldElement, indexElement, keyElement, valueElement } from './field-set.ts';
import type { FieldType, ListType } from './field-types.ts';

type Json = unknown;
type JsonMap = Record<string, Json>;

function isMap(value: Json): value is JsonMap {
  return isPlainObject(value);
}

/** The path element of a list item: its key fields (map lists), its value (sets), else its index. */
export function itemElement(item: Json, index: number, list: ListType): string {
  if (list.kind === 'set') return valueElement(item);
  if (list.kind === 'map' && isMap(item)) {
    const keys: Record<string, Json> = {};
    for (const k of list.keys) if (item[k] !== undefined) keys[k] = item[k];
    if (Object.keys(keys).length > 0) return keyElement(keys);
  }
  return indexElement(index);
}

/** The items of a granular list by path element; a repeated element keeps its first item. */
function indexItems(items: Json[], list: ListType): { order: string[]; byElement: Map<string, Json> } {
  const order: string[] = [];
  const byElement = new Map<string, Json>();
  items.forEach((item, i) => {
    const element = itemElement(item, i, list);
    order.push(element);
    if (!byElement.has(element)) byElement.set(element, item);
  });
  return { order, byElement };
}

function granularList(value: Json, type: FieldType): value is Json[] {
  return Array.isArray(value) && type.list.kind !== 'atomic';
}

function granularMap(value: Json, type: FieldType): value is JsonMap {
  return isMap(value) && !type.atomicMap;
}

/**
 * The fields an applied configuration sets (structured-merge-diff's ToFieldSet): every scalar, atomic
 * value, null, empty object and list item is a member; objects and lists with content are not
 * members themselves, so applying `labels: {a: "1"}` owns `.metadata.labels.a` and not the map.
 */
export function appliedFieldSet(value: Json, type: FieldType): FieldSet {
  const set = FieldSet.empty();
  const walk = (v: Json, t: FieldType, node: FieldSet, root: boolean) => {
    if (granularMap(v, t)) {
      if (Object.keys(v).length === 0 && !root) node.member = true;
      for (const [k, child] of Object.entries(v)) {
        if (child !== undefined) walk(child, t.field(k), node.child(fieldElement(k)), false);
      }
    } else if (granularList(v, t)) {
      v.forEach((item, i) => {
        const child = node.child(itemElement(item, i, t.list));
        walk(item, t.item(), child, false);
        child.member = true;
      });
    } else if (!root) {
      node.member = true;
    }
  };
  walk(value, type, set, true);
  return set;
}

/** Every path in a value, containers included (what a manager owns when it adds a whole subtree). */
export function fullFieldSet(value: Json, type: FieldType): FieldSet {
  const set = FieldSet.empty();
  addSubtree(value, type, set, true);
  return set;
}

function addSubtree(v: Json, t: FieldType, node: FieldSet, root = false): void {
  if (!root) node.member = true;
  if (granularMap(v, t)) {
    for (const [k, child] of Object.entries(v)) {
      if (child !== undefined) addSubtree(child, t.field(k), node.child(fieldElement(k)));
    }
  } else if (granularList(v, t)) {
    v.forEach((item, i) => {
      addSubtree(item, t.item(), node.child(itemElement(item, i, t.list)));
    });
  }
}

export interface Comparison {
  /** Paths only in the new value (whole subtrees). */
  added: FieldSet;
  /** Leaves (and atomic values) whose value changed. */
  modified: FieldSet;
  /** Paths only in the old value (whole subtrees). */
  removed: FieldSet;
}

/** How `after` differs from `before`, path by path (structured-merge-diff's Compare). */
export function compareValues(before: Json, after: Json, type: FieldType): Comparison {
  const result: Comparison = {
    added: FieldSet.empty(),
    modified: FieldSet.empty(),
    removed: FieldSet.empty(),
  };
  const walk = (a: Json, b: Json, t: FieldType, path: string[]) => {
    if (a === undefined && b === undefined) return;
    if (a === undefined) {
      addSubtree(b, t, nodeAt(result.added, path), path.length === 0);
      return;
    }
    if (b === undefined) {
      addSubtree(a, t, nodeAt(result.removed, path), path.length === 0);
      return;
    }
    if (granularMap(a, t) && granularMap(b, t)) {
      for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
        walk(a[k], b[k], t.field(k), [...path, fieldElement(k)]);
      }
      return;
    }
    if (granularList(a, t) && granularList(b, t)) {
      const left = indexItems(a, t.list).byElement;
      const right = indexItems(b, t.list).byElement;
      for (const element of new Set([...left.keys(), ...right.keys()])) {
        walk(left.get(element), right.get(element), t.item(), [...path, element]);
      }
      return;
    }
    if (!jsonEqual(a, b)) result.modified.insert(path);
  };
  walk(before, after, type, []);
  return result;
}

function nodeAt(set: FieldSet, path: readonly string[]): FieldSet {
  let node = set;
  for (const element of path) node = node.child(element);
  return node;
}

/**
 * Merges an applied configuration into the live value: objects field by field, map lists item by key,
 * sets by value, everything atomic replaced. Items of a list keep structured-merge-diff's order: shared
 * items in the configuration's order, live-only items where they were, new items where the
 * configuration has them.
 */
export function mergeApplied(live: Json, config: Json, type: FieldType): Json {
  if (config === undefined) return live;
  if (granularMap(live, type) && granularMap(config, type)) {
    const out: JsonMap = { ...live };
    for (const [k, v] of Object.entries(config)) {
      if (v !== undefined) out[k] = mergeApplied(live[k], v, type.field(k));
    }
    return out;
  }
  if (granularList(live, type) && granularList(config, type)) return mergeLists(live, config, type);
  return structuredClone(config);
}

function mergeLists(live: Json[], config: Json[], type: FieldType): Json[] {
  const left = indexItems(live, type.list);
  const right = indexItems(config, type.list);
  const shared = right.order.filter((e) => left.byElement.has(e));
  let nextShared = 0;
  const done = new Set<string>();
  const out: Json[] = [];
  const itemType = type.item();
  const takeRight = (element: string) => {
    done.add(element);
    out.push(mergeApplied(left.byElement.get(element), right.byElement.get(element), itemType));
    if (shared[nextShared] === element) nextShared++;
  };
  let l = 0;
  let r = 0;
  while (l < left.order.length || r < right.order.length) {
    if (l < left.order.length && r < right.order.length) {
      const element = left.order[l]!;
      if (element === right.order[r]) {
        if (!done.has(element)) takeRight(element);
        l++;
        r++;
        continue;
      }
      // A shared item out of turn waits for its place in the configuration's order.
      if (right.byElement.has(element) && nextShared < shared.length && shared[nextShared] !== element) {
        l++;
        continue;
      }
    }
    if (l < left.order.length) {
      const element = left.order[l]!;
      if (!right.byElement.has(element)) {
        out.push(live[l]);
        l++;
        continue;
      }
      if (done.has(element)) {
        l++;
        continue;
      }
    }
    if (r < right.order.length) {
      const element = right.order[r]!;
      if (!done.has(element)) takeRight(element);
      r++;
    }
  }
  return out;
}

function emptyContainer(value: Json): boolean {
  return (Array.isArray(value) && value.length === 0) || (isMap(value) && Object.keys(value).length === 0);
}

/**
 * Removes the members of `remove` from a value, except where `keep` (fields someone still owns) has
 * something at or below them. A field with content that nobody keeps anything of goes as a whole, with
 * what nobody owns below it (server defaults, say), as structured-merge-diff treats named fields as
 * members; `.metadata` (server-owned fields) is never removed as a whole.
 */
export function removeFields(
  value: Json,
  remove: FieldSet,
  keep: FieldSet,
  type: FieldType,
  root = true,
): Json {
  const decide = (child: Json, element: string, t: FieldType): { drop: boolean; value?: Json } => {
    const node = remove.children.get(element);
    if (!node) return { drop: false, value: child };
    const kept = keep.children.get(element);
    const nobodyKeeps = !kept || kept.isEmpty();
    if (node.member && nobodyKeeps) return { drop: true };
    if (node.children.size === 0) return { drop: false, value: child };
    const wholeField = element.startsWith('f:') && !(root && element === 'f:metadata');
    if (nobodyKeeps && wholeField) return { drop: true };
    const pruned = removeFields(child, node, kept ?? FieldSet.empty(), t, false);
    if (nobodyKeeps && emptyContainer(pruned) && !emptyContainer(child)) return { drop: true };
    return { drop: false, value: pruned };
  };
  if (granularMap(value, type)) {
    const out: JsonMap = {};
    for (const [k, v] of Object.entries(value)) {
      const d = decide(v, fieldElement(k), type.field(k));
      if (!d.drop) out[k] = d.value;
    }
    return out;
  }
  if (granularList(value, type)) {
    const out: Json[] = [];
    const keys = type.list.kind === 'map' ? type.list.keys : [];
    value.forEach((item, i) => {
      const d = decide(item, itemElement(item, i, type.list), type.item());
      if (d.drop) return;
      // An item that stays keeps its key fields, whoever owned them.
      if (isMap(item) && isMap(d.value)) {
        for (const k of keys) if (item[k] !== undefined && d.value[k] === undefined) d.value[k] = item[k];
      }
      out.push(d.value);
    });
    return out;
  }
  return value;
}

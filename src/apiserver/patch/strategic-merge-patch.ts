// Strategic merge patch, the server half: applies a patch to a stored built-in object the way
// apimachinery's strategicpatch.StrategicMergeMapPatch does, driven by the PatchMeta table instead
// of Go struct tags.
//
// Semantics in short: objects merge key by key and null deletes a key; lists are replaced unless
// their metadata says `merge`, in which case items are matched by the merge key (or, for lists of
// scalars, by value) and merged. Directives:
//   $patch: replace | delete | merge     on an object or on a list item
//   $retainKeys: [...]                   drop every key of the stored object not listed
//   $setElementOrder/<list>: [...]       final order of the list (items present in the patch first)
//   $deleteFromPrimitiveList/<list>: []  scalars to remove from a merged list of scalars
// New items are placed ahead of stored ones unless $setElementOrder says otherwise, as in Kubernetes.
//
// Deliberate leniencies (the real server answers an error): `$patch: merge` is accepted on objects
// and list items and means "merge as usual"; `$patch: replace` on an object with nothing stored
// under it keeps the object (the real server drops it).

import { badRequest } from '../errors.ts';
import type { PatchMeta } from './builtin-patch-meta.ts';
import { goTypeName, goValue } from './go-format.ts';
import {
  cloneJson,
  hasKey,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  jsonTypeName,
  setKey,
} from './json-value.ts';
import { patchNotApplicable, unconvertedPatchError } from './patch-errors.ts';

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const SET_ELEMENT_ORDER = '$setElementOrder';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';

type ElementKind = 'map' | 'scalar';

function fieldMeta(meta: PatchMeta | undefined, field: string): PatchMeta | undefined {
  const fields = meta?.fields;
  return fields && Object.hasOwn(fields, field) ? fields[field] : undefined;
}

function noMergeKey(item: JsonValue, mergeKey: string): Error {
  return unconvertedPatchError(`map: ${goValue(item)} does not contain declared merge key: ${mergeKey}`);
}

function badArgType(expected: string, actual: JsonValue | undefined): Error {
  return unconvertedPatchError(`expected a ${expected}, but received a ${goTypeName(actual)}`);
}

function unknownDirective(directive: JsonValue | undefined, item: JsonObject): Error {
  return unconvertedPatchError(`unknown patch type: ${goValue(directive)} in map: ${goValue(item)}`);
}

/** "$setElementOrder/containers" → "containers"; anything else after the prefix is malformed (400). */
function directiveTarget(key: string, prefix: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    throw badRequest(
      prefix === SET_ELEMENT_ORDER
        ? 'invalid patch format of setElementOrder list'
        : 'invalid patch format of primitive list',
    );
  }
  return key.slice(slash + 1);
}

/**
 * A patch value stored where nothing was there to merge with: null members are dropped, objects
 * carrying `$patch: delete` vanish, and other directives are stripped (the typed decoding of a real
 * server drops them as unknown fields).
 */
function cleanNewValue(value: JsonValue): JsonValue | undefined {
  if (Array.isArray(value)) {
    const items: JsonValue[] = [];
    for (const item of value) {
      const cleaned = cleanNewValue(item);
      if (cleaned !== undefined) items.push(cleaned);
    }
    return items;
  }
  if (!isJsonObject(value)) return value;
  if (hasKey(value, DIRECTIVE)) {
    const directive = value[DIRECTIVE];
    if (directive !== 'replace' && directive !== 'merge') return undefined;
  }
  const result: JsonObject = {};
  for (const [key, member] of Object.entries(value)) {
    if (member === null || key.startsWith('$')) continue;
    const cleaned = cleanNewValue(member);
    if (cleaned !== undefined) setKey(result, key, cleaned);
  }
  return result;
}

/** Kind shared by every element of the lists; mixed kinds and lists of lists are rejected. */
function elementKind(...lists: JsonValue[][]): ElementKind {
  let seen: string | undefined;
  for (const list of lists) {
    for (const item of list) {
      const type = jsonTypeName(item);
      if (seen === undefined) {
        if (type === 'array') throw patchNotApplicable('lists of lists are not supported');
        seen = type;
      } else if (seen !== type) {
        throw unconvertedPatchError(`list element types are not identical: ${goValue(lists)}`);
      }
    }
  }
  if (seen === undefined) throw unconvertedPatchError('no elements in any of the given slices');
  return seen === 'object' ? 'map' : 'scalar';
}

/** The identity of a list item: its merge key value for objects, the value itself for scalars. */
function identity(item: JsonValue, mergeKey: string, kind: ElementKind): JsonValue | undefined {
  if (kind !== 'map') return item;
  return isJsonObject(item) && hasKey(item, mergeKey) ? item[mergeKey] : undefined;
}

function indexIn(list: JsonValue[], item: JsonValue, mergeKey: string, kind: ElementKind): number {
  const wanted = identity(item, mergeKey, kind);
  return list.findIndex((candidate) => identity(candidate, mergeKey, kind) === wanted);
}

function requireMergeKeys(mergeKey: string, ...lists: JsonValue[][]): void {
  for (const list of lists) {
    for (const item of list) {
      if (!isJsonObject(item)) throw badArgType('map[string]interface {}', item);
      if (!hasKey(item, mergeKey)) throw noMergeKey(item, mergeKey);
    }
  }
}

function isDeleteItem(item: JsonValue): boolean {
  return isJsonObject(item) && item[DIRECTIVE] === 'delete';
}

/** Sorts `items` by their position in `order` (stable; unknown items last), deletions at the end. */
function sortByOrder(
  items: JsonValue[],
  order: JsonValue[],
  mergeKey: string,
  kind: ElementKind,
): JsonValue[] {
  let kept = items;
  let deletions: JsonValue[] = [];
  if (kind === 'map') {
    requireMergeKeys(mergeKey, items, order);
    kept = items.filter((item) => !isDeleteItem(item));
    deletions = items.filter(isDeleteItem);
  }
  const position = (item: JsonValue) => {
    const index = indexIn(order, item, mergeKey, kind);
    return index < 0 ? Number.POSITIVE_INFINITY : index;
  };
  const sorted = kept
    .map((item, i) => ({ item, at: position(item), i }))
    .sort((a, b) => (a.at === b.at ? a.i - b.i : a.at - b.at))
    .map(({ item }) => item);
  return [...sorted, ...deletions];
}

/**
 * Interleaves the stored-only items into the patch items: each stored item goes before the first
 * patch item it preceded in the stored list; patch items unknown to the stored list come first.
 */
function interleave(
  serverOnly: JsonValue[],
  patchItems: JsonValue[],
  serverOrder: JsonValue[],
  mergeKey: string,
  kind: ElementKind,
): JsonValue[] {
  const result: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < patchItems.length) {
    if (i >= serverOnly.length) {
      result.push(patchItems[j++]!);
    } else if (j >= patchItems.length) {
      result.push(serverOnly[i++]!);
    } else {
      const left = indexIn(serverOrder, serverOnly[i]!, mergeKey, kind);
      const right = indexIn(serverOrder, patchItems[j]!, mergeKey, kind);
      if (left >= 0 && right >= 0 && left < right) result.push(serverOnly[i++]!);
      else result.push(patchItems[j++]!);
    }
  }
  return result;
}

/** Orders a merged list: patch items in `patchOrder`, stored-only items in stored order, interleaved. */
function orderMerged(
  merged: JsonValue[],
  patchOrder: JsonValue[],
  serverOrder: JsonValue[],
  mergeKey: string,
  kind: ElementKind,
): JsonValue[] {
  const patchItems: JsonValue[] = [];
  const serverOnly: JsonValue[] = [];
  if (kind === 'map') requireMergeKeys(mergeKey, merged);
  for (const item of merged) {
    (indexIn(patchOrder, item, mergeKey, kind) >= 0 ? patchItems : serverOnly).push(item);
  }
  return interleave(
    sortByOrder(serverOnly, serverOrder, mergeKey, kind),
    sortByOrder(patchItems, patchOrder, mergeKey, kind),
    serverOrder,
    mergeKey,
    kind,
  );
}

/** Applies `$patch: delete|replace|merge` list items; returns the stored list and the remaining patch. */
function applyItemDirectives(
  stored: JsonValue[],
  patch: JsonValue[],
  mergeKey: string,
): [JsonValue[], JsonValue[]] {
  const rest: JsonValue[] = [];
  let remaining = stored;
  let replace = false;
  for (const item of patch as JsonObject[]) {
    if (!hasKey(item, DIRECTIVE)) {
      rest.push(item);
      continue;
    }
    const directive = item[DIRECTIVE];
    if (directive === 'delete') {
      if (!hasKey(item, mergeKey)) throw noMergeKey(item, mergeKey);
      const key = item[mergeKey];
      remaining = remaining.filter((s) => !(isJsonObject(s) && hasKey(s, mergeKey) && s[mergeKey] === key));
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      const plain = { ...item };
      delete plain[DIRECTIVE];
      rest.push(plain);
    } else {
      throw unknownDirective(directive, item);
    }
  }
  if (replace) return [rest.map((item) => cleanNewValue(item)!), []];
  return [remaining, rest];
}

function mergeList(
  stored: JsonValue[],
  patch: JsonValue[],
  meta: PatchMeta,
  isDeleteList: boolean,
): JsonValue[] {
  if (stored.length === 0 && patch.length === 0) return stored;
  const mergeKey = meta.mergeKey ?? '';
  const kind = elementKind(stored, patch);
  if (kind === 'scalar') {
    if (isDeleteList) return stored.filter((item) => !patch.includes(item));
    const merged = [...new Set([...stored, ...patch])];
    return orderMerged(merged, patch, stored, mergeKey, kind);
  }
  if (!mergeKey) throw unconvertedPatchError('cannot merge lists without merge key for type struct');
  const [remaining, rest] = applyItemDirectives(stored, patch, mergeKey);
  const merged = [...remaining];
  for (const item of rest as JsonObject[]) {
    if (!hasKey(item, mergeKey)) throw noMergeKey(item, mergeKey);
    const at = merged.findIndex(
      (s) => isJsonObject(s) && hasKey(s, mergeKey) && s[mergeKey] === item[mergeKey],
    );
    if (at >= 0) merged[at] = mergeMap(merged[at] as JsonObject, item, meta);
    else merged.push(cleanNewValue(item)!);
  }
  return orderMerged(merged, rest, remaining, mergeKey, kind);
}

/** A list field: merged when its metadata says so, else replaced by the patch. */
function mergeListField(
  stored: JsonValue[],
  patch: JsonValue[],
  meta: PatchMeta | undefined,
  isDeleteList: boolean,
): JsonValue[] {
  if (meta?.strategy === 'merge') return mergeList(stored, patch, meta, isDeleteList);
  return cleanNewValue(patch) as JsonValue[];
}

/** `$retainKeys`: every other key of the stored object goes; the patch may only set listed keys. */
function applyRetainKeys(stored: JsonObject, patch: JsonObject): void {
  if (!hasKey(patch, RETAIN_KEYS)) return;
  const listed = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(listed)) throw badRequest('invalid patch format of retainKeys');
  const retained = new Set(listed);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || key.startsWith(DELETE_FROM_PRIMITIVE_LIST) || key.startsWith(SET_ELEMENT_ORDER))
      continue;
    if (!retained.has(key)) throw badRequest('invalid patch format of retainKeys');
  }
  for (const key of Object.keys(stored)) {
    if (!retained.has(key)) delete stored[key];
  }
}

/** Checks the patch list against `$setElementOrder`: same relative order, no item missing from it. */
function checkAgainstOrder(patchList: JsonValue[], order: JsonValue[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  let items = patchList;
  if (mergeKey) {
    for (const item of patchList) if (!isJsonObject(item)) throw badArgType('map[string]interface {}', item);
    items = patchList.filter((item) => !isDeleteItem(item));
  }
  const sameItem = (left: JsonValue, right: JsonValue): boolean => {
    if (!mergeKey) return left === right;
    if (!isJsonObject(left)) throw badArgType('map[string]interface {}', left);
    if (!isJsonObject(right)) throw badArgType('map[string]interface {}', right);
    if (!hasKey(left, mergeKey)) throw noMergeKey(left, mergeKey);
    if (!hasKey(right, mergeKey)) throw noMergeKey(right, mergeKey);
    return left[mergeKey] === right[mergeKey];
  };
  let p = 0;
  let s = 0;
  while (p < items.length && s < order.length) {
    if (isJsonObject(items[p]) && hasKey(items[p] as JsonObject, DIRECTIVE)) {
      p++;
      continue;
    }
    if (sameItem(items[p]!, order[s]!)) p++;
    s++;
  }
  if (p < items.length) {
    throw unconvertedPatchError(
      `the order in patch list:\n${goValue(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goValue(order)}`,
    );
  }
}

/** Merges every list named by a `$setElementOrder/<list>` directive and puts it in that order. */
function mergeOrderedLists(stored: JsonObject, patch: JsonObject, meta: PatchMeta | undefined): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw badArgType('[]interface {}', order);
    const field = directiveTarget(key, SET_ELEMENT_ORDER);
    const inStored = hasKey(stored, field);
    const inPatch = hasKey(patch, field);
    const storedList = stored[field];
    const patchList = patch[field];
    if (inStored && !Array.isArray(storedList)) throw badArgType('[]interface {}', storedList);
    if (inPatch && !Array.isArray(patchList)) throw badArgType('[]interface {}', patchList);
    const storedItems = (storedList ?? []) as JsonValue[];
    const patchItems = (patchList ?? []) as JsonValue[];
    const listMeta = fieldMeta(meta, field);
    const mergeKey = listMeta?.mergeKey ?? '';
    checkAgainstOrder(patchItems, order, mergeKey);

    let merged: JsonValue[];
    if (inStored && inPatch) merged = mergeListField(storedItems, patchItems, listMeta, false);
    else if (inPatch) merged = cleanNewValue(patchItems) as JsonValue[];
    else if (inStored) merged = storedItems;
    else continue;
    delete patch[field];

    // Nothing to order, or (lists of objects without a merge key) nothing to order by.
    const empty = storedItems.length === 0 && patchItems.length === 0;
    const kind = empty ? 'scalar' : elementKind(storedItems, patchItems);
    if (empty || (kind === 'map' && !mergeKey)) setKey(stored, field, merged);
    else setKey(stored, field, orderMerged(merged, order, storedItems, mergeKey, kind));
  }
}

function mergeMap(
  storedValue: JsonObject | undefined,
  patch: JsonObject,
  meta: PatchMeta | undefined,
): JsonObject {
  if (hasKey(patch, DIRECTIVE)) {
    const directive = patch[DIRECTIVE];
    if (directive !== 'replace' && directive !== 'delete' && directive !== 'merge') {
      throw unknownDirective(directive, patch);
    }
    if (directive === 'delete') return {};
    delete patch[DIRECTIVE];
    if (directive === 'replace') return cleanNewValue(patch) as JsonObject;
  }
  const stored = storedValue ?? {};
  applyRetainKeys(stored, patch);
  mergeOrderedLists(stored, patch, meta);

  for (const [key, value] of Object.entries(patch)) {
    let field = key;
    let isDeleteList = false;
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      field = directiveTarget(key, DELETE_FROM_PRIMITIVE_LIST);
      isDeleteList = true;
    } else if (key.startsWith('$')) {
      continue; // unknown directive: a typed decode would drop it
    }
    if (value === null) {
      delete stored[field];
      continue;
    }
    const current = hasKey(stored, field) ? stored[field] : undefined;
    if (isJsonObject(current) && isJsonObject(value)) {
      setKey(stored, field, mergeMap(current, value, fieldMeta(meta, field)));
    } else if (Array.isArray(current) && Array.isArray(value)) {
      setKey(stored, field, mergeListField(current, value, fieldMeta(meta, field), isDeleteList));
    } else if (!isDeleteList) {
      const cleaned = cleanNewValue(value);
      if (cleaned === undefined) delete stored[field];
      else setKey(stored, field, cleaned);
    }
  }
  return stored;
}

/**
 * Applies a decoded strategic merge patch to a stored object of the kind `meta` describes. Neither
 * input is modified. Errors are ApiErrors with the status a real API server gives.
 */
export function applyStrategicMergePatch(stored: JsonObject, patch: JsonValue, meta: PatchMeta): JsonObject {
  if (patch === null) return cloneJson(stored);
  if (!isJsonObject(patch)) {
    throw badRequest(
      `json: cannot unmarshal ${jsonTypeName(patch)} into Go value of type map[string]interface {}`,
    );
  }
  return mergeMap(cloneJson(stored), cloneJson(patch), meta);
}

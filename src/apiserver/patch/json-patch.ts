// JSON patch (RFC 6902): an array of add/remove/replace/move/copy/test operations applied in order;
// the first failing operation aborts the whole patch. Error codes follow the API server: a body that
// is not an array of objects is 400, an operation that does not apply is 422, more than 10000
// operations is 413.

import { ApiError, badRequest } from '../errors.ts';
import { MAX_BODY_BYTES } from '../request-limits.ts';
import { parseArrayIndex, parseJsonPointer } from './json-pointer.ts';
import {
  cloneJson,
  hasKey,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  jsonEqual,
  jsonTypeName,
  setKey,
} from './json-value.ts';
import { patchNotApplicable } from './patch-errors.ts';

export const MAX_JSON_PATCH_OPERATIONS = 10000;

/** Where a pointer lands: the container holding the target and the target's key in it. */
interface Location {
  container: JsonObject | JsonValue[];
  key: string;
}

/** Operations are validated one by one while applying, like the API server does (422, not 400). */
class OperationFailed extends Error {}

/** The document is held under this key so that operations on the root ("") need no special case. */
const ROOT = 'root';

function stringMember(op: JsonObject, name: 'path' | 'from', kind: string): string {
  const value = op[name];
  if (!hasKey(op, name)) throw new OperationFailed(`${kind} operation missing ${name} field`);
  if (typeof value !== 'string') throw new OperationFailed(`${kind} operation failed to decode ${name}`);
  return value;
}

/** Resolves the container of the pointer's last token; fails when an intermediate step is missing. */
function locate(holder: JsonObject, pointer: string, what: string): Location {
  const tokens = parseJsonPointer(pointer);
  if (!Array.isArray(tokens)) throw new OperationFailed(`${what}: ${tokens.error}`);
  let container: JsonObject | JsonValue[] = holder;
  let key = ROOT;
  for (const token of tokens) {
    const next: JsonValue | undefined = read(container, key);
    if (!Array.isArray(next) && !isJsonObject(next)) {
      throw new OperationFailed(`${what}: doc is missing path: "${pointer}"`);
    }
    container = next;
    key = token;
  }
  return { container, key };
}

function read(container: JsonObject | JsonValue[], key: string): JsonValue | undefined {
  if (Array.isArray(container)) {
    const index = parseArrayIndex(key);
    return index === undefined ? undefined : container[index];
  }
  return hasKey(container, key) ? container[key] : undefined;
}

function existingIndex(array: JsonValue[], key: string, what: string): number {
  const index = parseArrayIndex(key);
  if (index === undefined || index >= array.length) {
    throw new OperationFailed(`${what}: invalid index referenced: ${key}`);
  }
  return index;
}

function add(at: Location, value: JsonValue, what: string): void {
  if (Array.isArray(at.container)) {
    const index = at.key === '-' ? at.container.length : parseArrayIndex(at.key);
    if (index === undefined || index > at.container.length) {
      throw new OperationFailed(`${what}: invalid index referenced: ${at.key}`);
    }
    at.container.splice(index, 0, value);
  } else {
    setKey(at.container, at.key, value);
  }
}

function remove(at: Location, what: string): JsonValue {
  if (Array.isArray(at.container)) {
    const index = existingIndex(at.container, at.key, what);
    return at.container.splice(index, 1)[0]!;
  }
  if (!hasKey(at.container, at.key))
    throw new OperationFailed(`${what}: Unable to remove nonexistent key: ${at.key}`);
  const value = at.container[at.key]!;
  delete at.container[at.key];
  return value;
}

function applyOperation(holder: JsonObject, op: JsonObject, copies: CopyBudget): void {
  const kind = typeof op.op === 'string' ? op.op : 'unknown';
  const value = op.value;
  const needsValue = kind === 'add' || kind === 'replace' || kind === 'test';
  if (needsValue && !hasKey(op, 'value')) throw new OperationFailed(`${kind} operation missing value field`);
  switch (kind) {
    case 'add': {
      const path = stringMember(op, 'path', kind);
      add(
        locate(holder, path, `add operation does not apply`),
        cloneJson(value!),
        `add operation does not apply`,
      );
      return;
    }
    case 'remove': {
      const path = stringMember(op, 'path', kind);
      if (path === '')
        throw new OperationFailed('remove operation does not apply: cannot remove the document root');
      remove(locate(holder, path, 'remove operation does not apply'), 'remove operation does not apply');
      return;
    }
    case 'replace': {
      const path = stringMember(op, 'path', kind);
      const what = 'replace operation does not apply';
      const at = locate(holder, path, what);
      // Like the API server's json-patch library, replacing a missing object member adds it.
      if (Array.isArray(at.container)) {
        at.container[existingIndex(at.container, at.key, what)] = cloneJson(value!);
      } else {
        setKey(at.container, at.key, cloneJson(value!));
      }
      return;
    }
    case 'move': {
      const from = stringMember(op, 'from', kind);
      const path = stringMember(op, 'path', kind);
      if (path !== from && path.startsWith(`${from}/`)) {
        throw new OperationFailed(`move operation does not apply: "${path}" is a child of "${from}"`);
      }
      const moved = remove(
        locate(holder, from, 'move operation does not apply'),
        'move operation does not apply',
      );
      add(locate(holder, path, 'move operation does not apply'), moved, 'move operation does not apply');
      return;
    }
    case 'copy': {
      const from = stringMember(op, 'from', kind);
      const path = stringMember(op, 'path', kind);
      const source = locate(holder, from, 'copy operation does not apply');
      const copied = read(source.container, source.key);
      if (copied === undefined)
        throw new OperationFailed(`copy operation does not apply: doc is missing from path: ${from}`);
      spendCopyBudget(copies, copied);
      add(
        locate(holder, path, 'copy operation does not apply'),
        cloneJson(copied),
        'copy operation does not apply',
      );
      return;
    }
    case 'test': {
      const path = stringMember(op, 'path', kind);
      const at = locate(holder, path, 'test operation does not apply');
      const actual = read(at.container, at.key);
      // A missing member equals null here, as in the API server's json-patch library.
      if (!jsonEqual(actual === undefined ? null : actual, value!)) {
        throw new OperationFailed(`testing value ${path} failed: test failed`);
      }
      return;
    }
    default:
      throw new OperationFailed(`Unexpected kind: ${kind}`);
  }
}

/**
 * The json-patch library of the API server caps how much `copy` operations may add in total
 * (AccumulatedCopySizeLimit): each copy can double the document, so a few dozen operations in a tiny
 * body would otherwise build gigabytes in memory before any size check of the result.
 */
export const MAX_ACCUMULATED_COPY_BYTES = MAX_BODY_BYTES;

interface CopyBudget {
  bytes: number;
}

function spendCopyBudget(budget: CopyBudget, copied: JsonValue): void {
  budget.bytes += JSON.stringify(copied).length;
  if (budget.bytes > MAX_ACCUMULATED_COPY_BYTES) {
    throw new ApiError(
      413,
      'RequestEntityTooLarge',
      `Request entity too large: Unable to complete the copy, the accumulated size increase of copy is ${budget.bytes}, exceeding the limit ${MAX_ACCUMULATED_COPY_BYTES}`,
    );
  }
}

/** Applies `operations` (the decoded request body) to a copy of `document`. */
export function applyJsonPatch(document: JsonValue, operations: JsonValue): JsonValue {
  if (!Array.isArray(operations)) {
    throw badRequest(
      `json: cannot unmarshal ${jsonTypeName(operations)} into Go value of type jsonpatch.Patch`,
    );
  }
  if (operations.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new ApiError(
      413,
      'RequestEntityTooLarge',
      `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${operations.length}`,
    );
  }
  // Malformed operations are a malformed body (400) even when an earlier operation would fail.
  for (const op of operations) {
    if (!isJsonObject(op)) {
      throw badRequest(
        `json: cannot unmarshal ${jsonTypeName(op)} into Go value of type jsonpatch.Operation`,
      );
    }
  }
  const holder: JsonObject = {};
  setKey(holder, ROOT, cloneJson(document));
  const copies: CopyBudget = { bytes: 0 };
  for (const op of operations as JsonObject[]) {
    try {
      applyOperation(holder, op, copies);
    } catch (error) {
      if (error instanceof OperationFailed) throw patchNotApplicable(error.message);
      throw error;
    }
  }
  return holder[ROOT]!;
}

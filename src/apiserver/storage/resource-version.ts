// The store owns metadata.resourceVersion: it is never stored (the log revision is the truth) and is set on
// every object handed out.

import { isLooseObject as isPlainObject } from '../../util/plain-object.ts';
import type { KubeObject } from './types.ts';

export { isLooseObject as isPlainObject } from '../../util/plain-object.ts';

/** JSON text of object without metadata.resourceVersion. The caller's object is left untouched. */
export function serializeForStorage(key: string, object: KubeObject): string {
  const metadata = object.metadata;
  const stripped =
    isPlainObject(metadata) && 'resourceVersion' in metadata
      ? { ...object, metadata: withoutResourceVersion(metadata) }
      : object;
  try {
    return JSON.stringify(stripped);
  } catch (error) {
    throw new TypeError(`object for ${key} cannot be stored as JSON: ${(error as Error).message}`);
  }
}

/** Sets metadata.resourceVersion on a fresh object owned by the caller, and returns it. */
export function stampResourceVersion(object: KubeObject, revision: number): KubeObject {
  const metadata = object.metadata;
  if (isPlainObject(metadata)) metadata.resourceVersion = String(revision);
  else object.metadata = { resourceVersion: String(revision) };
  return object;
}

function withoutResourceVersion(metadata: Record<string, unknown>): Record<string, unknown> {
  // Spread (not assignment) so an own "__proto__" key stays data.
  const copy = { ...metadata };
  delete copy.resourceVersion;
  return copy;
}

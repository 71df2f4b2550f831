// Patching an object: the injected patch applier (JSON, merge, strategic merge) run on the object as
// its client sees it, then written as an update; a concurrent write is retried unless the patch pinned
// metadata.resourceVersion.

import { ApiError, badRequest, conflict } from '../errors.ts';
import { assertJsonDepth } from '../json-depth.ts';
import type { ResourceDefinition } from '../registry/resource-definition.ts';
import type { KubeObject } from '../storage/types.ts';
import { type ObjectContext, present, readItem, refOf, viewResult } from './context.ts';
import type { WriteOptions, WriteResult } from './types.ts';
import { writeUpdate } from './update.ts';
import { checkTypeMeta } from './write-checks.ts';

/** How often a patch or apply that lost a race with another write is tried again. */
export const PATCH_RETRIES = 5;

/**
 * Applies a patch to the stored object and writes it. Retries on a concurrent write unless the
 * patch itself pins metadata.resourceVersion (then a mismatch is the client's conflict).
 */
export function patch(
  ctx: ObjectContext,
  def: ResourceDefinition,
  namespace: string | undefined,
  name: string,
  contentType: string,
  patch: Buffer,
  options: WriteOptions = {},
): WriteResult {
  for (let attempt = 0; ; attempt++) {
    const current = readItem(ctx, def, namespace, name);
    // A view patches the object as its clients see it, then stores it in the storage's form. Patches
    // leave their input alone and answer a new object, so the stored one needs no copy.
    const shown = present(def, current.object);
    const patched: KubeObject = ctx.patcher(contentType, shown, patch, def);
    if (typeof patched !== 'object' || patched === null || Array.isArray(patched)) {
      throw badRequest('the patch did not produce a JSON object');
    }
    // A JSON patch can nest the object deeper than its body is (copying a subtree into itself).
    assertJsonDepth(patched, 'the patched object');
    const pinned = patched.metadata?.resourceVersion;
    if (pinned !== undefined && pinned !== '' && String(pinned) !== String(current.revision)) {
      throw conflict(refOf(def, name));
    }
    if (patched.metadata?.name !== undefined && patched.metadata.name !== name) {
      throw badRequest(
        `the name of the object (${String(patched.metadata.name)}) does not match the name on the URL (${name})`,
      );
    }
    checkTypeMeta(def, patched);
    try {
      if (def.storedAs) {
        const view = def.storedAs;
        return viewResult(def, writeUpdate(ctx, view.def, current, view.toStorage(patched), options));
      }
      return writeUpdate(ctx, def, current, patched, options);
    } catch (err) {
      const retriable = err instanceof ApiError && err.reason === 'Conflict' && pinned === undefined;
      if (!retriable || attempt >= PATCH_RETRIES) throw err;
    }
  }
}

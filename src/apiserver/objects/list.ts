// Reading objects: one by name, and lists with kube's paging (limit, continue tokens read at one revision,
// filters applied after paging), resourceVersion semantics (Exact, too large) and the one-key shortcut
// of a field selector that pins metadata.name.

import { ApiError, badRequest } from '../errors.ts';
import type { ResourceDefinition } from '../registry/resource-definition.ts';
import { listPrefix } from '../storage/keys.ts';
import { type KubeObject, StoreExpiredError } from '../storage/types.ts';
import { keyOf, type ObjectContext, present, readItem, storageOf } from './context.ts';
import { decodeContinue, encodeContinue } from './continue-token.ts';
import type { ListPage, ListQuery } from './types.ts';

export function get(
  ctx: ObjectContext,
  def: ResourceDefinition,
  namespace: string | undefined,
  name: string,
): KubeObject {
  return present(def, readItem(ctx, def, namespace, name).object);
}

/** Reads without throwing; in-process controllers use it. */
export function tryGet(
  ctx: ObjectContext,
  def: ResourceDefinition,
  namespace: string | undefined,
  name: string,
): KubeObject | undefined {
  const item = ctx.store.get(keyOf(def, namespace, name));
  return item ? present(def, item.object) : undefined;
}

/** Where a list starts: the revision and key a continue token names, or an Exact resourceVersion. */
function listStart(query: ListQuery): { atRevision?: number; afterKey?: string } {
  if (query.continueToken) {
    const token = decodeContinue(query.continueToken);
    return { atRevision: token.rv, afterKey: token.key };
  }
  if (query.resourceVersion && query.resourceVersion !== '0' && query.resourceVersionMatch === 'Exact') {
    if (!/^\d+$/.test(query.resourceVersion)) {
      throw badRequest(
        `resourceVersion: Invalid value: "${query.resourceVersion}": must be a non-negative integer`,
      );
    }
    return { atRevision: Number(query.resourceVersion) };
  }
  return {};
}

export function list(
  ctx: ObjectContext,
  def: ResourceDefinition,
  namespace: string | undefined,
  query: ListQuery = {},
): ListPage {
  const { atRevision, afterKey } = listStart(query);
  // Every node agent lists its own Node by name: answer from one key, not a scan of all nodes.
  const oneKey =
    query.name !== undefined && atRevision === undefined && (!def.namespaced || namespace !== undefined);
  if (oneKey) {
    const item = ctx.store.get(keyOf(def, namespace, query.name!));
    const shown = item ? present(def, item.object) : undefined;
    const items = shown && (!query.filter || query.filter(shown)) ? [shown] : [];
    return { items, resourceVersion: String(ctx.store.currentRevision()) };
  }
  if (atRevision !== undefined && atRevision > ctx.store.currentRevision()) {
    throw new ApiError(
      504,
      'Timeout',
      `Too large resource version: ${atRevision}, current: ${ctx.store.currentRevision()}`,
      {
        retryAfterSeconds: 1,
      },
    );
  }
  try {
    return readPages(ctx, def, namespace, query, atRevision ?? ctx.store.currentRevision(), afterKey);
  } catch (err) {
    if (err instanceof StoreExpiredError) {
      throw new ApiError(
        410,
        'Expired',
        'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
      );
    }
    throw err;
  }
}

/**
 * Reads one page at `revision` after `afterKey`. Filters apply after paging, as in kube: it keeps reading
 * until the page is full or keys run out, and answers a continue token when more remain.
 */
function readPages(
  ctx: ObjectContext,
  def: ResourceDefinition,
  namespace: string | undefined,
  query: ListQuery,
  atRevision: number,
  afterKey: string | undefined,
): ListPage {
  const keyed = storageOf(def);
  const prefix = listPrefix(keyed.group, keyed.resource, def.namespaced ? namespace : '');
  const limit = query.limit && query.limit > 0 ? query.limit : undefined;
  const items: KubeObject[] = [];
  let revision = atRevision;
  let lastKey: string | undefined = afterKey;
  let more = false;
  for (;;) {
    const chunkSize = limit ? Math.max(limit - items.length, 1) * (query.filter ? 4 : 1) : undefined;
    const page = ctx.store.list(prefix, {
      ...(lastKey !== undefined ? { afterKey: lastKey } : {}),
      ...(chunkSize !== undefined ? { limit: chunkSize } : {}),
      atRevision: revision,
    });
    revision = page.revision;
    let stoppedEarly = false;
    for (const item of page.items) {
      if (limit && items.length >= limit) {
        stoppedEarly = true;
        break;
      }
      lastKey = item.key;
      const shown = present(def, item.object);
      if (!query.filter || query.filter(shown)) items.push(shown);
    }
    if (stoppedEarly) {
      more = true;
      break;
    }
    if (!page.more) break;
    if (limit && items.length >= limit) {
      more = true;
      break;
    }
  }
  const result: ListPage = { items, resourceVersion: String(revision) };
  if (more && lastKey !== undefined) {
    result.continueToken = encodeContinue({ rv: revision, key: lastKey });
  }
  return result;
}

// The options of a write or delete, read from the query (and a DELETE's body) the way kube-apiserver
// reads CreateOptions, UpdateOptions, PatchOptions and DeleteOptions: unsupported values are 400, the
// field manager defaults to the client's User-Agent. Kept apart from the verbs that use them
// (resource-handler.ts), so a verb reads as what it does with the object service.

import type { IncomingMessage } from 'node:http';
import { badRequest } from '../errors.ts';
import { optionsInvalid, validateFieldManager } from '../objects/field-management.ts';
import type { Admit, DeleteOptions, WriteOptions } from '../objects/object-service.ts';
import type { KubeObject } from '../storage/types.ts';
import { decodeObject } from './body.ts';
import { queryBool, queryOptionalBool } from './query-params.ts';

export function parseDryRun(query: URLSearchParams): boolean {
  const values = query.getAll('dryRun');
  for (const v of values) {
    if (v !== 'All') throw badRequest(`dryRun: Unsupported value: "${v}": supported values: "All"`);
  }
  return values.length > 0;
}

function parseFieldValidation(query: URLSearchParams): WriteOptions['fieldValidation'] {
  const raw = query.get('fieldValidation');
  if (raw === null || raw === '') return 'Ignore';
  const normal = raw.charAt(0).toUpperCase() + raw.slice(1).toLowerCase();
  if (normal === 'Strict' || normal === 'Warn' || normal === 'Ignore') return normal;
  throw badRequest(
    `fieldValidation: Unsupported value: "${raw}": supported values: "Ignore", "Strict", "Warn"`,
  );
}

export function parseNonNegativeInt(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^\d+$/.test(raw))
    throw badRequest(`${name}: Invalid value: "${raw}": must be a non-negative integer`);
  return Number(raw);
}

/**
 * Write options from the query. `optionsKind` (CreateOptions, UpdateOptions, PatchOptions) names the
 * options in errors. Without ?fieldManager= the manager is the client's User-Agent up to its first
 * "/", as kube records it.
 */
export function writeOptions(
  req: IncomingMessage,
  query: URLSearchParams,
  optionsKind: string,
  admit: Admit | undefined,
  subresource?: string,
): WriteOptions {
  const explicit = query.get('fieldManager');
  validateFieldManager(optionsKind, explicit ?? undefined);
  const fromAgent = (req.headers['user-agent'] ?? '').split('/')[0]!.slice(0, 128);
  return {
    dryRun: parseDryRun(query),
    fieldValidation: parseFieldValidation(query),
    subresource,
    fieldManager: explicit ?? fromAgent,
    ...(admit ? { admit } : {}),
  };
}

/** PatchOptions of a PATCH: an apply needs a named field manager; force belongs to apply only. */
export function patchOptions(
  req: IncomingMessage,
  query: URLSearchParams,
  apply: boolean,
  admit: Admit | undefined,
  subresource?: string,
): WriteOptions {
  const options = writeOptions(req, query, 'PatchOptions', admit, subresource);
  const force = queryOptionalBool(query, 'force');
  if (apply) {
    if (!query.get('fieldManager')) {
      throw optionsInvalid('PatchOptions', [
        { field: 'fieldManager', message: 'Required value: is required for apply patch' },
      ]);
    }
    options.force = force === true;
  } else if (force !== undefined) {
    throw optionsInvalid('PatchOptions', [
      {
        field: 'force',
        message: 'Forbidden: may not be specified for non-apply patch',
        type: 'FieldValueForbidden',
      },
    ]);
  }
  return options;
}

/**
 * DeleteOptions from the query and the body (either may carry them; the query wins). Also says whether
 * the client set orphanDependents=false, which changes the answer's code (resource-handler.ts).
 */
export function deleteOptions(
  body: Buffer,
  contentType: string | undefined,
  query: URLSearchParams,
): DeleteOptions & { orphanDependentsFalse?: boolean } {
  const fromBody: KubeObject =
    body.length > 0 && body.toString('utf8').trim() !== '' ? decodeObject(body, contentType) : {};
  const requested: { orphanDependentsFalse?: boolean } = {};
  const options: DeleteOptions = {
    dryRun: parseDryRun(query) || (Array.isArray(fromBody.dryRun) && fromBody.dryRun.includes('All')),
  };
  const policy = query.get('propagationPolicy') ?? fromBody.propagationPolicy;
  if (policy !== undefined && policy !== null && policy !== '') {
    if (policy !== 'Orphan' && policy !== 'Background' && policy !== 'Foreground') {
      throw badRequest(
        `propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`,
      );
    }
    options.propagationPolicy = policy;
  } else {
    // The query wins over the body, as kube's parameter decoding overwrites the decoded body.
    const orphan = queryOptionalBool(query, 'orphanDependents') ?? fromBody.orphanDependents;
    if (orphan === true) options.propagationPolicy = 'Orphan';
    if (orphan === false) requested.orphanDependentsFalse = true;
  }
  if (fromBody.preconditions) options.preconditions = fromBody.preconditions;
  const grace = parseNonNegativeInt(query, 'gracePeriodSeconds') ?? fromBody.gracePeriodSeconds;
  if (typeof grace === 'number') options.gracePeriodSeconds = grace;
  return { ...options, ...requested };
}

export interface WatchOptions {
  /** '' when absent. */
  resourceVersion: string;
  bookmarks: boolean;
  sendInitialEvents: boolean | undefined;
  timeoutMs: number;
}

/**
 * A watch's options: sendInitialEvents only with resourceVersionMatch=NotOlderThan and bookmarks, as
 * kube requires; without timeoutSeconds a timeout drawn from `defaultTimeoutMs`, to spread reconnects.
 */
export function watchOptions(query: URLSearchParams, defaultTimeoutMs: [number, number]): WatchOptions {
  const rv = query.get('resourceVersion') ?? '';
  const bookmarks = queryBool(query, 'allowWatchBookmarks');
  const sendInitialEvents = queryOptionalBool(query, 'sendInitialEvents');
  if (sendInitialEvents !== undefined) {
    if (query.get('resourceVersionMatch') !== 'NotOlderThan') {
      throw badRequest(
        'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
      );
    }
    if (!bookmarks)
      throw badRequest(
        'allowWatchBookmarks: Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true',
      );
  }
  if (rv !== '' && !/^\d+$/.test(rv))
    throw badRequest(`resourceVersion: Invalid value: "${rv}": must be a non-negative integer`);
  const timeoutSeconds = parseNonNegativeInt(query, 'timeoutSeconds');
  const [lo, hi] = defaultTimeoutMs;
  const timeoutMs =
    timeoutSeconds !== undefined && timeoutSeconds > 0
      ? timeoutSeconds * 1000
      : lo + Math.random() * (hi - lo);
  return { resourceVersion: rv, bookmarks, sendInitialEvents, timeoutMs };
}

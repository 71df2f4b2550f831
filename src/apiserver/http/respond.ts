// Writing JSON responses and Status errors.

import type { ServerResponse } from 'node:http';
import { ApiError, storageQuotaExceeded } from '../errors.ts';
import { jsonText, listJsonText } from '../storage/stored-json.ts';
import { StoreQuotaExceededError } from '../storage/types.ts';

/** Responses whose request asked for indented JSON (kube's `pretty`, see query-params.ts). */
const prettyResponses = new WeakSet<ServerResponse>();

/** Every JSON answer on this response, errors included, is indented as kube's json.MarshalIndent does. */
export function answerPretty(res: ServerResponse): void {
  prettyResponses.add(res);
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string | string[]> = {},
): void {
  // An object of the store may have been serialised already (its watch events, an earlier answer).
  send(res, status, prettyResponses.has(res) ? JSON.stringify(body, null, 2) : jsonText(body), headers);
}

/** A list answer: the items' texts as jsonText keeps them (see sendJson). */
export function sendJsonList(
  res: ServerResponse,
  status: number,
  list: { kind: string; apiVersion: string; metadata: unknown; items: unknown[] },
): void {
  send(res, status, prettyResponses.has(res) ? JSON.stringify(list, null, 2) : listJsonText(list), {});
}

function send(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string | string[]>,
): void {
  const payload = Buffer.from(text);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': String(payload.length),
    'Cache-Control': 'no-cache, private',
    ...headers,
  });
  res.end(payload);
}

/** Any thrown value becomes a Status body; unknown errors are 500 without leaking internals. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  // A write that reached the store some way other than the object service's error translation.
  if (err instanceof StoreQuotaExceededError) return storageQuotaExceeded(err.message);
  return new ApiError(
    500,
    'InternalError',
    'Internal error occurred: the server could not complete the request',
  );
}

export function sendError(res: ServerResponse, err: unknown): void {
  const apiError = toApiError(err);
  // Answered already (the request timed out, connection-limits.ts): what the handler says now is lost.
  if (res.writableEnded) return;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const headers: Record<string, string> = {};
  if (apiError.details?.retryAfterSeconds !== undefined)
    headers['Retry-After'] = String(apiError.details.retryAfterSeconds);
  sendJson(res, apiError.code, apiError.toStatus(), headers);
}

/** Warning headers as kube sends them (RFC 7234 style, code 299). */
export function warningHeaders(warnings: string[]): Record<string, string[]> {
  if (warnings.length === 0) return {};
  return { Warning: warnings.map((w) => `299 - "${w.replaceAll('"', '\\"')}"`) };
}

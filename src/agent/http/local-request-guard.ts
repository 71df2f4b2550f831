// The agent's local API changes the node (POST /v1/update applies a revision, pod upgrades delete
// pods), so it must answer the node's owner and not a web page that happens to be open in a browser on
// the node:
// - Host must name this machine by a loopback name or address (or the address the server is bound to
//   when it was told to listen elsewhere). A DNS-rebinding page reaches 127.0.0.1 under a name of its
//   own (Host: evil.example), so it is refused, reads included.
// - A state-changing method must not carry an Origin header (browsers add it to cross-origin
//   requests, command-line clients do not) nor a content type an HTML form or a no-CORS fetch can send
//   without a preflight (application/x-www-form-urlencoded, multipart/form-data, text/plain).
// `curl -X POST http://127.0.0.1:9469/v1/update`, with or without `-H 'Content-Type: application/json'`,
// passes both. With an owner token configured (owner-token.ts), a state-changing request must also
// carry it (401 otherwise).
//
// Only types come from node:http here (see agent-http-server.ts for why it is loaded lazily).

import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { bearerMatches } from './owner-token.ts';

const LOOPBACK_NAMES = new Set(['localhost', 'localhost.', 'ip6-localhost', 'ip6-loopback']);
const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const SIMPLE_CONTENT_TYPES = new Set([
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'text/plain',
]);

/** The host part of a Host header value, without port and IPv6 brackets; undefined if malformed. */
export function hostOf(header: string): string | undefined {
  const bracketed = /^\[([0-9a-fA-F:.]+)\](?::\d{1,5})?$/.exec(header);
  if (bracketed) return bracketed[1]!.toLowerCase();
  const plain = /^([^:[\]\s]+)(?::\d{1,5})?$/.exec(header);
  return plain ? plain[1]!.toLowerCase() : undefined;
}

function isLoopbackAddress(host: string): boolean {
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || host === '0:0:0:0:0:0:0:1' || host === '::ffff:127.0.0.1';
  return false;
}

/** Whether `host` (from the Host header) names this machine for a local API bound to `localAddress`. */
export function isLocalHost(host: string, localAddress: string | undefined): boolean {
  if (LOOPBACK_NAMES.has(host) || host.endsWith('.localhost') || isLoopbackAddress(host)) return true;
  // Told to listen on another address (metrics scraped from elsewhere): that address, as an IP
  // literal, is no rebinding risk (rebinding needs a name).
  const bound = localAddress?.replace(/^::ffff:(?=\d+\.)/, '').toLowerCase();
  return isIP(host) !== 0 && bound !== undefined && host === bound;
}

export interface LocalRequestRefusal {
  code: 401 | 403;
  reason: 'Unauthorized' | 'Forbidden';
  message: string;
}

const forbidden = (message: string): LocalRequestRefusal => ({ code: 403, reason: 'Forbidden', message });

/** Why the request is refused, or undefined when it may be served. */
export function localRequestProblem(
  request: IncomingMessage,
  ownerToken?: string,
): LocalRequestRefusal | undefined {
  const header = request.headers.host;
  const host = header === undefined ? undefined : hostOf(header);
  if (host === undefined || !isLocalHost(host, request.socket.localAddress)) {
    return forbidden(
      `the node's local API answers only requests addressed to localhost or a loopback address, not Host ${JSON.stringify(header ?? '')}`,
    );
  }
  if (!STATE_CHANGING.has(request.method ?? 'GET')) return undefined;
  if (request.headers.origin !== undefined) {
    return forbidden(
      `the node's local API does not accept ${request.method} requests from a web page (Origin ${JSON.stringify(request.headers.origin)})`,
    );
  }
  const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (SIMPLE_CONTENT_TYPES.has(type)) {
    return forbidden(
      `the node's local API does not accept ${request.method} requests with Content-Type ${type}; send application/json or no body`,
    );
  }
  if (ownerToken !== undefined && !bearerMatches(request.headers.authorization, ownerToken)) {
    return {
      code: 401,
      reason: 'Unauthorized',
      message: `${request.method} needs the node owner's token: Authorization: Bearer <the content of the --local-api-token-file>`,
    };
  }
  return undefined;
}

/** The JSON Status body of a refused request. */
export function refusalStatus(refusal: LocalRequestRefusal): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', ...refusal };
}

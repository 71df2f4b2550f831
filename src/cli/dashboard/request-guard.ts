// The dashboard acts with the user's credentials (pause, resume, rollback), so like the agent's local
// API (src/agent/http/local-request-guard.ts, whose Host check this reuses) it must answer only the
// user's own browser tab, not any web page open beside it:
// - Host must be a loopback name or address (or the address it was told to listen on): a
//   DNS-rebinding page reaching 127.0.0.1 under a name of its own is refused, reads included.
// - A state-changing request must come from the dashboard's own page: an Origin, when present, must
//   be the dashboard's (same scheme, host and port as Host), Sec-Fetch-Site, when present, must be
//   same-origin, and it must carry this process's token as a bearer token. The token is random per
//   process and only in the page the dashboard serves, which another origin cannot read; the
//   Authorization header also makes any cross-origin fetch need a preflight the dashboard never grants.

import type { IncomingMessage } from 'node:http';
import { hostOf, isLocalHost, type LocalRequestRefusal } from '../../agent/http/local-request-guard.ts';
import { bearerMatches } from '../../agent/http/owner-token.ts';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const forbidden = (message: string): LocalRequestRefusal => ({ code: 403, reason: 'Forbidden', message });

/** Why the dashboard refuses the request, or undefined when it may be served. */
export function dashboardRequestProblem(
  request: IncomingMessage,
  token: string,
): LocalRequestRefusal | undefined {
  const header = request.headers.host;
  const host = header === undefined ? undefined : hostOf(header);
  if (host === undefined || !isLocalHost(host, request.socket.localAddress)) {
    return forbidden(
      `the dashboard answers only requests addressed to localhost or a loopback address, not Host ${JSON.stringify(header ?? '')}`,
    );
  }
  if (!STATE_CHANGING.has(request.method ?? 'GET')) return undefined;
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== `http://${header}`) {
    return forbidden(
      `the dashboard does not accept ${request.method} requests from another origin (${origin})`,
    );
  }
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') {
    return forbidden(
      `the dashboard does not accept ${request.method} requests from another site (Sec-Fetch-Site ${site})`,
    );
  }
  if (!bearerMatches(request.headers.authorization, token)) {
    return {
      code: 401,
      reason: 'Unauthorized',
      message: `${request.method} needs the dashboard's token, which only its own page carries: reload the page`,
    };
  }
  return undefined;
}

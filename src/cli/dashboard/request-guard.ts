// The dashboard acts with the user's credentials (pause, resume, rollback) and shows what they may
// read, so it must answer only the person who started it — not another user on the same machine
// (127.0.0.1 is everyone's), and not any web page open beside it:
// - Host must be a loopback name or address (or the address it was told to listen on): a
//   DNS-rebinding page reaching 127.0.0.1 under a name of its own is refused, reads included.
// - Every request, reads included, must carry the dashboard's secret: random per process, only in the
//   URL the dashboard prints to whoever started it (`?token=`, as Jupyter does). The first request with
//   it gets the secret back as a SameSite=Strict, HttpOnly cookie and a redirect to the URL without it;
//   the page's own requests then carry the cookie. `Authorization: Bearer <secret>` works for scripts.
//   The page itself never contains the secret, so fetching it gives nothing to whoever connects.
// - A state-changing request must moreover come from the dashboard's own page: an Origin, when
//   present, must be the dashboard's (same scheme, host and port as Host), Sec-Fetch-Site, when
//   present, must be same-origin. SameSite=Strict already keeps the cookie off other sites' requests.

import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { hostOf, isLocalHost, type LocalRequestRefusal } from '../../agent/http/local-request-guard.ts';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The query parameter of the URL the dashboard prints. */
export const SECRET_QUERY_PARAMETER = 'token';

const forbidden = (message: string): LocalRequestRefusal => ({ code: 403, reason: 'Forbidden', message });

/** The per-process secret and the cookie it travels in. */
export class DashboardSecret {
  /** 32 random bytes, URL-safe: only in the printed URL and in the starting user's browser. */
  readonly value = randomBytes(32).toString('base64url');
  /**
   * Cookies are per host, not per port: two dashboards on 127.0.0.1 must not overwrite each other's.
   * The name is not secret.
   */
  readonly cookieName = `nodeherd-dashboard-${randomBytes(4).toString('hex')}`;

  matches(given: string | undefined): boolean {
    if (given === undefined) return false;
    const a = Buffer.from(given);
    const b = Buffer.from(this.value);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  /** `base` (the dashboard's address) with the secret: what the user is given to open. */
  urlFor(base: string): string {
    const url = new URL(base);
    url.searchParams.set(SECRET_QUERY_PARAMETER, this.value);
    return url.toString();
  }

  /** The Set-Cookie value that hands the secret to the browser, for the pages under `path`. */
  cookie(path: string): string {
    return `${this.cookieName}=${this.value}; Path=${path}; HttpOnly; SameSite=Strict`;
  }

  /** The secret the request carries in its cookie or as a bearer token (the query is not looked at). */
  presented(request: IncomingMessage): boolean {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
    if (this.matches(bearer)) return true;
    for (const part of (request.headers.cookie ?? '').split(';')) {
      const eq = part.indexOf('=');
      if (eq < 0 || part.slice(0, eq).trim() !== this.cookieName) continue;
      if (this.matches(part.slice(eq + 1).trim())) return true;
    }
    return false;
  }
}

/** Why the dashboard refuses the request, or undefined when it may be served. */
export function dashboardRequestProblem(
  request: IncomingMessage,
  secret: DashboardSecret,
  /** The request carries the secret in the printed URL's query (a GET; the caller checked it). */
  inUrl = false,
): LocalRequestRefusal | undefined {
  const header = request.headers.host;
  const host = header === undefined ? undefined : hostOf(header);
  if (host === undefined || !isLocalHost(host, request.socket.localAddress)) {
    return forbidden(
      `the dashboard answers only requests addressed to localhost or a loopback address, not Host ${JSON.stringify(header ?? '')}`,
    );
  }
  if (STATE_CHANGING.has(request.method ?? 'GET')) {
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
  }
  if (!inUrl && !secret.presented(request)) {
    return {
      code: 401,
      reason: 'Unauthorized',
      message:
        "the dashboard answers only whoever started it: open the URL it printed (it carries the dashboard's secret)",
    };
  }
  return undefined;
}

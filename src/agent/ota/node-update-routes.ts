// Serves the node's over-the-air update API on the agent's local HTTP server:
//   GET  /v1/update  the available revision and its plan (404 NoUpdateAvailable when none)
//   POST /v1/update  applies it (202); an optional JSON body {"revision": "..."} must name the
//                    revision the caller saw, so it never applies something it did not look at.

import type { ServerResponse } from 'node:http';
import { readBodyText } from '../../util/request-body.ts';
import type { RouteTarget } from '../http/route-table.ts';
import type { NodeUpdateApi, UpdateAnswer } from './node-update-api.ts';

/** A POST body larger than this is refused (it only ever carries a revision name). */
const MAX_BODY_BYTES = 4096;

export function mountNodeUpdateApi(server: RouteTarget, api: NodeUpdateApi): void {
  server.route('GET', '/v1/update', async (_request, response) => {
    sendJson(response, await api.available());
  });
  server.route('POST', '/v1/update', async (request, response) => {
    const body = await readBodyText(request, MAX_BODY_BYTES);
    let expected: string | undefined;
    if (body.trim() !== '') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        sendJson(response, badRequest('body must be JSON, e.g. {"revision": "<name>"}'));
        return;
      }
      const revision = (parsed as { revision?: unknown } | null)?.revision;
      if (revision !== undefined && typeof revision !== 'string') {
        sendJson(response, badRequest('revision must be a string'));
        return;
      }
      expected = revision;
    }
    sendJson(response, await api.apply(expected));
  });
}

function badRequest(message: string): UpdateAnswer {
  return {
    status: 400,
    body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 400, reason: 'BadRequest', message },
  };
}

function sendJson(response: ServerResponse, answer: UpdateAnswer): void {
  const text = `${JSON.stringify(answer.body)}\n`;
  response.writeHead(answer.status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
  });
  response.end(text);
}

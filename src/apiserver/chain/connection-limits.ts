// What a request may hold of a connection. A request that is answered before its body was read (a 401,
// 403, 413 or 429 to a write) closes its connection: otherwise Node would read the rest of the body to
// reuse the connection, and a client declaring a large body could keep it open for as long as it
// trickles bytes. A request not answered within the request timeout (kube-apiserver's
// --request-timeout, 60 s; watches excepted, they have their own) is answered 504 Timeout, as kube's
// timeout filter does; a handler that answers later finds the response ended (http/respond.ts).
// Header and body read deadlines and the per-address connection cap are the HTTPS server's
// (httpsServer() in ../composition.ts), as they act before a request exists.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from '../errors.ts';
import { sendError } from '../http/respond.ts';
import type { RequestStage } from './request-chain.ts';

/** kube-apiserver's default --request-timeout. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** Whether the request declares a body that has not all been received yet. */
function hasUnreadBody(req: IncomingMessage): boolean {
  if (req.complete) return false;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) > 0);
}

/** How long a closing connection still reads (and drops) what its client sends, as Go's server does. */
const LINGER_MS = 1_000;

/**
 * Ends the connection after the answer, reading on for a moment: a client still sending its body
 * then reads the answer before the connection goes, instead of a reset that could discard it.
 */
function lingerThenClose(socket: Socket): void {
  if (socket.destroyed) return;
  socket.end();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

/** Answers that go out before the body was read say `Connection: close`, and then close it. */
function closeWhenBodyUnread(req: IncomingMessage, res: ServerResponse): void {
  // The request lets go of its socket once answered: keep it.
  const socket = req.socket;
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    if (hasUnreadBody(req)) {
      res.shouldKeepAlive = false;
      // Node closes a `Connection: close` answer's socket with destroySoon once written: linger instead.
      socket.destroySoon = () => lingerThenClose(socket);
    }
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse['writeHead'];
  res.once('finish', () => {
    // Node would read (and drop) the rest of the body to reuse the connection, for as long as the
    // client sends it; a refused client's connection is closed instead, once the answer is written.
    if (hasUnreadBody(req)) lingerThenClose(socket);
  });
}

export function connectionLimits(requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS): RequestStage {
  return {
    name: 'connection limits',
    async handle(request, next) {
      const { req, res } = request;
      // Only a request that declares a body can leave one unread (a watch, a get: none, nothing kept).
      if (hasUnreadBody(req)) closeWhenBodyUnread(req, res);
      if (request.info.isResourceRequest && request.info.verb === 'watch') return next();
      const timer = setTimeout(() => {
        if (res.writableEnded) return;
        if (res.headersSent) {
          res.destroy();
          return;
        }
        res.shouldKeepAlive = false;
        sendError(
          res,
          new ApiError(
            504,
            'Timeout',
            `Timeout: request did not complete within the allotted timeout of ${requestTimeoutMs / 1000}s`,
          ),
        );
      }, requestTimeoutMs);
      res.once('close', () => clearTimeout(timer));
      try {
        await next();
      } finally {
        if (res.writableEnded) clearTimeout(timer);
      }
    },
  };
}

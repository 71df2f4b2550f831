// Reads a request body up to a limit. A body over it (declared or sent) is refused before it is
// buffered, so a client cannot make a server hold more than the limit.

import type { IncomingMessage } from 'node:http';

export class BodyTooLargeError extends Error {
  readonly limit: number;
  constructor(limit: number) {
    super(`the request body is larger than ${limit} bytes`);
    this.limit = limit;
  }
}

export async function readLimitedBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  if (Number(request.headers['content-length'] ?? '0') > limit) {
    request.resume();
    throw new BodyTooLargeError(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      request.resume();
      throw new BodyTooLargeError(limit);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The body as UTF-8 text, up to `limit` bytes (BodyTooLargeError above it). */
export async function readBodyText(request: IncomingMessage, limit: number): Promise<string> {
  return (await readLimitedBody(request, limit)).toString('utf8');
}

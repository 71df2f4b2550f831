// An HTTP/1.1 client that pipelines: requests go out on ONE TLS connection back to back without
// waiting for answers, and the answers (which HTTP/1.1 returns in request order) are matched first in,
// first out. Node's own client never pipelines, so a keep-alive agent with maxSockets 1 has at most one
// request in flight; this is how a single connection can have many.
// Only what the API server sends is understood: answers with Content-Length (no chunked bodies, so no
// watches).

import { connect, type TLSSocket } from 'node:tls';

export interface PipelinedReply {
  status: number;
  json: any;
}

interface Waiting {
  resolve(reply: PipelinedReply): void;
  reject(error: Error): void;
}

const HEADER_END = Buffer.from('\r\n\r\n');

export class PipelinedConnection {
  readonly #socket: TLSSocket;
  readonly #host: string;
  readonly #token: string;
  readonly #waiting: Waiting[] = [];
  #buffer: Buffer = Buffer.alloc(0);
  #closed: Error | undefined;

  private constructor(socket: TLSSocket, host: string, token: string) {
    this.#socket = socket;
    this.#host = host;
    this.#token = token;
    socket.on('data', (chunk: Buffer) => this.#receive(chunk));
    socket.on('error', (error) => this.#fail(error));
    socket.on('close', () => this.#fail(new Error('connection closed')));
  }

  /** Opens one TLS connection to an https:// URL, trusting caPem. */
  static connect(url: string, token: string, caPem: string | Buffer): Promise<PipelinedConnection> {
    const { hostname, port, host } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect(
        { host: hostname, port: Number(port), ca: caPem, servername: 'localhost' },
        () => {
          socket.off('error', reject);
          socket.setNoDelay(true);
          resolve(new PipelinedConnection(socket, host, token));
        },
      );
      socket.once('error', reject);
    });
  }

  /** Number of requests sent and not yet answered. */
  get inFlight(): number {
    return this.#waiting.length;
  }

  /** Sends at once, whatever is still in flight; resolves with this request's own answer. */
  request(
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<PipelinedReply> {
    if (this.#closed) return Promise.reject(this.#closed);
    const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(body));
    const head =
      `${method} ${path} HTTP/1.1\r\nHost: ${this.#host}\r\nAuthorization: Bearer ${this.#token}\r\n` +
      `Accept: application/json\r\nContent-Type: ${contentType}\r\nContent-Length: ${payload.length}\r\n\r\n`;
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      this.#socket.write(Buffer.concat([Buffer.from(head), payload]));
    });
  }

  close(): void {
    this.#socket.destroy();
  }

  #receive(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    for (;;) {
      const end = this.#buffer.indexOf(HEADER_END);
      if (end < 0) return;
      const lines = this.#buffer.subarray(0, end).toString('latin1').split('\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(lines[0] ?? '')?.[1]);
      const lengthLine = lines.find((line) => /^content-length:/i.test(line));
      if (!status || lengthLine === undefined) {
        this.#fail(new Error(`unexpected answer: ${lines[0]} (no Content-Length)`));
        this.#socket.destroy();
        return;
      }
      const length = Number(lengthLine.slice(lengthLine.indexOf(':') + 1).trim());
      const bodyStart = end + HEADER_END.length;
      if (this.#buffer.length < bodyStart + length) return;
      const text = this.#buffer.subarray(bodyStart, bodyStart + length).toString('utf8');
      this.#buffer = this.#buffer.subarray(bodyStart + length);
      const waiting = this.#waiting.shift();
      if (!waiting) {
        this.#fail(new Error('an answer arrived for no request'));
        return;
      }
      let json: any;
      try {
        json = JSON.parse(text);
      } catch {
        json = text;
      }
      waiting.resolve({ status, json });
    }
  }

  #fail(error: Error): void {
    this.#closed ??= error;
    for (const waiting of this.#waiting.splice(0)) waiting.reject(error);
  }
}

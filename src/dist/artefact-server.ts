// Serves the agent's artefacts (dist/: nodeherd-agent.mjs, node.gz, their .sha256 files and
// manifest.json) under GET /nodeherd/agent/<file>, for nodeherd-init to download while a node
// bootstraps. The handler is meant to be mounted in the control plane's HTTPS server, before
// authentication: nodeherd-init has no credential it could use for a download yet, and the files are
// not secret (integrity comes from TLS with the pinned CA and the checksums).
//
// startArtefactServer runs the same handler on its own HTTPS (or HTTP) server, for a control plane
// that does not mount it (the controller: --artefacts-dir, so a real cluster needs no artefact host of
// its own) and for tests. Its certificate may come from files (a mounted Secret that cert-manager
// renews): they are checked once a minute and a changed pair is used for new connections.

import { createReadStream, readFileSync, statSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';

export const ARTEFACT_PATH_PREFIX = '/nodeherd/agent/';

// One plain file name: no directories, no hidden files, nothing a path could be smuggled through.
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

const CONTENT_TYPES: Record<string, string> = {
  '.sha256': 'text/plain; charset=utf-8',
  '.json': 'application/json',
  '.mjs': 'text/javascript; charset=utf-8',
  '.gz': 'application/gzip',
};

export interface ArtefactHandlerOptions {
  /** The directory the build wrote (dist/). Only regular files directly in it are served. */
  directory: string;
  /** Default /nodeherd/agent/. Must start and end with '/'. */
  prefix?: string;
}

/**
 * Handles the request when its path is under the prefix and returns true; returns false (and leaves
 * the response alone) otherwise, so it can sit in front of another handler.
 */
export type ArtefactHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

export function createArtefactHandler(options: ArtefactHandlerOptions): ArtefactHandler {
  const directory = resolve(options.directory);
  const prefix = options.prefix ?? ARTEFACT_PATH_PREFIX;
  if (!prefix.startsWith('/') || !prefix.endsWith('/')) throw new Error('prefix must start and end with /');
  return (req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (!pathname.startsWith(prefix)) return false;
    serve(directory, pathname.slice(prefix.length), req, res).catch((error: Error) => {
      if (!res.headersSent) sendText(res, 500, `cannot serve artefact: ${error.message}\n`);
      else res.destroy(error);
    });
    return true;
  };
}

function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}) {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

function contentType(name: string): string {
  const dot = name.lastIndexOf('.');
  return (dot >= 0 && CONTENT_TYPES[name.slice(dot)]) || 'application/octet-stream';
}

/** The file's digest from its .sha256 companion, as a strong ETag; undefined without one. */
async function etagOf(directory: string, name: string): Promise<string | undefined> {
  if (name.endsWith('.sha256')) return undefined;
  try {
    const word = (await readFile(join(directory, `${name}.sha256`), 'utf8')).trim().split(/\s+/)[0] ?? '';
    return /^[0-9a-f]{64}$/.test(word) ? `"${word}"` : undefined;
  } catch {
    return undefined;
  }
}

async function serve(directory: string, name: string, req: IncomingMessage, res: ServerResponse) {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendText(res, 405, 'only GET and HEAD\n', { Allow: 'GET, HEAD' });
    return;
  }
  const decoded = safeDecode(name);
  const path = decoded !== undefined && FILE_NAME.test(decoded) ? join(directory, decoded) : undefined;
  const stats = path ? await stat(path).catch(() => undefined) : undefined;
  if (!path || !decoded || !stats?.isFile()) {
    sendText(res, 404, `no artefact ${JSON.stringify(name)}\n`);
    return;
  }
  const etag = await etagOf(directory, decoded);
  const headers: Record<string, string> = {
    'Content-Type': contentType(decoded),
    'Content-Length': String(stats.size),
    'Last-Modified': stats.mtime.toUTCString(),
    // A rebuild replaces files under the same name: caches must revalidate.
    'Cache-Control': 'no-cache',
    ...(etag ? { ETag: etag } : {}),
  };
  if (etag && req.headers['if-none-match'] === etag) {
    res.writeHead(304, { ETag: etag, 'Cache-Control': 'no-cache' });
    res.end();
    return;
  }
  if (req.method === 'HEAD') {
    res.writeHead(200, headers);
    res.end();
    return;
  }
  // Opened before the status line is sent, so a file that vanished in between is still a clean 404.
  const stream = createReadStream(path);
  await new Promise<void>((resolveOpen, rejectOpen) => {
    stream.once('open', () => resolveOpen());
    stream.once('error', rejectOpen);
  }).catch(() => undefined);
  if (stream.destroyed) {
    sendText(res, 404, `no artefact ${JSON.stringify(name)}\n`);
    return;
  }
  res.writeHead(200, headers);
  stream.on('error', (error) => res.destroy(error));
  stream.pipe(res);
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

export interface ArtefactServerOptions extends ArtefactHandlerOptions {
  /** PEM; with key, the server speaks HTTPS (the control plane's serving certificate). */
  cert?: string;
  key?: string;
  /** PEM files instead of cert and key, read again when they change (checked every reloadIntervalMs). */
  certFile?: string;
  keyFile?: string;
  /** Default 60 s. */
  reloadIntervalMs?: number;
  host?: string;
  /** 0 picks a free port (default). */
  port?: number;
}

export interface ArtefactServer {
  /** Base URL of the artefacts, ending in the prefix (e.g. https://127.0.0.1:41234/nodeherd/agent). */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Runs the handler on a server of its own; anything outside the prefix is a 404. */
export async function startArtefactServer(options: ArtefactServerOptions): Promise<ArtefactServer> {
  const handler = createArtefactHandler(options);
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    if (!handler(req, res)) sendText(res, 404, 'not found\n');
  };
  const files =
    options.certFile !== undefined && options.keyFile !== undefined
      ? { cert: options.certFile, key: options.keyFile }
      : undefined;
  if ((options.certFile === undefined) !== (options.keyFile === undefined))
    throw new Error('certFile and keyFile go together');
  const pair = files ? readPair(files) : { cert: options.cert, key: options.key, stamp: '' };
  const tls = pair.cert !== undefined && pair.key !== undefined;
  const httpsServer = tls
    ? createHttpsServer({ cert: pair.cert, key: pair.key, minVersion: 'TLSv1.2' }, listener)
    : undefined;
  const server = httpsServer ?? createHttpServer(listener);
  let stamp = pair.stamp;
  const reload =
    files && httpsServer
      ? setInterval(() => {
          try {
            if (stampOf(files) === stamp) return;
            const next = readPair(files);
            httpsServer.setSecureContext({ cert: next.cert, key: next.key, minVersion: 'TLSv1.2' });
            stamp = next.stamp;
          } catch {
            // Half-renewed (key and certificate not matching yet): keep serving the last good pair.
          }
        }, options.reloadIntervalMs ?? 60_000)
      : undefined;
  reload?.unref();
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolveListen, rejectListen) => {
    server.once('error', rejectListen);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', rejectListen);
      resolveListen();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const prefix = options.prefix ?? ARTEFACT_PATH_PREFIX;
  const hostPart = host.includes(':') ? `[${host}]` : host;
  return {
    url: `${tls ? 'https' : 'http'}://${hostPart}:${port}${prefix.slice(0, -1)}`,
    port,
    close: () =>
      new Promise<void>((resolveClose) => {
        clearInterval(reload);
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}

function stampOf(files: { cert: string; key: string }): string {
  return [files.cert, files.key]
    .map((path) => {
      const stats = statSync(path);
      return `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
    })
    .join('/');
}

function readPair(files: { cert: string; key: string }): { cert: string; key: string; stamp: string } {
  const stamp = stampOf(files);
  return { cert: readFileSync(files.cert, 'utf8'), key: readFileSync(files.key, 'utf8'), stamp };
}

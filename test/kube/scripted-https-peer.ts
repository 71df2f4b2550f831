// An HTTPS peer whose responses a test writes byte by byte: for what the real API server never does
// on purpose (go silent on an open connection, cut a line in half, split a character across TCP
// writes). Its certificate comes from the API server's own PKI code.

import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensurePki } from '../../src/apiserver/auth/certificates.ts';

export interface ScriptedPeer {
  url: string;
  caPem: string;
  /** Requests received, in order, with their headers. */
  requests: IncomingMessage[];
  close(): Promise<void>;
}

export async function startScriptedPeer(
  respond: (req: IncomingMessage, res: ServerResponse) => void,
  options: { keepAliveTimeoutMs?: number } = {},
): Promise<ScriptedPeer> {
  const dir = mkdtempSync(join(tmpdir(), 'nodeherd-scripted-peer-'));
  const pki = await ensurePki(dir);
  const requests: IncomingMessage[] = [];
  const server: Server = createServer({ cert: pki.certPem, key: pki.keyPem }, (req, res) => {
    requests.push(req);
    respond(req, res);
  });
  if (options.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = options.keepAliveTimeoutMs;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    caPem: pki.caPem,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// The smallest server that holds a watch: Node's HTTP(S) server answering every request with a chunked
// 200 it keeps open, one line written, nothing else. bench/apiserver-tls-floor.bench.ts measures its
// memory per connection (RSS after a full GC, reported over IPC) beside the API server's.
// Run with --expose-gc: tls-floor-server.ts <data dir> http|https|https-tls1.2

import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { ensurePki } from '../../src/apiserver/auth/certificates.ts';

const [dataDir, mode] = process.argv.slice(2);
if (!dataDir || !mode) throw new Error('usage: tls-floor-server.ts <data dir> http|https|https-tls1.2');
const pki = await ensurePki(dataDir, { extraSans: [] });
const handler = (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
  res.write('{"type":"BOOKMARK"}\n');
};
const server =
  mode === 'http'
    ? createHttpServer(handler)
    : createHttpsServer(
        {
          cert: pki.certPem,
          key: pki.keyPem,
          minVersion: 'TLSv1.2',
          ...(mode === 'https-tls1.2' ? { maxVersion: 'TLSv1.2' as const } : {}),
        },
        handler,
      );
server.requestTimeout = 0;
server.keepAliveTimeout = 90_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.send!({
    url: `${mode === 'http' ? 'http' : 'https'}://127.0.0.1:${address.port}`,
    caPem: pki.caPem,
  });
});
process.on('message', () => {
  (globalThis as { gc?: () => void }).gc?.();
  const status = readFileSync('/proc/self/status', 'utf8');
  process.send!({
    rssMb: Number(/^VmRSS:\s+(\d+)/m.exec(status)![1]) / 1024,
    heapUsedMb: process.memoryUsage().heapUsed / 1048576,
  });
});
process.once('disconnect', () => process.exit(0));

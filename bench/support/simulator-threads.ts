// Imported first by benches that run many simulated nodes in one process: every real node has its own
// libuv thread pool (4 threads) and disk, while here 1,000 nodes' file writes and fsyncs would queue for
// the same 4 threads, and a node's apply would wait for the others' fsyncs. The pool is sized from the
// environment when the first work is submitted to it, so that happens here, before anything else; the
// variable is then taken away again, so the processes the bench starts (the API server, the controller
// as it ships) keep their default pool. A size set by the caller is kept, and passed on.

import { access } from 'node:fs';

if (process.env.UV_THREADPOOL_SIZE === undefined) {
  process.env.UV_THREADPOOL_SIZE = '64';
  access('.', () => {});
  delete process.env.UV_THREADPOOL_SIZE;
}

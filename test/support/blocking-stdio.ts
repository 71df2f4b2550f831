// Preloaded into every test process (package.json's test script): stdout and stderr write synchronously.
// With --test-force-exit a test file's process exits as soon as its tests end; on a pipe Node writes
// asynchronously, so the end of its serialized results could be lost and the runner counted fewer tests
// than ran (a failure among them would have gone unseen: 461 or 477 of 484 tests in one run).

for (const stream of [process.stdout, process.stderr]) {
  (stream as unknown as { _handle?: { setBlocking?: (on: boolean) => void } })._handle?.setBlocking?.(true);
}

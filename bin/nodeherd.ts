#!/usr/bin/env node
// Entry point of the nodeherd command (also usable as the kubectl plugin `kubectl nodeherd`).
import { main } from '../src/cli/main.ts';

main(process.argv).catch((err: unknown) => {
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});

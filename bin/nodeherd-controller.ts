#!/usr/bin/env node
// Entry point of the rollout controller (runs in the cluster as a leader-elected Deployment).
import { runController } from '../src/controller/controller-command.ts';

runController(process.argv).catch((err: unknown) => {
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});

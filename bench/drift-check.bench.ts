// Cost of continuous drift: one full check (observe every file, unit file, drop-in, enablement and
// package of a revision, then plan the repair) on real files in a temporary root with simulated
// systemd and apt, at two sizes; and how long inotify takes to report an atomic replace of a managed
// file (the watcher's debounce set to 10 ms here; the agent's default is 250 ms).
//
// Run: node bench/drift-check.bench.ts   (DRIFT_BENCH_ROUNDS: checks per size, default 50)

import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executeAction } from '../src/agent/apply/action-executor.ts';
import { driftPlan } from '../src/agent/drift/drift-plan.ts';
import { ManagedPathWatcher } from '../src/agent/drift/managed-path-watcher.ts';
import { observeConfig } from '../src/agent/drift/observed-config.ts';
import { LocalFileExecutor } from '../src/agent/executors/local-file-executor.ts';
import { SimulatedPackages } from '../src/agent/executors/simulated-packages.ts';
import { SimulatedSystemd } from '../src/agent/executors/simulated-systemd.ts';
import { silentLogger } from '../src/agent/logger.ts';
import { renderConfigs } from '../src/api/render.ts';
import { plan } from '../src/plan/plan.ts';
import { benchSpec } from './agent-bench-support.ts';
import { benchNumber } from './support/quick.ts';
import { reportFigure } from './support/report.ts';

const ROUNDS = benchNumber('DRIFT_BENCH_ROUNDS', 50, 5);
const work = mkdtempSync(join(tmpdir(), 'nodeherd-drift-bench-'));

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

for (const [files, units] of [
  [50, 10],
  [500, 50],
] as const) {
  const root = join(work, `root-${files}`);
  mkdirSync(root);
  const config = renderConfigs([
    {
      apiVersion: 'nodeherd.io/v1alpha1',
      kind: 'NodeConfig',
      metadata: { name: 'bench' },
      spec: benchSpec(files, units, 'drift'),
    },
  ]).config!;
  const node = {
    files: new LocalFileExecutor(root),
    systemd: new SimulatedSystemd(),
    packages: new SimulatedPackages(),
  };
  for (const action of plan(undefined, { config }).actions) await executeAction(action, node);
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    const found = driftPlan(await observeConfig(config, node), config);
    times.push(performance.now() - started);
    if (found.items.length > 0) throw new Error('a fresh node drifted');
  }
  const ms = median(times);
  console.log(`full drift check, ${files} files + ${units} units: median ${ms.toFixed(2)} ms`);
  reportFigure({
    bench: 'drift-check',
    name: `full drift check, ${files} files + ${units} units`,
    value: Number(ms.toFixed(2)),
    unit: 'ms',
    note: 'real files, simulated systemd and apt; median',
  });
}

const root = join(work, 'root-50');
// The watcher's handles do not keep a process alive (the agent has its own); this bench has nothing else.
const keepAlive = setInterval(() => {}, 1000);
const latencies: number[] = [];
let notify: (() => void) | undefined;
const watcher = new ManagedPathWatcher({
  root,
  debounceMs: 10,
  logger: silentLogger,
  onChange: () => notify?.(),
});
watcher.setPaths(Array.from({ length: 50 }, (_, i) => `/etc/bench/file-${i}.conf`));
for (let round = 0; round < ROUNDS; round++) {
  const path = join(root, `etc/bench/file-${round % 50}.conf`);
  const seen = new Promise<void>((resolve) => {
    notify = resolve;
  });
  const started = performance.now();
  writeFileSync(`${path}.edit`, `edited ${round}\n`);
  renameSync(`${path}.edit`, path);
  await seen;
  latencies.push(performance.now() - started - 10);
}
watcher.close();
clearInterval(keepAlive);
const latency = median(latencies);
console.log(
  `inotify: atomic replace to notification, minus the 10 ms debounce: median ${latency.toFixed(2)} ms`,
);
reportFigure({
  bench: 'drift-check',
  name: 'inotify: atomic replace to notification (debounce excluded)',
  value: Number(latency.toFixed(2)),
  unit: 'ms',
  note: `median of ${ROUNDS}`,
});
rmSync(work, { recursive: true, force: true });

// Reaction time of the node agent: from the desired-revision annotation being written to the Node
// reporting Done for it, for a 50-file, 10-unit config whose every file changes (so all 10 units
// restart). The agent is a child process (the bundle it ships as) against the embedded API server in
// this process; the time is taken from just before the PATCH to the watch event carrying Done.
//
// Run: node bench/agent-reaction.bench.ts   (AGENT_REACTION_RUNS, default 40; target p99 ≤ 100 ms)

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LightKubeClient } from '../src/kube/light/light-kube-client.ts';
import { startLocalApiServer } from '../test/support/local-apiserver.ts';
import {
  agentArgs,
  benchSpec,
  buildAgentBundle,
  createBenchRevision,
  DoneWatcher,
  percentile,
  setDesired,
  spawnAgent,
} from './agent-bench-support.ts';
import { benchNumber } from './support/quick.ts';
import { reportFigure } from './support/report.ts';

const RUNS = benchNumber('AGENT_REACTION_RUNS', 40, 15);
const WARMUP = 3;
const FILES = 50;
const UNITS = 10;

const work = mkdtempSync(join(tmpdir(), 'nodeherd-agent-reaction-'));
const api = await startLocalApiServer();
const admin = LightKubeClient.fromKubeconfig(api.kubeconfigPath);
const bundle = await buildAgentBundle(work);

const results: { backend: string; p50: number; p90: number; p99: number; max: number; runs: number }[] = [];
const revisions = [
  await createBenchRevision(admin, 'reaction-a', benchSpec(FILES, UNITS, 'a')),
  await createBenchRevision(admin, 'reaction-b', benchSpec(FILES, UNITS, 'b')),
];

for (const backend of ['simulated', 'simulated-systemd'] as const) {
  const node = `reaction-${backend}`;
  await admin.create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: node } });
  const kubeconfig = join(work, `${node}.kubeconfig`);
  await api.server.issueCredential('node', node, kubeconfig);
  const agent = spawnAgent(bundle, agentArgs({ kubeconfig, node, dir: join(work, node), backend }));
  const watcher = new DoneWatcher(admin, node);
  const times: number[] = [];
  for (let run = 0; run < RUNS + WARMUP; run++) {
    const revision = revisions[run % 2]!.metadata.name;
    const done = watcher.done(revision);
    const started = performance.now();
    await setDesired(admin, node, revision);
    const at = await done;
    if (run >= WARMUP) times.push(at - started);
    await new Promise((resolve) => setTimeout(resolve, 50)); // let the agent's last writes settle
  }
  watcher.close();
  await agent.stop();
  times.sort((a, b) => a - b);
  results.push({
    backend: backend === 'simulated' ? 'simulated (files in memory)' : 'real files + simulated systemd',
    p50: percentile(times, 50),
    p90: percentile(times, 90),
    p99: percentile(times, 99),
    max: times.at(-1)!,
    runs: times.length,
  });
}

admin.close();
await api.stop();
rmSync(work, { recursive: true, force: true });

console.log(
  `\nAgent reaction: desired-revision annotation → Done, ${FILES} files and ${UNITS} units all changed`,
);
console.log('backend                          runs    p50 ms   p90 ms   p99 ms   max ms');
for (const r of results) {
  console.log(
    `${r.backend.padEnd(32)} ${String(r.runs).padStart(4)} ${r.p50.toFixed(1).padStart(9)} ${r.p90.toFixed(1).padStart(8)} ${r.p99.toFixed(1).padStart(8)} ${r.max.toFixed(1).padStart(8)}`,
  );
}
console.log('target: p99 ≤ 100 ms (simulated backends)');
for (const r of results) {
  const note = `${r.runs} runs, ${FILES} files and ${UNITS} units changed`;
  reportFigure({
    bench: 'agent-reaction',
    name: `annotation → Done p50, ${r.backend}`,
    value: r.p50,
    unit: 'ms',
    note,
  });
  reportFigure({
    bench: 'agent-reaction',
    name: `annotation → Done p99, ${r.backend}`,
    value: r.p99,
    unit: 'ms',
    target: { op: '<=', value: 100 },
    note,
  });
}

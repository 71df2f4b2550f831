// API requests an idle agent makes per hour. An idle agent holds two watches (its Node, its
// revision) with bookmarks; each watch is renewed when the server ends it (the agent asks for a
// random lifetime of 30–60 min) by resuming from the last bookmark, without a list. A real hour is
// too long for a benchmark, so every duration is scaled down by SCALE: the watch lifetimes
// (--watch-timeout-seconds), the server's bookmark interval and the agent's matching inactivity
// limit. The count over the window is then extrapolated to one real hour. A second run keeps the
// real settings for the same window, to show that nothing else (no polling) happens meanwhile.
//
// Run: node bench/agent-requests.bench.ts   (AGENT_REQUESTS_WINDOW_MS, default 60000; target ≤ 10/hour)

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
  setDesired,
  spawnAgent,
} from './agent-bench-support.ts';
import { benchNumber } from './support/quick.ts';
import { reportFigure } from './support/report.ts';

const WINDOW_MS = benchNumber('AGENT_REQUESTS_WINDOW_MS', 60_000, 20_000);
const SCALE = 300; // one scaled second stands for 300 real seconds
const REAL = { watchTimeoutSeconds: [1800, 3600] as const, bookmarkMs: 60_000 };

interface Result {
  name: string;
  byVerb: Record<string, number>;
  total: number;
  perHour: number;
}

async function requestsByVerb(port: number): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^nodeherd_agent_api_requests_total\{verb="(\w+)"\} (\d+)$/gm)) {
    counts[match[1]!] = Number(match[2]);
  }
  return counts;
}

async function run(name: string, scale: number, port: number): Promise<Result> {
  const work = mkdtempSync(join(tmpdir(), 'nodeherd-agent-requests-'));
  const bookmarkMs = Math.round(REAL.bookmarkMs / scale);
  const api = await startLocalApiServer({ bookmarkIntervalMs: bookmarkMs });
  const admin = LightKubeClient.fromKubeconfig(api.kubeconfigPath);
  const bundle = await buildAgentBundle(work);
  const revision = await createBenchRevision(admin, 'requests', benchSpec(50, 10, 'r'));
  const node = 'requests-node';
  await admin.create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: node } });
  const kubeconfig = join(work, 'node.kubeconfig');
  await api.server.issueCredential('node', node, kubeconfig);
  await setDesired(admin, node, revision.metadata.name);
  const watcher = new DoneWatcher(admin, node);
  const done = watcher.done(revision.metadata.name);
  const [low, high] = REAL.watchTimeoutSeconds.map((s) => Math.max(1, Math.round(s / scale)));
  const agent = spawnAgent(
    bundle,
    agentArgs({
      kubeconfig,
      node,
      dir: join(work, 'agent'),
      backend: 'simulated',
      metrics: `127.0.0.1:${port}`,
      extra: ['--watch-timeout-seconds', `${low}:${high}`, '--bookmark-interval-ms', String(bookmarkMs)],
    }),
  );
  await done;
  watcher.close();
  await new Promise((resolve) => setTimeout(resolve, 1000)); // the last reports land
  const before = await requestsByVerb(port);
  await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
  const after = await requestsByVerb(port);
  await agent.stop();
  admin.close();
  await api.stop();
  rmSync(work, { recursive: true, force: true });
  const byVerb = Object.fromEntries(
    Object.keys(after).map((verb) => [verb, after[verb]! - (before[verb] ?? 0)]),
  );
  const total = Object.values(byVerb).reduce((a, b) => a + b, 0);
  const realHours = ((WINDOW_MS / 1000) * scale) / 3600;
  return { name, byVerb, total, perHour: total / realHours };
}

const results = [
  await run(
    `scaled 1:${SCALE} (watch life ${REAL.watchTimeoutSeconds.map((s) => s / SCALE).join('–')} s, bookmark ${REAL.bookmarkMs / SCALE} ms)`,
    SCALE,
    19_500,
  ),
  await run('real settings (30–60 min watches, 60 s bookmarks)', 1, 19_501),
];

console.log(`\nIdle agent API requests; window ${WINDOW_MS / 1000} s of wall time`);
for (const r of results) {
  const verbs = Object.entries(r.byVerb)
    .filter(([, n]) => n > 0)
    .map(([verb, n]) => `${verb} ${n}`)
    .join(', ');
  const hours = ((WINDOW_MS / 1000) * (r.name.startsWith('scaled') ? SCALE : 1)) / 3600;
  console.log(
    `${r.name}\n  ${r.total} requests (${verbs || 'none'}) in ${hours.toFixed(2)} real-equivalent hours → ${r.perHour.toFixed(1)} per hour`,
  );
}
console.log(
  'target: ≤ 10 requests per idle hour. Expected: 2 watches × 3600 / E[lifetime 2700 s] ≈ 2.7 watch renewals per hour.',
);
for (const r of results) {
  reportFigure({
    bench: 'agent-requests',
    name: `idle API requests per hour, ${r.name}`,
    value: r.perHour,
    unit: 'requests/h',
    target: { op: '<=', value: 10 },
    note: `${r.total} requests in a ${WINDOW_MS / 1000} s window, extrapolated`,
  });
}

// Idle cost of the node agent on its node: RSS and CPU of an agent process that has applied a
// 50-file, 10-unit revision and now only watches (its Node, with bookmarks), next
// to baselines: bare node, node with node:https loaded (what any TLS client pays), and the floor: a
// script with no agent code that only watches its Node over TLS as the agent does, with the unit's
// flags (what any node daemon holding such a watch pays on this runtime). Variants:
// run from TypeScript sources (type stripping), as the esbuild bundle it ships as (src/dist's ES
// module), and that bundle as the unit runs it: its Node flags and environment (AGENT_NODE_FLAGS and
// AGENT_NODE_ENV in src/dist/build-agent.ts, which a test holds nodeherd-init.sh's unit to).
// Also counts the API requests each idle agent made in the window (read from its /metrics).
//
// Run: node bench/agent-idle.bench.ts   (AGENT_IDLE_MS: idle window, default 30000; target RSS ≤ 50 MB;
// AGENT_IDLE_EXTRA_FLAGS='--flag …': one more row, the bundle with the shipped flags plus these)

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { LightKubeClient } from '../src/kube/light/light-kube-client.ts';
import { startLocalApiServer } from '../test/support/local-apiserver.ts';
import {
  AGENT_SOURCE,
  type AgentChild,
  agentArgs,
  benchSpec,
  buildAgentBundle,
  createBenchRevision,
  DoneWatcher,
  procStats,
  SHIPPED_NODE_FLAGS,
  setDesired,
  shippedNodeEnv,
  spawnAgent,
} from './agent-bench-support.ts';
import { benchNumber } from './support/quick.ts';
import { reportFigure } from './support/report.ts';

const IDLE_MS = benchNumber('AGENT_IDLE_MS', 30_000, 10_000);
// Candidate Node/V8 flags to measure beside the shipped ones (space-separated), before changing the unit.
const EXTRA_FLAGS = (process.env.AGENT_IDLE_EXTRA_FLAGS ?? '').split(' ').filter(Boolean);
const SETTLE_MS = 5000;
// Named as before the unit had more flags than lite mode, so results.md's history keeps one row.
const SHIPPED_ROW = 'agent, bundle, --lite-mode';
const FLOOR_ROW = 'floor: TLS watch, no agent code';

const work = mkdtempSync(join(tmpdir(), 'nodeherd-agent-idle-'));
const api = await startLocalApiServer();
const admin = LightKubeClient.fromKubeconfig(api.kubeconfigPath);
const bundle = await buildAgentBundle(work);
const revision = await createBenchRevision(admin, 'idle', benchSpec(50, 10, 'idle'));
const bare = join(work, 'bare.cjs');
writeFileSync(bare, 'setInterval(() => {}, 1 << 30);\n');
const withHttps = join(work, 'https.cjs');
writeFileSync(withHttps, "require('node:https');\nsetInterval(() => {}, 1 << 30);\n");
// The floor under the agent: no agent code, only what any node daemon that watches its Node over TLS
// must do, the way the agent does it (the default CA list emptied, the cluster's CA named, a bearer
// token, a watch with bookmarks; a local HTTP server listening), run with the unit's flags.
const watchOnly = join(work, 'watch.cjs');
writeFileSync(
  watchOnly,
  `const https = require('node:https');
require('node:tls').setDefaultCACertificates?.([]);
const { server, ca, token, node } = JSON.parse(process.env.FLOOR_WATCH);
const url = new URL('/api/v1/nodes?watch=true&allowWatchBookmarks=true&fieldSelector=' + encodeURIComponent('metadata.name=' + node), server);
https.get(url, { ca, headers: { authorization: 'Bearer ' + token } }, (res) => res.on('data', () => {}));
require('node:http').createServer().listen(0, '127.0.0.1');
`,
);

interface Row {
  name: string;
  rssMb: number;
  anonMb: number;
  fileMb: number;
  cpuPercent: number;
  requests: number | undefined;
}

async function metricsRequests(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  let total = 0;
  for (const match of text.matchAll(/^nodeherd_agent_api_requests_total\{verb="\w+"\} (\d+)$/gm))
    total += Number(match[1]);
  return total;
}

async function measure(
  name: string,
  start: () => Promise<{ child: AgentChild; port?: number }>,
): Promise<Row> {
  const { child, port } = await start();
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const before = procStats(child.pid);
  const requestsBefore = port ? await metricsRequests(port) : undefined;
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  const after = procStats(child.pid);
  const requestsAfter = port ? await metricsRequests(port) : undefined;
  await child.stop();
  return {
    name,
    rssMb: after.rssMb,
    anonMb: after.anonMb,
    fileMb: after.fileMb,
    cpuPercent: ((after.cpuSeconds - before.cpuSeconds) / (IDLE_MS / 1000)) * 100,
    // The /metrics scrape itself is not an API request; the difference is what idling cost.
    requests: requestsBefore === undefined ? undefined : requestsAfter! - requestsBefore,
  };
}

let nodeIndex = 0;
async function agentRun(
  entry: string,
  nodeFlags: readonly string[] = [],
  env: Record<string, string> = {},
): Promise<{ child: AgentChild; port: number }> {
  const node = `idle-${nodeIndex++}`;
  await admin.create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: node } });
  const kubeconfig = join(work, `${node}.kubeconfig`);
  await api.server.issueCredential('node', node, kubeconfig);
  await setDesired(admin, node, revision.metadata.name);
  const port = 19_469 + nodeIndex;
  const watcher = new DoneWatcher(admin, node);
  const done = watcher.done(revision.metadata.name);
  const child = spawnAgent(
    entry,
    agentArgs({
      kubeconfig,
      node,
      dir: join(work, node),
      backend: 'simulated-systemd',
      metrics: `127.0.0.1:${port}`,
    }),
    nodeFlags,
    env,
  );
  await done;
  watcher.close();
  return { child, port };
}

/** The floor script as the unit would run it: the unit's flags, watching a Node of its own. */
async function watchOnlyRun(): Promise<{ child: AgentChild }> {
  const node = `idle-${nodeIndex++}`;
  await admin.create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: node } });
  const kubeconfig = join(work, `${node}.kubeconfig`);
  const token = await api.server.issueCredential('node', node, kubeconfig);
  const cluster = (parse(readFileSync(kubeconfig, 'utf8')) as KubeconfigClusters).clusters[0]!.cluster;
  const ca = Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8');
  const floor = JSON.stringify({ server: cluster.server, ca, token, node });
  return { child: spawnAgent(watchOnly, [], SHIPPED_NODE_FLAGS, { FLOOR_WATCH: floor }) };
}

interface KubeconfigClusters {
  clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
}

const rows: Row[] = [];
rows.push(await measure('baseline: bare node', async () => ({ child: spawnAgent(bare, []) })));
rows.push(await measure('baseline: node + node:https', async () => ({ child: spawnAgent(withHttps, []) })));
rows.push(await measure(FLOOR_ROW, () => watchOnlyRun()));
rows.push(await measure('agent, TypeScript sources', () => agentRun(AGENT_SOURCE)));
rows.push(await measure('agent, bundle', () => agentRun(bundle)));
// What ships: the unit's flags and environment (src/dist/build-agent.ts).
const shippedEnv = shippedNodeEnv(work);
rows.push(await measure(SHIPPED_ROW, () => agentRun(bundle, SHIPPED_NODE_FLAGS, shippedEnv)));
if (EXTRA_FLAGS.length > 0)
  rows.push(
    await measure(`agent, bundle, shipped + ${EXTRA_FLAGS.join(' ')}`, () =>
      agentRun(bundle, [...SHIPPED_NODE_FLAGS, ...EXTRA_FLAGS], shippedEnv),
    ),
  );

admin.close();
await api.stop();
rmSync(work, { recursive: true, force: true });

console.log(`\nAgent idle cost after applying 50 files / 10 units; idle window ${IDLE_MS / 1000} s`);
console.log('process                          RSS MB  anon MB  file MB   CPU %   API requests in window');
for (const r of rows) {
  console.log(
    `${r.name.padEnd(32)} ${r.rssMb.toFixed(1).padStart(6)} ${r.anonMb.toFixed(1).padStart(8)} ${r.fileMb.toFixed(1).padStart(8)} ${r.cpuPercent.toFixed(3).padStart(7)}   ${r.requests ?? '-'}`,
  );
}
console.log('target: RSS ≤ 50 MB. file MB = pages of the node binary and bundle (shared, reclaimable).');
const note = `idle ${IDLE_MS / 1000} s after applying 50 files / 10 units`;
for (const r of rows) {
  // The agent unit's bundle, flags and environment: that row is the one the target is for.
  const shipped = r.name === SHIPPED_ROW;
  reportFigure({
    bench: 'agent-idle',
    name: `RSS, ${r.name}${shipped ? ' (as shipped)' : ''}`,
    value: r.rssMb,
    unit: 'MB',
    ...(shipped ? { target: { op: '<=' as const, value: 50 } } : {}),
    note,
  });
  if (r.requests !== undefined)
    reportFigure({
      bench: 'agent-idle',
      name: `API requests in the idle window, ${r.name}`,
      value: r.requests,
      unit: 'requests',
      note,
    });
}

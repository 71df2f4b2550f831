// Memory and request cost of the node agent's Kubernetes client: a child process that loads only the
// light client and holds one idle informer on its own Node, against the real embedded API server.
// Reports RSS per way of running the code (bundled, type-stripped) next to a bare node baseline, and
// counts requests: once with the real 30–60 min watch timeouts (the idle window should add none), and
// once with timeouts scaled down to seconds, extrapolated to an idle hour.
// Run: node bench/light-client-rss.bench.ts   (LIGHT_RSS_IDLE_MS: idle window per child, default 20000)

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { LightKubeClient } from '../src/kube/light/light-kube-client.ts';
import { startLocalApiServer } from '../test/support/local-apiserver.ts';
import { benchNumber } from './support/quick.ts';
import { reportFigure } from './support/report.ts';

const IDLE_MS = benchNumber('LIGHT_RSS_IDLE_MS', 20_000, 8_000);
const BOOKMARK_MS = 2000;
const NODE_NAME = 'bench-node';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const nodeBinary = process.execPath;
const work = mkdtempSync(join(tmpdir(), 'nodeherd-light-rss-'));

interface ChildReport {
  rssMb: number;
  /** Private (anonymous) part of RSS: heap, stacks, OpenSSL state. */
  anonMb: number;
  /** File-backed part: pages of the node binary (code) this process touched; shared and reclaimable. */
  fileMb: number;
  rssAfterGcMb: number;
  heapUsedMb: number;
  requestsToSync: number;
  requestsWhileIdle: number;
  byVerb: Record<string, number>;
  bookmarks: number;
  watches: number;
  lists: number;
}

// The child: what an idle agent does with the API server. Without `informer`, a bare baseline that
// only waits the same time.
function childSource(informer: boolean): string {
  const client = join(root, 'src/kube/light/light-kube-client.ts');
  const objectInformer = join(root, 'src/kube/light/object-informer.ts');
  const body = informer
    ? `
  const client = LightKubeClient.fromKubeconfig(process.env.BENCH_KUBECONFIG!);
  const [low, high] = JSON.parse(process.env.BENCH_WATCH_TIMEOUTS!) as [number, number];
  const informer = watchObject(client, '/api/v1/nodes', process.env.BENCH_NODE!, () => {}, {
    watchTimeoutSeconds: [low, high],
    bookmarkIntervalMs: ${BOOKMARK_MS},
  });
  await informer.whenSynced();
  // The watch opens right after the list's callbacks; count from there.
  await new Promise((resolve) => setImmediate(resolve));
  const requestsToSync = client.stats().requests;
  await new Promise((resolve) => setTimeout(resolve, Number(process.env.BENCH_IDLE_MS)));
  const stats = client.stats();
  const rss = process.memoryUsage.rss();
  const split = rssSplit();
  (globalThis as { gc?: () => void }).gc?.();
  const report = {
    rssMb: rss / 1e6,
    ...split,
    rssAfterGcMb: process.memoryUsage.rss() / 1e6,
    heapUsedMb: process.memoryUsage().heapUsed / 1e6,
    requestsToSync,
    requestsWhileIdle: stats.requests - requestsToSync,
    byVerb: stats.byVerb,
    bookmarks: stats.watchEvents.BOOKMARK ?? 0,
    watches: informer.stats().watches,
    lists: informer.stats().lists,
  };
  await informer.stop();
  client.close();`
    : `
  await new Promise((resolve) => setTimeout(resolve, Number(process.env.BENCH_IDLE_MS)));
  const rss = process.memoryUsage.rss();
  const split = rssSplit();
  (globalThis as { gc?: () => void }).gc?.();
  const report = { rssMb: rss / 1e6, ...split, rssAfterGcMb: process.memoryUsage.rss() / 1e6, heapUsedMb: process.memoryUsage().heapUsed / 1e6 };`;
  const imports = informer
    ? `import { LightKubeClient } from ${JSON.stringify(client)};\nimport { watchObject } from ${JSON.stringify(objectInformer)};\n`
    : '';
  return `${imports}import { readFileSync } from 'node:fs';
function rssSplit(): { anonMb: number; fileMb: number } {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = (field: string) => {
    const line = status.split('\\n').find((l) => l.startsWith(field + ':')) ?? '';
    return Number.parseInt(line.slice(field.length + 1), 10);
  };
  return { anonMb: (kb('RssAnon') * 1024) / 1e6, fileMb: (kb('RssFile') * 1024) / 1e6 };
}
async function main(): Promise<void> {${body}
  process.stdout.write(JSON.stringify(report) + '\\n');
}
main().catch((err) => { console.error(err); process.exit(1); });
`;
}

async function bundle(name: string, source: string, format: 'cjs' | 'esm'): Promise<string> {
  const outfile = join(work, `${name}.${format === 'cjs' ? 'cjs' : 'mjs'}`);
  await build({
    stdin: { contents: source, resolveDir: root, sourcefile: `${name}.ts`, loader: 'ts' },
    bundle: true,
    platform: 'node',
    target: 'node24',
    format,
    outfile,
    logLevel: 'warning',
    // yaml's CommonJS build (bundled only for the comparison row) requires node builtins; an ESM
    // bundle needs a require for that.
    ...(format === 'esm'
      ? {
          banner: {
            js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
          },
        }
      : {}),
  });
  return outfile;
}

function runChild(file: string, flags: string[], env: Record<string, string>): Promise<ChildReport> {
  return new Promise((resolve, reject) => {
    execFile(
      nodeBinary,
      ['--expose-gc', ...flags, file],
      { env: { ...process.env, ...env }, timeout: IDLE_MS + 60_000 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${file}: ${err.message}\n${stderr}`));
        else resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as ChildReport);
      },
    );
  });
}

const fmt = (mb: number) => mb.toFixed(1).padStart(6);

async function main(): Promise<void> {
  const local = await startLocalApiServer({ bookmarkIntervalMs: BOOKMARK_MS });
  try {
    const admin = LightKubeClient.fromKubeconfig(local.kubeconfigPath);
    await admin.create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: NODE_NAME } });
    admin.close();
    const kubeconfig = join(work, 'agent.kubeconfig');
    await local.server.issueCredential('node', NODE_NAME, kubeconfig);

    const agentSource = childSource(true);
    const bareSource = childSource(false);
    const agentTs = join(work, 'agent-child.ts');
    writeFileSync(agentTs, agentSource);
    const bareTs = join(work, 'bare-child.ts');
    writeFileSync(bareTs, bareSource);
    const bundles = {
      agentCjs: await bundle('agent', agentSource, 'cjs'),
      agentEsm: await bundle('agent', agentSource, 'esm'),
      bareCjs: await bundle('bare', bareSource, 'cjs'),
      yamlOnlyCjs: await bundle(
        'yaml-only',
        `import { parse } from 'yaml';\n${bareSource.replace('async function main(): Promise<void> {', "async function main(): Promise<void> {\n  parse(readFileSync(process.env.BENCH_KUBECONFIG!, 'utf8'));")}`,
        'cjs',
      ),
    };
    const env = (timeouts: [number, number]) => ({
      BENCH_KUBECONFIG: kubeconfig,
      BENCH_NODE: NODE_NAME,
      BENCH_IDLE_MS: String(IDLE_MS),
      BENCH_WATCH_TIMEOUTS: JSON.stringify(timeouts),
    });
    const realTimeouts: [number, number] = [30 * 60, 60 * 60];

    console.log(
      `node ${process.version}; idle window ${IDLE_MS} ms; server bookmarks every ${BOOKMARK_MS} ms`,
    );
    console.log(
      'RSS (MB) of one process, sampled at the end of the idle window; "after gc" follows a forced GC;',
    );
    console.log('anon = private memory, file = touched pages of the node binary (shared, reclaimable)');
    const rows: [string, string, string[], boolean][] = [
      ['bare node (CJS bundle that only waits)', bundles.bareCjs, [], false],
      [
        'bare node + `yaml` parsing the kubeconfig (what the light reader avoids)',
        bundles.yamlOnlyCjs,
        [],
        false,
      ],
      ['light client + 1 idle informer, CJS bundle', bundles.agentCjs, [], true],
      ['light client + 1 idle informer, ESM bundle', bundles.agentEsm, [], true],
      ['light client + 1 idle informer, .ts type-stripped', agentTs, [], true],
      ['bare node, .ts type-stripped', bareTs, [], false],
      [
        'light client, CJS bundle, --max-semi-space-size=1 --max-old-space-size=32',
        bundles.agentCjs,
        ['--max-semi-space-size=1', '--max-old-space-size=32'],
        true,
      ],
    ];
    let idleReport: ChildReport | undefined;
    for (const [label, file, flags, isAgent] of rows) {
      const report = await runChild(file, flags, env(realTimeouts));
      if (isAgent && !idleReport) idleReport = report;
      console.log(
        `  ${label.padEnd(76)} rss ${fmt(report.rssMb)} (anon ${fmt(report.anonMb)} file ${fmt(report.fileMb)})` +
          `  after gc ${fmt(report.rssAfterGcMb)}  heap ${fmt(report.heapUsedMb)}`,
      );
      reportFigure({ bench: 'light-client-rss', name: `RSS, ${label}`, value: report.rssMb, unit: 'MB' });
    }

    if (idleReport) {
      console.log('\nRequests, real watch timeouts (30–60 min):');
      console.log(
        `  to sync: ${idleReport.requestsToSync} (${JSON.stringify(idleReport.byVerb)}); during ${IDLE_MS} ms idle: ${idleReport.requestsWhileIdle}; bookmarks received: ${idleReport.bookmarks}`,
      );
    }

    // Same informer with the watch timeouts scaled down by 1800: each second stands for half an hour.
    const scale = 1800;
    const scaled: [number, number] = [realTimeouts[0] / scale, realTimeouts[1] / scale];
    const scaledReport = await runChild(bundles.agentCjs, [], env(scaled));
    const perHourScaled = (scaledReport.requestsWhileIdle / IDLE_MS) * 3_600_000;
    console.log(`\nRequests, watch timeouts scaled to ${scaled[0]}–${scaled[1]} s (÷${scale}):`);
    console.log(
      `  during ${IDLE_MS} ms idle: ${scaledReport.requestsWhileIdle} (watches ${scaledReport.watches}, lists ${scaledReport.lists})` +
        ` ⇒ ${(perHourScaled / scale).toFixed(2)} requests per idle hour at real timeouts` +
        ` (expected 3600 / mean timeout 2700 s = 1.33)`,
    );
    reportFigure({
      bench: 'light-client-rss',
      name: 'requests per idle hour, one informer (scaled watch timeouts, extrapolated)',
      value: perHourScaled / scale,
      unit: 'requests/h',
      note: `÷${scale}, ${IDLE_MS / 1000} s window`,
    });
  } finally {
    await local.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();

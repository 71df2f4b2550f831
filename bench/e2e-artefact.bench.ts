// How to ship the agent: one esbuild bundle run by the pinned Node runtime, or a Node single-executable
// application (SEA: the same runtime with the bundle injected). Prints size, start time and idle
// RSS of each; not a test. docs/real-nodes.md records the figures and the choice.
//
//   node bench/e2e-artefact.bench.ts
//   NODEHERD_POSTJECT=/path/to/postject node bench/e2e-artefact.bench.ts   # also measures the SEA
//
// The SEA needs postject to inject the blob into a copy of the node binary; it is not a dependency
// of this project, so that part only runs when NODEHERD_POSTJECT names one.
// Start time: `--help` (process start, module load and evaluation, exit), median of BENCH_STARTS
// runs (default 20). Idle RSS: the agent with simulated backends against the embedded API server,
// 8 s after start (it has listed and is watching its Node), median of 2 processes.

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { buildAgent, REPO_ROOT } from '../src/dist/build-agent.ts';
import { startLocalApiServer } from '../test/support/local-apiserver.ts';
import { benchNumber } from './support/quick.ts';
import { reportFigure } from './support/report.ts';

const execFileAsync = promisify(execFile);
const STARTS = benchNumber('BENCH_STARTS', 20, 5);
const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

interface Variant {
  name: string;
  command: string[];
  env?: Record<string, string>;
  shippedBytes: number;
  /** What a new agent version costs to ship. */
  updateBytes: number;
}

async function startMs(variant: Variant): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const started = performance.now();
    await execFileAsync(variant.command[0]!, [...variant.command.slice(1), '--help'], {
      env: { ...process.env, ...variant.env },
    });
    times.push(performance.now() - started);
  }
  return median(times);
}

async function idleRss(variant: Variant, dir: string): Promise<number> {
  const api = await startLocalApiServer();
  const values: number[] = [];
  try {
    for (let i = 0; i < 2; i++) {
      const node = `rss-${variant.name.replace(/[^a-z0-9]/g, '')}-${i}`;
      await api.kubectl(['create', '-f', '-'], {
        input: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: node } }),
      });
      const kubeconfig = join(dir, `${node}.kubeconfig`);
      await api.server.issueCredential('node', node, kubeconfig);
      const args = ['--kubeconfig', kubeconfig, '--node-name', node, '--backend', 'simulated'];
      const child: ChildProcess = spawn(
        variant.command[0]!,
        [...variant.command.slice(1), ...args, '--state-dir', join(dir, node), '--metrics-address', 'off'],
        { stdio: 'ignore', env: { ...process.env, ...variant.env } },
      );
      await new Promise((resolve) => setTimeout(resolve, 8000));
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
      values.push(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024);
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  } finally {
    await api.stop();
  }
  return median(values);
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'nodeherd-artefact-bench-'));
  try {
    const artefacts = await buildAgent({ outDir: join(dir, 'dist'), version: 'bench' });
    const runtime = artefacts.runtime!;
    const node = join(dir, 'node');
    await execFileAsync('sh', ['-c', `gzip -dc '${runtime.path}' > '${node}' && chmod 755 '${node}'`]);
    const variants: Variant[] = [
      {
        name: 'bundle + runtime',
        command: [node, artefacts.agent.path],
        shippedBytes: runtime.size + artefacts.agent.size,
        updateBytes: artefacts.agent.size,
      },
      {
        name: 'bundle + runtime, compile cache',
        command: [node, artefacts.agent.path],
        env: { NODE_COMPILE_CACHE: join(dir, 'compile-cache') },
        shippedBytes: runtime.size + artefacts.agent.size,
        updateBytes: artefacts.agent.size,
      },
    ];
    const postject = process.env.NODEHERD_POSTJECT;
    if (postject) {
      // SEA main scripts are CommonJS in Node 24.
      const cjs = join(dir, 'agent.cjs');
      await build({
        entryPoints: [join(REPO_ROOT, 'bin/nodeherd-agent.ts')],
        bundle: true,
        platform: 'node',
        format: 'cjs',
        target: 'node24',
        minify: true,
        keepNames: true,
        outfile: cjs,
        logLevel: 'silent',
      });
      const config = join(dir, 'sea.json');
      const blob = join(dir, 'sea.blob');
      await writeFile(
        config,
        JSON.stringify({ main: cjs, output: blob, disableExperimentalSEAWarning: true, useCodeCache: true }),
      );
      await execFileAsync(node, ['--experimental-sea-config', config]);
      const sea = join(dir, 'nodeherd-agent-sea');
      await copyFile(node, sea);
      await execFileAsync(postject, [
        sea,
        'NODE_SEA_BLOB',
        blob,
        '--sentinel-fuse',
        'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
      ]);
      await execFileAsync('sh', ['-c', `gzip -6 -c '${sea}' > '${sea}.gz'`]);
      const size = (await stat(`${sea}.gz`)).size;
      variants.push({
        name: 'single-executable application',
        command: [sea],
        shippedBytes: size,
        updateBytes: size,
      });
    } else {
      process.stdout.write('(SEA not measured: set NODEHERD_POSTJECT to a postject executable)\n');
    }
    process.stdout.write(
      'variant | shipped (gzip) | a new agent version ships | start (--help, median) | idle RSS\n',
    );
    for (const variant of variants) {
      const start = await startMs(variant);
      const rss = await idleRss(variant, dir);
      process.stdout.write(
        `${variant.name} | ${mb(variant.shippedBytes)} | ${mb(variant.updateBytes)} | ${start.toFixed(1)} ms | ${mb(rss)}\n`,
      );
      const figure = (name: string, value: number, unit: string) =>
        reportFigure({ bench: 'e2e-artefact', name: `${variant.name}: ${name}`, value, unit });
      figure('shipped (gzip)', variant.shippedBytes / 1e6, 'MB');
      figure('a new agent version ships', variant.updateBytes / 1e6, 'MB');
      figure('start (--help, median)', start, 'ms');
      figure('idle RSS', rss / 1e6, 'MB');
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();

// How long `nodeherd status` takes against the local cluster, as a user runs it: the installed CLI
// (built into a temporary folder as npm pack builds it) against `nodeherd up` with its sample pool,
// after the rollout completed. The figure is the median wall time of 10 runs after one warm-up (the
// file cache warm, as for a user who runs it again). The checkout's entry (TypeScript, `npm run
// nodeherd -- status`) is reported beside it.
//
// Run: node bench/cli-status.bench.ts
//   CLI_STATUS_RUNS=10              timed runs
//   CLI_STATUS_BASELINE=<dir>       also time a CLI built elsewhere (dist/bin of another commit)

import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { buildCli } from '../src/dist/build-cli.ts';
import { benchNumber } from './support/quick.ts';
import { reportFigure } from './support/report.ts';

const execFileAsync = promisify(execFile);
const REPO = resolve(import.meta.dirname, '..');
const NODE = process.execPath;
const RUNS = benchNumber('CLI_STATUS_RUNS', 10, 5);
const BASELINE = process.env.CLI_STATUS_BASELINE;

const work = mkdtempSync(join(tmpdir(), 'nodeherd-cli-status-'));
const stateDir = join(work, 'state');
const up = spawn(
  NODE,
  ['bin/nodeherd.ts', 'up', '--no-view', '--state-dir', stateDir, '--port', '0', '--node-api-port', '0'],
  { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] },
);
let output = '';
up.stdout.on('data', (chunk: Buffer) => {
  output += chunk.toString('utf8');
});
up.stderr.on('data', (chunk: Buffer) => {
  output += chunk.toString('utf8');
});

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (up.exitCode !== null) throw new Error(`nodeherd up exited (${up.exitCode}):\n${output}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Wall times of `RUNS` runs of a command after one warm-up, in ms, sorted. */
async function time(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number[]> {
  await execFileAsync(command, args, { env });
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await execFileAsync(command, args, { env });
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b);
}

const median = (sorted: number[]) => sorted[Math.floor(sorted.length / 2)]!;

try {
  const kubeconfig = await until(
    'nodeherd up to be ready',
    async () => (/^ready: /m.test(output) ? /export KUBECONFIG=(\S+)/.exec(output)?.[1] : undefined),
    300_000,
  );
  const env = { ...process.env, KUBECONFIG: kubeconfig, NO_COLOR: '1' };
  const installed = join(work, 'cli');
  await buildCli(installed);
  // As npm installs it: the package's dependencies beside dist/bin.
  symlinkSync(join(REPO, 'node_modules'), join(work, 'node_modules'));
  await until(
    'the sample pool to complete',
    async () => {
      const { stdout } = await execFileAsync(
        NODE,
        [join(installed, 'nodeherd.mjs'), 'status', '-o', 'json'],
        {
          env,
        },
      );
      const pools = JSON.parse(stdout) as { pools?: { name: string; complete?: boolean; phase?: string }[] };
      return JSON.stringify(pools).includes('"Complete"') ? true : undefined;
    },
    300_000,
  );
  const rows: [string, number[]][] = [
    ['installed CLI', await time(NODE, [join(installed, 'nodeherd.mjs'), 'status'], env)],
    ['checkout entry (bin/nodeherd.ts)', await time(NODE, [join(REPO, 'bin/nodeherd.ts'), 'status'], env)],
  ];
  if (BASELINE)
    rows.push(['baseline CLI', await time(NODE, [join(BASELINE, 'nodeherd.mjs'), 'status'], env)]);
  for (const [name, times] of rows) {
    process.stdout.write(
      `${name}: median ${median(times).toFixed(0)} ms (min ${times[0]!.toFixed(0)}, max ${times.at(-1)!.toFixed(0)}) over ${RUNS} runs\n`,
    );
    reportFigure({
      bench: 'cli-status',
      name: `nodeherd status, ${name}: median wall time`,
      value: Math.round(median(times)),
      unit: 'ms',
      ...(name === 'installed CLI' ? { target: { op: '<=', value: 300 } } : {}),
      note: `${RUNS} warm runs against nodeherd up (5 simulated nodes, the sample pool complete)`,
    });
  }
} finally {
  up.kill('SIGINT');
  await new Promise((r) => up.once('exit', r));
  rmSync(work, { recursive: true, force: true });
}

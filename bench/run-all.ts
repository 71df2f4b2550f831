// Runs every benchmark (bench/*.bench.ts) in sequence, each as a child process of the same pinned
// node, collects the BENCH_FIGURE lines they print (bench/support/report.ts) and writes
// bench/results.md: machine, load, and per bench its figures against their targets.
//
//   npm run bench                        every bench at full size
//   npm run bench -- --quick             small sizes (BENCH_QUICK=1) where a bench supports them
//   npm run bench -- --only controller   only benches whose file name contains the substring
//   npm run bench -- --out /tmp/r.md     write the results elsewhere (default bench/results.md)
//   npm run bench -- --timeout-minutes 40   per-bench limit (default 45); a bench over it is failed
//
// A bench that exits non-zero or runs over its limit is listed as failed with the end of its output;
// benches that need root (real systemd in containers) are listed as skipped, with why, when they cannot run.

import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { cpus, hostname, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { imageBuildUnavailableReason } from '../src/dist/images/build-images.ts';
import { writeFileAtomic } from '../src/util/atomic-write.ts';
import { e2eSkipReason } from '../test/e2e/support/host.ts';
import { QUICK_ENV } from './support/quick.ts';
import { type Figure, parseFigure, targetMet } from './support/report.ts';

const BENCH_DIR = import.meta.dirname;
const SUFFIX = '.bench.ts';
/** Lines of a failed bench's output kept for the report. */
const TAIL_LINES = 15;

/** Benches that need root and host tools; the reason they cannot run here, if any. */
const NEEDS_E2E_HOST: Record<string, () => string | undefined> = {
  'e2e-node': e2eSkipReason,
  images: imageBuildUnavailableReason,
};

interface BenchRun {
  bench: string;
  status: 'ok' | 'failed' | 'skipped';
  /** Why it failed or was skipped. */
  reason?: string;
  durationS: number;
  loadBefore: number[];
  loadAfter: number[];
  figures: Figure[];
  tail: string[];
}

function options() {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      quick: { type: 'boolean', default: false },
      out: { type: 'string', default: join(BENCH_DIR, 'results.md') },
      'timeout-minutes': { type: 'string', default: '45' },
    },
  });
  const timeoutMinutes = Number(values['timeout-minutes']);
  if (!Number.isFinite(timeoutMinutes) || timeoutMinutes <= 0)
    throw new Error(`--timeout-minutes: expected a positive number, got ${values['timeout-minutes']}`);
  return { only: values.only, quick: values.quick, out: values.out, timeoutMs: timeoutMinutes * 60_000 };
}

function benches(only: string | undefined): string[] {
  return readdirSync(BENCH_DIR)
    .filter((file) => file.endsWith(SUFFIX))
    .map((file) => file.slice(0, -SUFFIX.length))
    .filter((bench) => only === undefined || bench.includes(only))
    .sort();
}

const load = () => loadavg().map((l) => Math.round(l * 100) / 100);

async function runBench(bench: string, quick: boolean, timeoutMs: number): Promise<BenchRun> {
  const loadBefore = load();
  const started = performance.now();
  const skip = NEEDS_E2E_HOST[bench]?.();
  if (skip)
    return {
      bench,
      status: 'skipped',
      reason: skip,
      durationS: 0,
      loadBefore,
      loadAfter: loadBefore,
      figures: [],
      tail: [],
    };

  process.stdout.write(`\n===== ${bench}${quick ? ' (quick)' : ''} =====\n`);
  const env = { ...process.env };
  if (quick) env[QUICK_ENV] = '1';
  else delete env[QUICK_ENV];
  const child = spawn(process.execPath, [join(BENCH_DIR, `${bench}${SUFFIX}`)], {
    cwd: join(BENCH_DIR, '..'),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const figures: Figure[] = [];
  const tail: string[] = [];
  const keep = (line: string) => {
    tail.push(line);
    if (tail.length > TAIL_LINES) tail.shift();
  };
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const figure = parseFigure(line);
    if (figure) figures.push(figure);
    else keep(line);
    process.stdout.write(`${line}\n`);
  });
  createInterface({ input: child.stderr! }).on('line', (line) => {
    keep(line);
    process.stderr.write(`${line}\n`);
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  }, timeoutMs);
  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
    (resolve) => child.once('close', (c, s) => resolve({ code: c, signal: s })),
  );
  clearTimeout(timer);
  const durationS = (performance.now() - started) / 1000;
  const loadAfter = load();
  const failed = timedOut || code !== 0;
  const reason = timedOut
    ? `ran over the limit of ${timeoutMs / 60_000} min and was stopped`
    : code !== 0
      ? `exited with ${code ?? signal}`
      : undefined;
  return {
    bench,
    status: failed ? 'failed' : 'ok',
    ...(reason ? { reason } : {}),
    durationS,
    loadBefore,
    loadAfter,
    figures,
    tail: failed ? tail : [],
  };
}

function formatValue(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  return value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

function duration(seconds: number): string {
  if (seconds < 10) return `${seconds.toFixed(1)} s`;
  if (seconds < 90) return `${seconds.toFixed(0)} s`;
  return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
}

function markdown(
  runs: BenchRun[],
  opts: { quick: boolean; only: string | undefined },
  startedAt: Date,
  totalS: number,
  loadBefore: number[],
  loadAfter: number[],
): string {
  const cpuList = cpus();
  const lines = [
    '# Benchmark results',
    '',
    `Written by \`npm run bench\` (bench/run-all.ts${opts.quick ? ' --quick' : ''}${opts.only ? ` --only ${opts.only}` : ''}). ` +
      'Each bench prints more than this for humans; these are its headline figures (BENCH_FIGURE lines).',
    opts.quick
      ? '**Quick run**: small sizes and short windows (BENCH_QUICK=1); a smoke run, not figures to quote.'
      : '',
    '',
    `- date: ${startedAt.toISOString()}`,
    `- machine: ${hostname()}, ${cpuList.length} × ${cpuList[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB memory, node ${process.version}`,
    `- load average (1, 5, 15 min) before: ${loadBefore.join(', ')}; after: ${loadAfter.join(', ')}`,
    `- the whole run took ${duration(totalS)}`,
    '- the machine is shared: figures taken under load are noisy; each bench lists the load around it',
    '',
    '| bench | status | duration | load before → after (1 min) | figures met / with a target |',
    '|---|---|---|---|---|',
  ];
  for (const run of runs) {
    const targeted = run.figures.filter((f) => f.target);
    const met = targeted.filter((f) => targetMet(f)).length;
    lines.push(
      `| ${run.bench} | ${run.status}${run.reason ? `: ${cell(run.reason)}` : ''} | ${run.status === 'skipped' ? '-' : duration(run.durationS)} | ` +
        `${run.status === 'skipped' ? '-' : `${run.loadBefore[0]} → ${run.loadAfter[0]}`} | ${targeted.length ? `${met} / ${targeted.length}` : '-'} |`,
    );
  }
  for (const run of runs) {
    lines.push('', `## ${run.bench}`, '');
    if (run.status === 'skipped') {
      lines.push(`Skipped: ${run.reason}.`);
      continue;
    }
    lines.push(
      `${run.status === 'ok' ? 'Ran' : `**Failed** (${run.reason})`} in ${duration(run.durationS)}; load average before ${run.loadBefore.join(', ')}, after ${run.loadAfter.join(', ')}.`,
      '',
    );
    if (run.figures.length > 0) {
      lines.push('| figure | value | target | met? |', '|---|---|---|---|');
      for (const f of run.figures) {
        const met = targetMet(f);
        const shown = Number.isFinite(f.value) ? `${formatValue(f.value)} ${f.unit}` : 'not measured';
        const value = `${shown}${f.note ? ` (${f.note})` : ''}`;
        const target = f.target
          ? `${f.target.op === '<=' ? '≤' : '≥'} ${formatValue(f.target.value)} ${f.unit}`
          : '';
        lines.push(
          `| ${cell(f.name)} | ${cell(value)} | ${cell(target)} | ${met === undefined ? '' : met ? 'yes' : '**no**'} |`,
        );
      }
    } else {
      lines.push('No figures reported.');
    }
    if (run.tail.length > 0) lines.push('', 'End of its output:', '', '```', ...run.tail, '```');
  }
  return `${lines.filter((line, i, all) => !(line === '' && all[i - 1] === '')).join('\n')}\n`;
}

async function main(): Promise<void> {
  const opts = options();
  const selected = benches(opts.only);
  if (selected.length === 0) throw new Error(`--only ${opts.only}: no bench file name contains it`);
  const startedAt = new Date();
  const started = performance.now();
  const loadBefore = load();
  const runs: BenchRun[] = [];
  for (const bench of selected) {
    const run = await runBench(bench, opts.quick, opts.timeoutMs);
    runs.push(run);
    process.stdout.write(
      `----- ${bench}: ${run.status}${run.reason ? ` (${run.reason})` : ''}, ${duration(run.durationS)}, ${run.figures.length} figures\n`,
    );
  }
  const totalS = (performance.now() - started) / 1000;
  await writeFileAtomic(opts.out, markdown(runs, opts, startedAt, totalS, loadBefore, load()), {
    mode: 0o644,
  });
  process.stdout.write(`\nresults written to ${opts.out} (${duration(totalS)} in all)\n`);
  if (runs.some((run) => run.status === 'failed')) process.exitCode = 1;
}

await main();

// The API server as a child process for benchmarks (apiserver-child.ts: what `nodeherd apiserver`
// runs, plus memory reports over IPC): started through a shell that raises the open-files limit
// (10,000 watches are 10,000 sockets), with its admin credential, and an optional CPU profile.

import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { MemoryReport } from './apiserver-child.ts';

const ROOT = join(import.meta.dirname, '..', '..');

export interface ApiServerProcess {
  child: ChildProcess;
  pid: number;
  url: string;
  token: string;
  caPem: string;
  /** VmRSS and VmHWM of the server process (from its /proc status), its V8 heap (after a full GC
   * when gc is true) and its event-loop delay since the last call. */
  memory(gc?: boolean): Promise<MemoryReport>;
  /** Requests the server received since it started, by "verb resource[/subresource]". */
  requests(): Promise<Record<string, number>>;
  /**
   * Starts a CPU profile of the server (node:inspector), or stops it and writes it into dir as a
   * .cpuprofile file (whose path it returns): a profile of one phase of a benchmark, not the whole run.
   */
  profile(action: 'start'): Promise<void>;
  profile(action: 'stop', dir: string): Promise<string>;
  stop(): Promise<void>;
}

export interface StartOptions {
  dataDir: string;
  /** Extra node flags, e.g. --cpu-prof --cpu-prof-dir=D. */
  nodeFlags?: string[];
  env?: Record<string, string>;
}

const shellQuote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/** Raises the soft open-files limit as far as the hard limit allows, then execs the command. */
export function withFileLimit(argv: string[]): string[] {
  return [
    '-c',
    `ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"; exec ${argv.map(shellQuote).join(' ')}`,
  ];
}

export async function startApiServerProcess(options: StartOptions): Promise<ApiServerProcess> {
  const argv = [
    process.execPath,
    '--expose-gc',
    ...(options.nodeFlags ?? []),
    join(ROOT, 'bench', 'support', 'apiserver-child.ts'),
    options.dataDir,
  ];
  const child = spawn('/bin/sh', withFileLimit(argv), {
    cwd: ROOT,
    env: { ...process.env, NODEHERD_LOG_LEVEL: 'warn', ...(options.env ?? {}) },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /listening on (https:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    exited.then(() => reject(new Error(`API server exited before listening:\n${output}`)));
  });
  // Keep draining its output so a chatty server never blocks on a full pipe (shown with
  // BENCH_SERVER_OUTPUT=1, e.g. for --trace-gc).
  child.stdout!.removeAllListeners('data');
  child.stderr!.removeAllListeners('data');
  if (process.env.BENCH_SERVER_OUTPUT === '1') {
    child.stdout!.pipe(process.stderr);
    child.stderr!.pipe(process.stderr);
  } else {
    child.stdout!.resume();
    child.stderr!.resume();
  }
  const kubeconfig = parseYaml(readFileSync(join(options.dataDir, 'kubeconfig'), 'utf8'));
  const token: string = kubeconfig.users[0].user.token;
  const caPem = Buffer.from(
    kubeconfig.clusters[0].cluster['certificate-authority-data'],
    'base64',
  ).toString();
  const pid = child.pid!;
  return {
    child,
    pid,
    url,
    token,
    caPem,
    memory(gc = true) {
      return new Promise((resolve) => {
        child.once('message', (report: MemoryReport) => resolve(report));
        child.send({ cmd: 'memory', gc });
      });
    },
    requests() {
      return new Promise((resolve) => {
        child.once('message', (report: { requests: Record<string, number> }) => resolve(report.requests));
        child.send({ cmd: 'requests' });
      });
    },
    profile(action: 'start' | 'stop', dir?: string): Promise<any> {
      return new Promise((resolve) => {
        child.once('message', (reply: { profile?: string }) => resolve(reply.profile));
        child.send({ cmd: 'profile', action, dir });
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

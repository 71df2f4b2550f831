// Runs bin/nodeherd-agent.ts as a child process (real files in a temporary root, simulated systemd
// whose state survives the process), and collects its JSON log lines.

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Cluster } from './agent-harness.ts';

const NODE = join(import.meta.dirname, '../../node_modules/.bin/node');
const AGENT = join(import.meta.dirname, '../../bin/nodeherd-agent.ts');

export interface AgentProcessPaths {
  name: string;
  kubeconfig: string;
  root: string;
  stateDir: string;
  simulationDir: string;
}

export async function agentPaths(cluster: Cluster, name: string): Promise<AgentProcessPaths> {
  const kubeconfig = join(cluster.dir, `${name}.kubeconfig`);
  await cluster.api.server.issueCredential('node', name, kubeconfig);
  const root = join(cluster.dir, name, 'root');
  await mkdir(root, { recursive: true });
  return {
    name,
    kubeconfig,
    root,
    stateDir: join(cluster.dir, name, 'state'),
    simulationDir: join(cluster.dir, name, 'simulation'),
  };
}

export interface LogLine {
  msg: string;
  level: string;
  [key: string]: unknown;
}

const running = new Set<AgentProcess>();

/** Kills every agent process still running (test cleanup after a failure). */
export async function killAllAgentProcesses(): Promise<void> {
  await Promise.all([...running].map((agent) => agent.kill('SIGKILL')));
}

export interface AgentProcess {
  child: ChildProcess;
  lines: LogLine[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  hasExited(): boolean;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export function startAgentProcess(
  paths: AgentProcessPaths,
  options: {
    durations?: Record<string, number>;
    env?: Record<string, string>;
    args?: string[];
    /** Another build of the agent (a bundle) instead of bin/nodeherd-agent.ts, run with nodeFlags. */
    entry?: string;
    nodeFlags?: readonly string[];
  } = {},
): AgentProcess {
  const child = spawn(
    NODE,
    [
      ...(options.nodeFlags ?? []),
      options.entry ?? AGENT,
      '--kubeconfig',
      paths.kubeconfig,
      '--node-name',
      paths.name,
      '--state-dir',
      paths.stateDir,
      '--root-dir',
      paths.root,
      '--backend',
      'simulated-systemd',
      '--simulation-dir',
      paths.simulationDir,
      '--simulated-durations',
      JSON.stringify(options.durations ?? {}),
      '--metrics-address',
      'off',
      '--log-level',
      'debug',
      '--rollback',
      'never',
      ...(options.args ?? []),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...options.env } },
  );
  const lines: LogLine[] = [];
  let buffered = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    buffered += chunk;
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    for (const part of parts) {
      try {
        lines.push(JSON.parse(part) as LogLine);
      } catch {
        lines.push({ msg: part, level: 'raw' });
      }
    }
  });
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      done = true;
      running.delete(agent);
      resolve({ code, signal });
    });
  });
  const agent: AgentProcess = {
    child,
    lines,
    exited,
    hasExited: () => done,
    async kill(signal: NodeJS.Signals = 'SIGKILL') {
      if (!done) child.kill(signal);
      await exited;
    },
  };
  running.add(agent);
  return agent;
}

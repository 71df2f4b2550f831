// Shared by the agent benchmarks: the agent bundled as it ships (one esbuild file: type stripping
// and module loading cost ~40 MB of RSS on their own), a child-process agent against the embedded
// API server, /proc readings, and a watch that timestamps the Node's reports.

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CURRENT_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  STATE_ANNOTATION,
} from '../src/api/node-protocol.ts';
import { renderConfigs } from '../src/api/render.ts';
import { buildRevision } from '../src/api/revision.ts';
import type { NodeConfigRevision, NodeConfigSpec } from '../src/api/types.ts';
import { AGENT_NODE_ENV, AGENT_NODE_FLAGS, bundleAgent } from '../src/dist/build-agent.ts';
import type { LightKubeClient } from '../src/kube/light/light-kube-client.ts';
import type { KubeObject } from '../src/kube/light/types.ts';

export const ROOT = join(import.meta.dirname, '..');
export const AGENT_SOURCE = join(ROOT, 'bin/nodeherd-agent.ts');

/**
 * The agent bundle as it ships: src/dist/build-agent.ts's ES module (whitespace and syntax minified), Node's built-ins
 * loaded with process.getBuiltinModule (an ESM import of node:http alone loads undici, ~3 MB of idle RSS).
 */
export async function buildAgentBundle(outDir: string): Promise<string> {
  const outFile = join(outDir, 'nodeherd-agent.mjs');
  await bundleAgent({ entry: AGENT_SOURCE, outFile, version: '0.0.0-bench', minify: true });
  return outFile;
}

/** The Node flags the agent's unit runs it with (init/nodeherd-init.sh's ExecStart, held to them by a test). */
export const SHIPPED_NODE_FLAGS: readonly string[] = AGENT_NODE_FLAGS;

/** The unit's environment for Node, with the compile cache under `dir` instead of /var/cache. */
export function shippedNodeEnv(dir: string): Record<string, string> {
  return { ...AGENT_NODE_ENV, NODE_COMPILE_CACHE: join(dir, 'compile-cache') };
}

export interface ProcStats {
  rssMb: number;
  anonMb: number;
  fileMb: number;
  /** user + system CPU time, seconds. */
  cpuSeconds: number;
}

export function procStats(pid: number): ProcStats {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  // Fields 14 and 15 of /proc/pid/stat (after the parenthesised command) are utime and stime in ticks.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return {
    rssMb: kb('VmRSS') / 1024,
    anonMb: kb('RssAnon') / 1024,
    fileMb: kb('RssFile') / 1024,
    cpuSeconds: ticks / 100,
  };
}

export interface AgentChild {
  child: ChildProcess;
  pid: number;
  stop(): Promise<void>;
}

export function spawnAgent(
  entry: string,
  args: string[],
  nodeFlags: readonly string[] = [],
  env: Record<string, string> = {},
): AgentChild {
  const child = spawn(process.execPath, [...nodeFlags, entry, ...args], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, ...env },
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    child,
    pid: child.pid!,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export function agentArgs(options: {
  kubeconfig: string;
  node: string;
  dir: string;
  backend: 'simulated' | 'simulated-systemd';
  metrics?: string;
  extra?: string[];
}): string[] {
  const root = join(options.dir, 'root');
  mkdirSync(root, { recursive: true });
  return [
    '--kubeconfig',
    options.kubeconfig,
    '--node-name',
    options.node,
    '--state-dir',
    join(options.dir, 'state'),
    '--root-dir',
    root,
    '--backend',
    options.backend,
    '--metrics-address',
    options.metrics ?? 'off',
    '--log-level',
    'warn',
    ...(options.extra ?? []),
  ];
}

/** A config with `files` files and `units` units; every file's content depends on `version`. */
export function benchSpec(files: number, units: number, version: string): NodeConfigSpec {
  return {
    files: Array.from({ length: files }, (_, i) => ({
      path: `/etc/bench/file-${i}.conf`,
      content: { inline: { data: `# version ${version}\nkey${i}=${'x'.repeat(200)}\n` } },
    })),
    units: Array.from({ length: units }, (_, u) => ({
      name: `bench-${u}.service`,
      content: `[Service]\nExecStart=/usr/bin/bench-${u}\n`,
      filePaths: Array.from({ length: files }, (_, i) => i)
        .filter((i) => i % units === u)
        .map((i) => `/etc/bench/file-${i}.conf`),
    })),
  };
}

let revisionNumber = 0;

export async function createBenchRevision(
  admin: LightKubeClient,
  pool: string,
  spec: NodeConfigSpec,
): Promise<NodeConfigRevision> {
  const result = renderConfigs([
    { apiVersion: 'nodeherd.io/v1alpha1', kind: 'NodeConfig', metadata: { name: pool }, spec },
  ]);
  if (!result.config || !result.hash) throw new Error(`render failed: ${JSON.stringify(result.errors)}`);
  const revision = buildRevision(
    {
      apiVersion: 'nodeherd.io/v1alpha1',
      kind: 'NodeConfigPool',
      metadata: { name: pool },
      spec: { nodeSelector: {}, configSelector: {} },
    },
    {
      config: result.config,
      hash: result.hash,
      hashAlgorithm: result.hashAlgorithm,
      sources: result.sources,
    },
    ++revisionNumber,
  );
  await admin.create('/apis/nodeherd.io/v1alpha1/nodeconfigrevisions', revision);
  return revision;
}

export function setDesired(admin: LightKubeClient, node: string, revision: string): Promise<unknown> {
  return admin.patch(`/api/v1/nodes/${node}`, {
    metadata: { annotations: { [DESIRED_REVISION_ANNOTATION]: revision } },
  });
}

/** Watches a Node and resolves waiters when it reports Done for a revision, with the time it was seen. */
export class DoneWatcher {
  private readonly waiters = new Map<string, (at: number) => void>();
  private readonly handle: { abort(): void };

  constructor(admin: LightKubeClient, node: string) {
    this.handle = admin.watch<KubeObject>(
      '/api/v1/nodes',
      { fieldSelector: `metadata.name=${node}`, allowWatchBookmarks: true },
      {
        onEvent: (event) => {
          const at = performance.now();
          const annotations = event.object.metadata?.annotations ?? {};
          if (annotations[STATE_ANNOTATION] !== 'Done') return;
          const waiter = this.waiters.get(annotations[CURRENT_REVISION_ANNOTATION] ?? '');
          if (waiter) {
            this.waiters.delete(annotations[CURRENT_REVISION_ANNOTATION]!);
            waiter(at);
          }
        },
      },
    );
  }

  /** Resolves with performance.now() of the first Done report for `revision` after this call. */
  done(revision: string, timeoutMs = 30_000): Promise<number> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no Done for ${revision} within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.waiters.set(revision, (at) => {
        clearTimeout(timer);
        resolve(at);
      });
    });
  }

  close(): void {
    this.handle.abort();
  }
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

// A real embedded API server with NodeConfigPools, NodeConfigs, NodeConfigRevisions and Node objects written
// directly (as the controller and agents would have), and the nodeherd CLI run as a separate process
// against it, exactly as a user runs it.

import { execFile } from 'node:child_process';
import { revisionName } from '../../../src/api/hash.ts';
import {
  CURRENT_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  NODE_CONFIG_READY_CONDITION,
  POOL_LABEL,
  REVISION_LABEL,
  STATE_ANNOTATION,
} from '../../../src/api/node-protocol.ts';
import { renderConfigs } from '../../../src/api/render.ts';
import type {
  NodeConfig,
  NodeConfigPool,
  NodeConfigPoolSpec,
  NodeConfigSpec,
} from '../../../src/api/types.ts';
import { nodeConfigPoolPath, nodePath, PATHS } from '../../../src/controller/api-paths.ts';
import type { KubeClient } from '../../../src/kube/kube-client.ts';
import { kubeTime } from '../../../src/util/kube-time.ts';
import { adminKubeClient, type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';

export const REPO_ROOT = new URL('../../..', import.meta.url).pathname;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs bin/nodeherd.ts with the pinned node (this test's own), never through a shell. */
export function runCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; input?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['bin/nodeherd.ts', ...args],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, NO_COLOR: '1', ...options.env },
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end(options.input ?? '');
  });
}

export interface NodeFixture {
  name: string;
  labels?: Record<string, string>;
  current?: string;
  desired?: string;
  state?: string;
  message?: string;
  ready?: boolean;
  configReady?: boolean;
  /** The message of NodeConfigReady (a failure's excerpt, issue 36). */
  configMessage?: string;
  /** The agent's ConfigDrift condition is True with this message. */
  drifted?: string;
  annotations?: Record<string, string>;
}

export class CliCluster {
  readonly local: LocalApiServer;
  readonly client: KubeClient;

  private constructor(local: LocalApiServer, client: KubeClient) {
    this.local = local;
    this.client = client;
  }

  static async start(options: { installCrds?: boolean } = {}): Promise<CliCluster> {
    // Nodes here send no heartbeats: a long grace period keeps them Ready as written.
    const local = await startLocalApiServer({ nodeMonitorGracePeriodMs: 3_600_000, ...options });
    return new CliCluster(local, adminKubeClient(local));
  }

  get kubeconfig(): string {
    return this.local.kubeconfigPath;
  }

  /** The CLI against this server (--kubeconfig appended). */
  cli(args: string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<CliResult> {
    return runCli([...args, '--kubeconfig', this.kubeconfig], options);
  }

  async stop(): Promise<void> {
    this.client.close();
    await this.local.stop();
  }

  createConfig(name: string, spec: NodeConfigSpec, labels: Record<string, string> = {}): Promise<NodeConfig> {
    return this.client.create<NodeConfig>(PATHS.nodeConfigs, {
      apiVersion: 'nodeherd.io/v1alpha1',
      kind: 'NodeConfig',
      metadata: { name, labels },
      spec,
    });
  }

  createPool(name: string, spec: NodeConfigPoolSpec): Promise<NodeConfigPool> {
    return this.client.create<NodeConfigPool>(PATHS.nodeConfigPools, {
      apiVersion: 'nodeherd.io/v1alpha1',
      kind: 'NodeConfigPool',
      metadata: { name },
      spec,
    });
  }

  /** Writes the pool's status as the controller would. */
  async setPoolStatus(name: string, status: NonNullable<NodeConfigPool['status']>): Promise<NodeConfigPool> {
    return this.client.patch<NodeConfigPool>(nodeConfigPoolPath(name, 'status'), { status }, 'merge');
  }

  getPool(name: string): Promise<NodeConfigPool> {
    return this.client.get<NodeConfigPool>(nodeConfigPoolPath(name));
  }

  /** Renders configs (name → spec) into the pool's NodeConfigRevision number `revision`; returns its name. */
  async createRevision(
    pool: string,
    revision: number,
    configs: Record<string, NodeConfigSpec>,
  ): Promise<string> {
    const result = renderConfigs(
      Object.entries(configs).map(([name, spec]) => ({
        apiVersion: 'nodeherd.io/v1alpha1' as const,
        kind: 'NodeConfig' as const,
        metadata: { name },
        spec,
      })),
    );
    if (!result.config || !result.hash)
      throw new Error(`configs do not render: ${JSON.stringify(result.errors)}`);
    const name = revisionName(pool, result.hash);
    await this.client.create(PATHS.revisions, {
      apiVersion: 'nodeherd.io/v1alpha1',
      kind: 'NodeConfigRevision',
      metadata: { name, labels: { [POOL_LABEL]: pool, [REVISION_LABEL]: String(revision) } },
      spec: {
        pool,
        revision,
        hash: result.hash,
        hashAlgorithm: result.hashAlgorithm,
        config: result.config,
        sources: result.sources,
      },
    });
    return name;
  }

  /** Creates a Node with the agent's annotations and Ready / NodeConfigReady conditions. */
  async createNode(fixture: NodeFixture): Promise<void> {
    const annotations: Record<string, string> = { ...fixture.annotations };
    if (fixture.current) annotations[CURRENT_REVISION_ANNOTATION] = fixture.current;
    if (fixture.desired ?? fixture.current)
      annotations[DESIRED_REVISION_ANNOTATION] = (fixture.desired ?? fixture.current)!;
    if (fixture.state) annotations[STATE_ANNOTATION] = fixture.state;
    if (fixture.message) annotations['nodeherd.io/message'] = fixture.message;
    await this.client.create(PATHS.nodes, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: fixture.name, labels: fixture.labels ?? {}, annotations },
    });
    const now = kubeTime(Date.now());
    const condition = (type: string, ok: boolean) => ({
      type,
      status: ok ? 'True' : 'False',
      reason: ok ? 'Ready' : 'NotReady',
      message: '',
      lastHeartbeatTime: now,
      lastTransitionTime: now,
    });
    await this.client.patch(
      nodePath(fixture.name, 'status'),
      {
        status: {
          conditions: [
            condition('Ready', fixture.ready ?? true),
            {
              ...condition(NODE_CONFIG_READY_CONDITION, fixture.configReady ?? fixture.state !== 'Failed'),
              ...(fixture.configMessage !== undefined ? { message: fixture.configMessage } : {}),
            },
            ...(fixture.drifted !== undefined
              ? [
                  {
                    type: 'ConfigDrift',
                    status: 'True',
                    reason: 'DriftDetected',
                    message: fixture.drifted,
                    lastHeartbeatTime: now,
                    lastTransitionTime: now,
                  },
                ]
              : []),
          ],
        },
      },
      'strategic',
    );
  }

  getNode(
    name: string,
  ): Promise<{ metadata: { resourceVersion?: string; annotations?: Record<string, string> } }> {
    return this.client.get(nodePath(name));
  }
}

/** A NodeConfig spec writing one file. */
export function fileConfig(path: string, data: string): NodeConfigSpec {
  return { files: [{ path, content: { inline: { data } } }] };
}

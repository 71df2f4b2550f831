// `nodeherd up`'s cluster as the up tests run it, like a user: a LocalCluster on a fresh state
// directory (stopped and removed after the file's tests), the sample pool `workers` and its nodes read
// through the admin client, and kubectl run in the repository with the cluster's kubeconfig.

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import {
  CURRENT_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  STATE_ANNOTATION,
} from '../../src/api/node-protocol.ts';
import type { KubeClient } from '../../src/kube/kube-client.ts';
import type { WatchHandle } from '../../src/kube/kube-watch.ts';
import { LocalCluster } from '../../src/up/local-cluster.ts';
import { REPO_ROOT } from '../cli/support/cli-cluster.ts';

export const GROUP = '/apis/nodeherd.io/v1alpha1';

export interface UpNode {
  metadata: { name: string; annotations?: Record<string, string> };
  status?: { conditions?: { type: string; status: string }[]; nodeInfo?: { kubeletVersion?: string } };
}
export interface UpCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
export interface UpPool {
  metadata: { annotations?: Record<string, string> };
  spec: { paused?: boolean };
  status?: { targetRevision?: string; currentRevision?: string; ready?: number; conditions?: UpCondition[] };
}

/** A `nodeherd up` run on its own state directory; after the file's tests, stopped and removed. */
export class UpRun {
  readonly stateDir: string;
  cluster: LocalCluster | undefined;

  constructor(prefix: string) {
    this.stateDir = mkdtempSync(join(tmpdir(), prefix));
    after(async () => {
      await this.cluster?.stop();
      rmSync(this.stateDir, { recursive: true, force: true });
    });
  }

  /** `nodeherd up` with `nodes` simulated nodes on the state directory (again, after a stop: a resume). */
  async start(nodes: number): Promise<LocalCluster> {
    this.cluster = await LocalCluster.start({ stateDir: this.stateDir, nodes, port: 0 });
    return this.cluster;
  }

  async restart(nodes: number): Promise<LocalCluster> {
    await this.cluster?.stop();
    return this.start(nodes);
  }
}

export const ready = (node: UpNode) =>
  node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
export const workersPool = (client: KubeClient) => client.get<UpPool>(`${GROUP}/nodeconfigpools/workers`);
export const upNodes = async (client: KubeClient) =>
  (await client.list<never>('/api/v1/nodes')).items as unknown as UpNode[];
export const poolCondition = (p: UpPool, type: string) => p.status?.conditions?.find((c) => c.type === type);

/** The nodes, when there are `count` and every one is Ready and Done on `revision`. */
export async function everyNodeOn(
  client: KubeClient,
  revision: string,
  count: number,
): Promise<UpNode[] | undefined> {
  const list = await upNodes(client);
  return list.length === count &&
    list.every(
      (n) =>
        ready(n) &&
        n.metadata.annotations?.[CURRENT_REVISION_ANNOTATION] === revision &&
        n.metadata.annotations?.[DESIRED_REVISION_ANNOTATION] === revision &&
        n.metadata.annotations?.[STATE_ANNOTATION] === 'Done',
    )
    ? list
    : undefined;
}

/** kubectl as a user runs it from the repository, against `kubeconfig`; its exit code and output. */
export function kubectl(args: string[], kubeconfig: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      'kubectl',
      args,
      { cwd: REPO_ROOT, env: { ...process.env, KUBECONFIG: kubeconfig } },
      (error, stdout, stderr) =>
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          out: stdout + stderr,
        }),
    );
  });
}

export function hasKubectl(): Promise<boolean> {
  return new Promise((resolve) => execFile('kubectl', ['version', '--client'], (error) => resolve(!error)));
}

/**
 * From now on, the revisions each node is told to take (its desired-revision, as the Nodes' watch sees
 * it change), with the watch to abort when done.
 */
export async function watchDesiredRevisions(
  client: KubeClient,
): Promise<{ told: Map<string, Set<string>>; watch: WatchHandle }> {
  const told = new Map<string, Set<string>>();
  const { metadata } = await client.list<never>('/api/v1/nodes');
  const watch = client.watch<UpNode>(
    '/api/v1/nodes',
    { resourceVersion: metadata.resourceVersion },
    {
      onEvent: (event) => {
        const desired = event.object.metadata.annotations?.[DESIRED_REVISION_ANNOTATION];
        if (!desired) return;
        const seen = told.get(event.object.metadata.name) ?? new Set<string>();
        seen.add(desired);
        told.set(event.object.metadata.name, seen);
      },
    },
  );
  return { told, watch };
}

// The control plane the containers bootstrap against, on the host: the embedded API server (HTTPS on
// 127.0.0.1, which the containers share), which also serves the agent's artefacts at /nodeherd/agent/,
// where nodeherd-init looks for them by default. Revisions are
// rendered by the real renderer and handed to nodes through the desired-revision annotation, the
// controller's half of the protocol.

import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  CURRENT_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  MESSAGE_ANNOTATION,
  NODE_CONFIG_READY_CONDITION,
  STATE_ANNOTATION,
} from '../../../src/api/node-protocol.ts';
import type { NodeConfigRevision, NodeConfigSpec } from '../../../src/api/types.ts';
import { type AgentArtefacts, buildAgent } from '../../../src/dist/build-agent.ts';
import { LightKubeClient } from '../../../src/kube/light/light-kube-client.ts';
import type { KubeObject } from '../../../src/kube/light/types.ts';
import type { Container } from '../../../src/nspawn/container.ts';
import { CACHE_DIR, StopWaiting, waitFor, withLock } from '../../../src/nspawn/host.ts';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';
import { revisionOf } from '../../support/nodeherd-objects.ts';

export const REVISIONS = '/apis/nodeherd.io/v1alpha1/nodeconfigrevisions';
export const INIT_SCRIPT = new URL('../../../init/nodeherd-init.sh', import.meta.url).pathname;

export interface NodeObject extends KubeObject {
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

/** Builds the agent artefacts into the shared cache (the runtime is only recompressed when Node changes). */
export async function buildArtefacts(version = 'e2e', dir = join(CACHE_DIR, `dist-${version}`)) {
  return withLock(`${dir}.lock`, () => buildAgent({ outDir: dir, version }));
}

export class FailedApplyError extends StopWaiting {
  constructor(message: string) {
    super(message);
    this.name = 'FailedApplyError';
  }
}

export class ControlPlane {
  readonly api: LocalApiServer;
  readonly admin: LightKubeClient;
  readonly artefacts: AgentArtefacts;
  readonly caPem: string;
  private revisionNumber = 0;

  private constructor(parts: {
    api: LocalApiServer;
    admin: LightKubeClient;
    artefacts: AgentArtefacts;
    caPem: string;
  }) {
    this.api = parts.api;
    this.admin = parts.admin;
    this.artefacts = parts.artefacts;
    this.caPem = parts.caPem;
  }

  static async start(): Promise<ControlPlane> {
    const artefacts = await buildArtefacts();
    const api = await startLocalApiServer({
      host: '127.0.0.1',
      artefactDirectory: dirname(artefacts.manifestPath),
    });
    return new ControlPlane({
      api,
      admin: LightKubeClient.fromKubeconfig(api.kubeconfigPath),
      artefacts,
      caPem: api.server.caPem,
    });
  }

  get serverUrl(): string {
    return this.api.server.url;
  }

  /** Creates the Node (what the kubelet does on a real node) and returns its agent's token. */
  async registerNode(name: string): Promise<string> {
    await this.admin.create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name } });
    return this.api.server.issueCredential('node', name, join(this.api.dataDir, `${name}.kubeconfig`));
  }

  /** Where the API server serves the agent's artefacts (nodeherd-init's default). */
  get artefactsUrl(): string {
    return `${this.serverUrl}/nodeherd/agent`;
  }

  /** nodeherd-init's arguments for a node (artefacts from the API server, init's default). */
  initArgs(node: string, token: string, extra: string[] = []): string[] {
    return [
      '--server',
      this.serverUrl,
      '--token',
      token,
      '--ca-data',
      Buffer.from(this.caPem).toString('base64'),
      '--node-name',
      node,
      ...extra,
    ];
  }

  /** Runs nodeherd-init inside the container (the script is piped in, as cloud-init would run it). */
  async runInit(container: Container, args: string[]) {
    const script = await readFile(INIT_SCRIPT);
    return container.exec(['sh', '-s', '--', ...args], { input: script, timeoutMs: 180_000 });
  }

  /** Renders spec as a revision of `pool` and creates it. */
  async createRevision(pool: string, spec: NodeConfigSpec): Promise<NodeConfigRevision> {
    const revision = revisionOf(pool, spec, ++this.revisionNumber);
    try {
      await this.admin.create(REVISIONS, revision);
    } catch (error) {
      if ((error as { status?: number }).status !== 409) throw error;
    }
    return revision;
  }

  async setDesired(node: string, revision: string): Promise<void> {
    await this.admin.patch(`/api/v1/nodes/${node}`, {
      metadata: { annotations: { [DESIRED_REVISION_ANNOTATION]: revision } },
    });
  }

  getNode(node: string): Promise<NodeObject> {
    return this.admin.get<NodeObject>(`/api/v1/nodes/${node}`);
  }

  /** Waits until the agent reports `revision` applied (state Done, current revision, condition True). */
  async waitForApplied(node: string, revision: string, timeoutMs = 120_000): Promise<NodeObject> {
    let last: NodeObject | undefined;
    try {
      return await waitFor(
        `${node} to apply ${revision}`,
        async () => {
          const object = await this.getNode(node);
          last = object;
          const annotations = object.metadata?.annotations ?? {};
          const ready = object.status?.conditions?.find((c) => c.type === NODE_CONFIG_READY_CONDITION);
          // The agent retries a failed apply with backoff; a test wants to hear about the first failure.
          if (
            annotations[STATE_ANNOTATION] === 'Failed' &&
            annotations[DESIRED_REVISION_ANNOTATION] === revision &&
            (annotations[MESSAGE_ANNOTATION] ?? '').includes(revision)
          ) {
            throw new FailedApplyError(
              `${node} failed to apply ${revision}: ${annotations[MESSAGE_ANNOTATION]}`,
            );
          }
          return annotations[STATE_ANNOTATION] === 'Done' &&
            annotations[CURRENT_REVISION_ANNOTATION] === revision &&
            ready?.status === 'True'
            ? object
            : undefined;
        },
        timeoutMs,
        100,
      );
    } catch (error) {
      const annotations = last?.metadata?.annotations ?? {};
      throw new Error(`${(error as Error).message}; node says ${JSON.stringify(annotations)}`);
    }
  }

  /** Applies spec to the nodes as one revision and waits for all of them; returns the revision name. */
  async apply(nodes: string[], pool: string, spec: NodeConfigSpec, timeoutMs?: number): Promise<string> {
    const revision = await this.createRevision(pool, spec);
    const name = revision.metadata.name;
    await Promise.all(nodes.map((node) => this.setDesired(node, name)));
    await Promise.all(nodes.map((node) => this.waitForApplied(node, name, timeoutMs)));
    return name;
  }

  async stop(): Promise<void> {
    this.admin.close();
    await this.api.stop();
  }
}

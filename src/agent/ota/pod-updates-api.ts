// The over-the-air update API of the node agent (seed 004): the node's owner lists the pods of this
// node with their update state, and upgrades one when an update is available. Upgrading deletes the
// pod; its DaemonSet is OnDelete, so the DaemonSet controller recreates it from the current template.
// The controller decides what is outdated (the UpdateAvailable condition); the agent only acts on its
// own node's pods, which is all its identity may touch. Usable without HTTP (listPods, upgrade) and
// mounted on the agent's local HTTP server by register().
//
//   GET  /v1/pods                                       200 {node, pods: PodUpdateState[]}
//   POST /v1/namespaces/{namespace}/pods/{name}/upgrade 202 started; 403 deleting, another node's, or
//        not outdated; 404 unknown pod; 409 the pod changed meanwhile; 503 API server unreachable

import type { IncomingMessage, ServerResponse } from 'node:http';
import { KubeError } from '../../kube/kube-error.ts';
import type { LightKubeClient } from '../../kube/light/light-kube-client.ts';
import type { KubeObject } from '../../kube/light/types.ts';
import type { RouteTarget } from '../http/route-table.ts';
import { type PodUpdateState, podUpdateState } from './pod-update-state.ts';

export interface PodUpdatesApiOptions {
  /** The agent's client (its node identity). */
  client: LightKubeClient;
  nodeName: string;
}

export interface ApiAnswer {
  status: number;
  body: Record<string, unknown>;
}

function podPath(namespace: string, name: string): string {
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}`;
}

/** 503 for anything that is not the API server's own answer, or an answer saying it is unavailable. */
function unreachable(err: unknown): ApiAnswer | undefined {
  if (!(err instanceof KubeError)) {
    return { status: 503, body: { error: `the API server is unreachable: ${(err as Error).message}` } };
  }
  if (err.status >= 500 || err.status === 429) {
    return { status: 503, body: { error: `the API server is unavailable: ${err.message}` } };
  }
  return undefined;
}

export class PodUpdatesApi {
  private readonly client: LightKubeClient;
  private readonly nodeName: string;

  constructor(options: PodUpdatesApiOptions) {
    this.client = options.client;
    this.nodeName = options.nodeName;
  }

  /** The pods bound to this node, read from the API server (never a stale answer). */
  async listPods(): Promise<ApiAnswer> {
    try {
      const list = await this.client.list('/api/v1/pods', {
        fieldSelector: `spec.nodeName=${this.nodeName}`,
      });
      const pods: PodUpdateState[] = list.items
        .map(podUpdateState)
        .sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
      return { status: 200, body: { node: this.nodeName, pods } };
    } catch (err) {
      const answer = unreachable(err);
      if (answer) return answer;
      throw err;
    }
  }

  /** Starts the upgrade of one pod of this node by deleting it (the DaemonSet recreates it). */
  async upgrade(namespace: string, name: string): Promise<ApiAnswer> {
    const ref = `${namespace}/${name}`;
    let pod: KubeObject;
    try {
      pod = await this.client.get(podPath(namespace, name));
    } catch (err) {
      const answer = unreachable(err);
      if (answer) return answer;
      if (err instanceof KubeError && err.status === 404) {
        return { status: 404, body: { error: `pod ${ref} does not exist` } };
      }
      // The API server lets an agent read only pods bound to its own node.
      if (err instanceof KubeError && err.status === 403) {
        return { status: 403, body: { error: `pod ${ref} is not on node ${this.nodeName}` } };
      }
      throw err;
    }
    const state = podUpdateState(pod);
    const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
    if (nodeName !== this.nodeName) {
      return { status: 403, body: { error: `pod ${ref} is not on node ${this.nodeName}` } };
    }
    if (state.deleting) {
      return { status: 403, body: { error: `pod ${ref} is being deleted already` } };
    }
    if (!state.updateAvailable) {
      return {
        status: 403,
        body: {
          error: `pod ${ref} has no update available (it runs the current revision ${state.revision ?? 'unknown'})`,
        },
      };
    }
    try {
      // The uid precondition deletes exactly the pod that was checked, never a successor of that name.
      await this.client.delete(podPath(namespace, name), { preconditions: { uid: pod.metadata?.uid ?? '' } });
    } catch (err) {
      const answer = unreachable(err);
      if (answer) return answer;
      if (err instanceof KubeError && err.status === 404) {
        return { status: 404, body: { error: `pod ${ref} does not exist any more` } };
      }
      if (err instanceof KubeError && err.status === 409) {
        return { status: 409, body: { error: `pod ${ref} was replaced meanwhile; list the pods again` } };
      }
      throw err;
    }
    return {
      status: 202,
      body: {
        pod: ref,
        fromRevision: state.revision,
        toRevision: state.targetRevision,
        message: `pod ${ref} deleted; its DaemonSet ${state.daemonSet ?? ''} recreates it at revision ${state.targetRevision ?? 'current'}`,
      },
    };
  }

  /** Mounts GET /v1/pods and POST /v1/namespaces/{namespace}/pods/{name}/upgrade. */
  register(server: RouteTarget): void {
    server.route('GET', '/v1/pods', async (_request, response) => {
      reply(response, await this.listPods());
    });
    server.route(
      'POST',
      '/v1/namespaces/{namespace}/pods/{name}/upgrade',
      async (request, response, params) => {
        request.resume();
        reply(response, await this.upgrade(params.namespace ?? '', params.name ?? ''));
      },
    );
  }
}

function reply(response: ServerResponse<IncomingMessage>, answer: ApiAnswer): void {
  const text = `${JSON.stringify(answer.body)}\n`;
  response.writeHead(answer.status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
  });
  response.end(text);
}

// Where simulated nodes get their API clients. Each node can hold its own identities, one for its
// agent and one for its kubelet (the authorizer then confines each to what it does on its own Node, as
// in production), or all nodes can share one admin client and its connection pool (cheaper, for very
// large fleets).

import { join } from 'node:path';
import type { ApiServer } from '../apiserver/api-server.ts';
import { LightKubeClient, type LightKubeClientOptions } from '../kube/light/light-kube-client.ts';
import type { ClientFactory } from './fleet.ts';

type ClientTuning = Omit<LightKubeClientOptions, 'server' | 'caPem' | 'token'>;

/**
 * Issues each node's agent its identity on an in-process embedded API server, keeping the kubeconfig
 * in `directory/<node>.kubeconfig` (so a restarted simulation reuses the token).
 */
export function embeddedNodeIdentities(
  server: Pick<ApiServer, 'issueCredential' | 'url' | 'caPem'>,
  directory: string,
  tuning: ClientTuning = {},
): ClientFactory {
  return embeddedIdentities(server, 'node', directory, '', tuning);
}

/**
 * How long a simulated kubelet's request may take: kubelet's heartbeat client times out after
 * nodeStatusUpdateFrequency (10 s), so a request that hangs costs one heartbeat. With the transport's
 * 30 s, one hung renewal plus the retry reached the lifecycle controller's 40 s grace.
 */
export const KUBELET_REQUEST_TIMEOUT_MS = 10_000;

/**
 * Issues each node's simulated kubelet its own identity (system:node:<node>), kept in
 * `directory/<node>.kubelet.kubeconfig`: it registers the Node and renews its Lease, which the agent's
 * identity may not do.
 */
export function embeddedKubeletIdentities(
  server: Pick<ApiServer, 'issueCredential' | 'url' | 'caPem'>,
  directory: string,
  tuning: ClientTuning = {},
): ClientFactory {
  return embeddedIdentities(server, 'kubelet', directory, '.kubelet', {
    requestTimeoutMs: KUBELET_REQUEST_TIMEOUT_MS,
    ...tuning,
  });
}

function embeddedIdentities(
  server: Pick<ApiServer, 'issueCredential' | 'url' | 'caPem'>,
  kind: 'node' | 'kubelet',
  directory: string,
  suffix: string,
  tuning: ClientTuning,
): ClientFactory {
  return async (nodeName) => {
    const path = join(directory, `${nodeName}${suffix}.kubeconfig`);
    const token = await server.issueCredential(kind, nodeName, path);
    return new LightKubeClient({
      userAgent: `nodeherd-sim/${nodeName}${kind === 'kubelet' ? '/kubelet' : ''}`,
      ...tuning,
      server: server.url,
      caPem: server.caPem,
      token,
    });
  };
}

/**
 * Reads each node's kubeconfig from `directory/<node>.kubeconfig` (its agent's identity; `kubelet`:
 * `<node>.kubelet.kubeconfig`, its kubelet's), issued beforehand by the server.
 */
export function kubeconfigNodeIdentities(
  directory: string,
  tuning: ClientTuning = {},
  kind: 'node' | 'kubelet' = 'node',
): ClientFactory {
  const suffix = kind === 'kubelet' ? '.kubelet' : '';
  return (nodeName) =>
    LightKubeClient.fromKubeconfig(join(directory, `${nodeName}${suffix}.kubeconfig`), {
      userAgent: `nodeherd-sim/${nodeName}${kind === 'kubelet' ? '/kubelet' : ''}`,
      ...tuning,
    });
}

/** Every node talks through the same client (one connection pool). */
export function sharedClient(client: LightKubeClient): ClientFactory {
  return () => client;
}

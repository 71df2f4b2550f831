// Where simulated nodes get their API clients. Each node can hold its own node identity (the agent
// authorizer then confines it to its own Node and Lease, as in production), or all nodes can share
// one admin client and its connection pool (cheaper, for very large fleets).

import { join } from 'node:path';
import type { ApiServer } from '../apiserver/api-server.ts';
import { LightKubeClient, type LightKubeClientOptions } from '../kube/light/light-kube-client.ts';
import type { ClientFactory } from './fleet.ts';

type ClientTuning = Omit<LightKubeClientOptions, 'server' | 'caPem' | 'token'>;

/**
 * Issues each node its identity on an in-process embedded API server, keeping the kubeconfig in
 * `directory/<node>.kubeconfig` (so a restarted simulation reuses the token).
 */
export function embeddedNodeIdentities(
  server: Pick<ApiServer, 'issueCredential' | 'url' | 'caPem'>,
  directory: string,
  tuning: ClientTuning = {},
): ClientFactory {
  return async (nodeName) => {
    const token = await server.issueCredential('node', nodeName, join(directory, `${nodeName}.kubeconfig`));
    return new LightKubeClient({
      userAgent: `nodeherd-sim/${nodeName}`,
      ...tuning,
      server: server.url,
      caPem: server.caPem,
      token,
    });
  };
}

/** Reads each node's kubeconfig from `directory/<node>.kubeconfig`, issued beforehand by the server. */
export function kubeconfigNodeIdentities(directory: string, tuning: ClientTuning = {}): ClientFactory {
  return (nodeName) =>
    LightKubeClient.fromKubeconfig(join(directory, `${nodeName}.kubeconfig`), {
      userAgent: `nodeherd-sim/${nodeName}`,
      ...tuning,
    });
}

/** Every node talks through the same client (one connection pool). */
export function sharedClient(client: LightKubeClient): ClientFactory {
  return () => client;
}

// REST paths of the objects the controller reads and writes.

import { SECRETS_NAMESPACE } from '../api/group.ts';
import { NODE_CONFIG_POOLS_PATH, NODE_CONFIG_REVISIONS_PATH, NODE_CONFIGS_PATH } from '../api/rest-paths.ts';

export const PATHS = {
  nodeConfigPools: NODE_CONFIG_POOLS_PATH,
  nodeConfigs: NODE_CONFIGS_PATH,
  revisions: NODE_CONFIG_REVISIONS_PATH,
  nodes: '/api/v1/nodes',
  pods: '/api/v1/pods',
  /** Only nodeherd's own namespace: the controller's Role covers no other, and its cache holds no other. */
  secrets: `/api/v1/namespaces/${SECRETS_NAMESPACE}/secrets`,
} as const;

export function nodeConfigPoolPath(name: string, subresource?: 'status'): string {
  return `${PATHS.nodeConfigPools}/${encodeURIComponent(name)}${subresource ? `/${subresource}` : ''}`;
}

export function nodeConfigStatusPath(name: string): string {
  return `${PATHS.nodeConfigs}/${encodeURIComponent(name)}/status`;
}

export function revisionPath(name: string): string {
  return `${PATHS.revisions}/${encodeURIComponent(name)}`;
}

export function nodePath(name: string, subresource?: 'status'): string {
  return `${PATHS.nodes}/${encodeURIComponent(name)}${subresource ? `/${subresource}` : ''}`;
}

export function podPath(namespace: string, pod: string): string {
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}`;
}

export function evictionPath(namespace: string, pod: string): string {
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/eviction`;
}

// The users, groups and ServiceAccounts of nodeherd's components, as both the embedded API server
// (src/apiserver/auth/identities.ts) and the manifests for a real cluster (deploy-manifests.ts) name them.

import { NAMESPACE } from './group.ts';

export const CONTROLLER_NAMESPACE = NAMESPACE;
export const CONTROLLER_SERVICE_ACCOUNT = 'nodeherd-controller';
export const CONTROLLER_USER = `system:serviceaccount:${CONTROLLER_NAMESPACE}:${CONTROLLER_SERVICE_ACCOUNT}`;
export const AGENT_USER_PREFIX = 'nodeherd:agent:';
export const AGENTS_GROUP = 'nodeherd:agents';
/**
 * The agents' namespace: the DaemonSet's pods and ServiceAccount (privileged pods, so a namespace of
 * their own whose Pod Security level is privileged, the controller's staying restricted) and the
 * per-node ServiceAccounts of agents that authenticate as one (agent-cluster-rules.ts).
 */
export const AGENT_NAMESPACE = 'nodeherd-agents';
/** The ServiceAccount the agent DaemonSet runs as (deploy/agent-daemonset), in AGENT_NAMESPACE. */
export const AGENT_DAEMONSET_SERVICE_ACCOUNT = 'nodeherd-agent';
export const AGENT_DAEMONSET_USER = `system:serviceaccount:${AGENT_NAMESPACE}:${AGENT_DAEMONSET_SERVICE_ACCOUNT}`;

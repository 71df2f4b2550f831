// The users, groups and ServiceAccounts of nodeherd's components, as both the embedded API server
// (src/apiserver/auth/identities.ts) and the manifests for a real cluster (deploy-manifests.ts) name them.

import { NAMESPACE } from './group.ts';

export const CONTROLLER_NAMESPACE = NAMESPACE;
export const CONTROLLER_SERVICE_ACCOUNT = 'nodeherd-controller';
export const CONTROLLER_USER = `system:serviceaccount:${CONTROLLER_NAMESPACE}:${CONTROLLER_SERVICE_ACCOUNT}`;
export const AGENT_USER_PREFIX = 'nodeherd:agent:';
export const AGENTS_GROUP = 'nodeherd:agents';
/** The ServiceAccount the agent DaemonSet runs as (deploy/agent-daemonset), in CONTROLLER_NAMESPACE. */
export const AGENT_DAEMONSET_SERVICE_ACCOUNT = 'nodeherd-agent';
export const AGENT_DAEMONSET_USER = `system:serviceaccount:${CONTROLLER_NAMESPACE}:${AGENT_DAEMONSET_SERVICE_ACCOUNT}`;

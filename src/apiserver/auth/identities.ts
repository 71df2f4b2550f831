// Who can talk to the embedded API server, named the way Kubernetes names users so that the same
// RBAC manifests (deploy/) describe the same principals in a real cluster:
// - the admin (kubectl, the CLI) is in system:masters, like a cluster-admin certificate;
// - the controller is the nodeherd-controller service account in namespace nodeherd, which is what
//   it runs as when deployed in a cluster;
// - the agent of node X is "nodeherd:agent:X" in group "nodeherd:agents". Not "system:node:X": that
//   name belongs to the kubelet and the Node authorizer, and an agent is not a kubelet.
// - A ServiceAccount token (TokenRequest, service-account-tokens.ts) of the agent DaemonSet's
//   ServiceAccount (nodeherd-agent in nodeherd) that is bound to a node (a pod's token names the Node
//   the pod runs on, in extra authentication.kubernetes.io/node-name) is the agent of that node: the
//   same identity, so authorization needs no rule of its own for DaemonSet agents. A token of the
//   controller's ServiceAccount is the controller. Any other ServiceAccount has no identity here.
// - the kubelet of node X (the simulated kubelets of `nodeherd up` and src/sim) is "system:node:X" in
//   group "system:nodes", as in kube: it registers the Node and renews its Lease, which the agent may
//   not do.

import {
  AGENT_DAEMONSET_SERVICE_ACCOUNT,
  AGENT_DAEMONSET_USER,
  AGENT_USER_PREFIX,
  AGENTS_GROUP,
  CONTROLLER_NAMESPACE,
  CONTROLLER_SERVICE_ACCOUNT,
  CONTROLLER_USER,
} from '../../api/users.ts';
import { NODE_NAME_EXTRA } from '../../util/kube-api-types.ts';

export type IdentityKind = 'admin' | 'controller' | 'node' | 'kubelet';

export interface Identity {
  kind: IdentityKind;
  /** Kubernetes user name. */
  name: string;
  groups: readonly string[];
  /** Set for kinds 'node' and 'kubelet': the Node this agent or kubelet runs on. */
  nodeName?: string;
}

export {
  AGENT_DAEMONSET_SERVICE_ACCOUNT,
  AGENT_DAEMONSET_USER,
  AGENT_USER_PREFIX,
  AGENTS_GROUP,
  CONTROLLER_NAMESPACE,
  CONTROLLER_SERVICE_ACCOUNT,
  CONTROLLER_USER,
  NODE_NAME_EXTRA,
};

export const AUTHENTICATED_GROUP = 'system:authenticated';
export const MASTERS_GROUP = 'system:masters';
export const ADMIN_USER = 'nodeherd:admin';
export const KUBELET_USER_PREFIX = 'system:node:';
export const KUBELETS_GROUP = 'system:nodes';

// RFC 1123 subdomain, the rule for Node names.
const NODE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function isValidNodeName(name: string): boolean {
  return name.length > 0 && name.length <= 253 && NODE_NAME.test(name);
}

export function agentUserName(nodeName: string): string {
  return `${AGENT_USER_PREFIX}${nodeName}`;
}

/** The identity of a kind (and node, for agents). Throws on a missing or invalid node name. */
export function identityFor(kind: IdentityKind, nodeName?: string): Identity {
  switch (kind) {
    case 'admin':
      if (nodeName !== undefined) throw new Error('the admin identity takes no node name');
      return { kind, name: ADMIN_USER, groups: [MASTERS_GROUP, AUTHENTICATED_GROUP] };
    case 'controller':
      if (nodeName !== undefined) throw new Error('the controller identity takes no node name');
      return {
        kind,
        name: CONTROLLER_USER,
        groups: [
          'system:serviceaccounts',
          `system:serviceaccounts:${CONTROLLER_NAMESPACE}`,
          AUTHENTICATED_GROUP,
        ],
      };
    case 'node':
      if (nodeName === undefined || !isValidNodeName(nodeName)) {
        throw new Error(`a node agent identity needs a valid node name, got ${JSON.stringify(nodeName)}`);
      }
      return { kind, name: agentUserName(nodeName), groups: [AGENTS_GROUP, AUTHENTICATED_GROUP], nodeName };
    case 'kubelet':
      if (nodeName === undefined || !isValidNodeName(nodeName)) {
        throw new Error(`a kubelet identity needs a valid node name, got ${JSON.stringify(nodeName)}`);
      }
      return {
        kind,
        name: `${KUBELET_USER_PREFIX}${nodeName}`,
        groups: [KUBELETS_GROUP, AUTHENTICATED_GROUP],
        nodeName,
      };
    default:
      throw new Error(`unknown identity kind ${JSON.stringify(kind)}`);
  }
}

/**
 * The identity a ServiceAccount user maps to (see the top of this file), or undefined. `extra` is the
 * user's extra as kube would set it from the token.
 */
export function identityOfServiceAccount(
  username: string,
  extra: Readonly<Record<string, readonly string[]>>,
): Identity | undefined {
  if (username === CONTROLLER_USER) return identityFor('controller');
  if (username !== AGENT_DAEMONSET_USER) return undefined;
  const nodeName = extra[NODE_NAME_EXTRA]?.[0];
  if (nodeName === undefined || !isValidNodeName(nodeName)) return undefined;
  return identityFor('node', nodeName);
}

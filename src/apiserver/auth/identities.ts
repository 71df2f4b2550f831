// Who can talk to the embedded API server, named the way Kubernetes names users so that the same
// RBAC manifests describe the same principals in a real cluster. The server knows four kinds of
// identity; the application's profile names two of them (IdentityNames), the server the others:
// - the admin (kubectl, the CLI) is in system:masters, like a cluster-admin certificate;
// - the controller is a ServiceAccount of the application's namespace (nodeherd: nodeherd-controller in
//   nodeherd), which is what it runs as when deployed in a cluster;
// - the agent of node X is "<agent user prefix>X" in the agents group (nodeherd: "nodeherd:agent:X" in
//   "nodeherd:agents"). Not "system:node:X": that name belongs to the kubelet and the Node authorizer,
//   and an agent is not a kubelet.
// - A ServiceAccount token (TokenRequest, service-account-tokens.ts) of the agent DaemonSet's
//   ServiceAccount that is bound to a node (a pod's token names the Node the pod runs on, in extra
//   authentication.kubernetes.io/node-name) is the agent of that node: the same identity, so
//   authorization needs no rule of its own for DaemonSet agents. A token of the controller's
//   ServiceAccount is the controller. Any other ServiceAccount has no identity here.
// - the kubelet of node X (the simulated kubelets of `nodeherd up` and src/sim) is "system:node:X" in
//   group "system:nodes", as in kube: it registers the Node and renews its Lease, which the agent may
//   not do.
// - Any other user (kind 'user': only through impersonation, or named by a SubjectAccessReview) has
//   what the cluster's RBAC objects grant its name and groups, and nothing else.
// A server whose profile names no controller or agents has only the admin and kubelets.

import { NODE_NAME_EXTRA } from '../../util/kube-api-types.ts';

export type IdentityKind = 'admin' | 'controller' | 'node' | 'kubelet' | 'user';

export interface Identity {
  kind: IdentityKind;
  /** Kubernetes user name. */
  name: string;
  groups: readonly string[];
  /** Set for kinds 'node' and 'kubelet': the Node this agent or kubelet runs on. */
  nodeName?: string;
  /** The user's uid and extra, when a credential or an impersonation gave them. */
  uid?: string;
  extra?: Readonly<Record<string, readonly string[]>>;
}

/** The names the application gives its controller and node agents (ApiServerProfile.identities). */
export interface IdentityNames {
  /** The ServiceAccount the controller runs as. */
  controller: { namespace: string; serviceAccount: string };
  /**
   * Node agents: user `<userPrefix><node>` in `group`. A token of `daemonSetServiceAccount` in
   * `daemonSetNamespace` bound to a node is that node's agent.
   */
  agents: { userPrefix: string; group: string; daemonSetNamespace: string; daemonSetServiceAccount: string };
}

export { NODE_NAME_EXTRA };

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

/** The user name of a ServiceAccount, as kube authenticates its tokens. */
export function serviceAccountUser(namespace: string, serviceAccount: string): string {
  return `system:serviceaccount:${namespace}:${serviceAccount}`;
}

/** The identities of one server: the admin and kubelets, and the controller and agents its profile names. */
export class Identities {
  readonly names: IdentityNames | undefined;

  constructor(names?: IdentityNames) {
    this.names = names;
  }

  /** The controller's user name. Throws when the profile names no controller. */
  get controllerUser(): string {
    const { namespace, serviceAccount } = this.#named('controller').controller;
    return serviceAccountUser(namespace, serviceAccount);
  }

  /** The user name of node `nodeName`'s agent. Throws when the profile names no agents. */
  agentUserName(nodeName: string): string {
    return `${this.#named('node').agents.userPrefix}${nodeName}`;
  }

  /** The identity of a kind (and node, for agents). Throws on a missing or invalid node name. */
  identityFor(kind: IdentityKind, nodeName?: string): Identity {
    switch (kind) {
      case 'admin':
        if (nodeName !== undefined) throw new Error('the admin identity takes no node name');
        return { kind, name: ADMIN_USER, groups: [MASTERS_GROUP, AUTHENTICATED_GROUP] };
      case 'controller': {
        if (nodeName !== undefined) throw new Error('the controller identity takes no node name');
        const { namespace } = this.#named(kind).controller;
        return {
          kind,
          name: this.controllerUser,
          groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, AUTHENTICATED_GROUP],
        };
      }
      case 'node':
        if (nodeName === undefined || !isValidNodeName(nodeName)) {
          throw new Error(`a node agent identity needs a valid node name, got ${JSON.stringify(nodeName)}`);
        }
        return {
          kind,
          name: this.agentUserName(nodeName),
          groups: [this.#named(kind).agents.group, AUTHENTICATED_GROUP],
          nodeName,
        };
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
      case 'user':
        throw new Error('a user identity is made from its name and groups (ofUser), not from a kind');
      default:
        throw new Error(`unknown identity kind ${JSON.stringify(kind)}`);
    }
  }

  /**
   * The identity a ServiceAccount user maps to (see the top of this file), or undefined. `extra` is the
   * user's extra as kube would set it from the token.
   */
  ofServiceAccount(
    username: string,
    extra: Readonly<Record<string, readonly string[]>>,
  ): Identity | undefined {
    const names = this.names;
    if (names === undefined) return undefined;
    if (username === this.controllerUser) return this.identityFor('controller');
    const daemonSetUser = serviceAccountUser(
      names.agents.daemonSetNamespace,
      names.agents.daemonSetServiceAccount,
    );
    if (username !== daemonSetUser) return undefined;
    const nodeName = extra[NODE_NAME_EXTRA]?.[0];
    if (nodeName === undefined || !isValidNodeName(nodeName)) return undefined;
    return this.identityFor('node', nodeName);
  }

  /**
   * The identity of a user and its groups as a SubjectAccessReview or an impersonation names them: the
   * admin's rights for system:masters (as kube's authorizer gives them to the group), the controller,
   * an agent or a kubelet when the name and group are theirs (a ServiceAccount as ofServiceAccount maps
   * it), otherwise a plain user, who has what RBAC objects grant. The groups are the ones given.
   */
  ofUser(
    user: string,
    groups: readonly string[],
    extra: Readonly<Record<string, readonly string[]>> = {},
  ): Identity {
    const kind = this.#kindOfUser(user, groups, extra);
    return {
      kind: kind.kind,
      name: user,
      groups: [...groups],
      ...(kind.nodeName !== undefined ? { nodeName: kind.nodeName } : {}),
    };
  }

  #kindOfUser(
    user: string,
    groups: readonly string[],
    extra: Readonly<Record<string, readonly string[]>>,
  ): { kind: IdentityKind; nodeName?: string } {
    if (groups.includes(MASTERS_GROUP)) return { kind: 'admin' };
    const names = this.names;
    if (user.startsWith('system:serviceaccount:')) {
      const mapped = this.ofServiceAccount(user, extra);
      return mapped
        ? { kind: mapped.kind, ...(mapped.nodeName ? { nodeName: mapped.nodeName } : {}) }
        : { kind: 'user' };
    }
    if (
      names !== undefined &&
      user.startsWith(names.agents.userPrefix) &&
      groups.includes(names.agents.group)
    ) {
      const node = user.slice(names.agents.userPrefix.length);
      if (isValidNodeName(node)) return { kind: 'node', nodeName: node };
    }
    if (user.startsWith(KUBELET_USER_PREFIX) && groups.includes(KUBELETS_GROUP)) {
      const node = user.slice(KUBELET_USER_PREFIX.length);
      if (isValidNodeName(node)) return { kind: 'kubelet', nodeName: node };
    }
    return { kind: 'user' };
  }

  #named(kind: IdentityKind): IdentityNames {
    if (this.names === undefined) {
      throw new Error(`this server's profile names no ${kind === 'node' ? 'node agent' : kind} identities`);
    }
    return this.names;
  }
}

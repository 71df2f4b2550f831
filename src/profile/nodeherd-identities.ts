// nodeherd's controller and node agents as the API server names them (ApiServerProfile.identities),
// from the users of the contract (src/api/users.ts), which the manifests for a real cluster use too.

import {
  AGENT_DAEMONSET_SERVICE_ACCOUNT,
  AGENT_NAMESPACE,
  AGENT_USER_PREFIX,
  AGENTS_GROUP,
  CONTROLLER_NAMESPACE,
  CONTROLLER_SERVICE_ACCOUNT,
} from '../api/users.ts';
import { Identities, type IdentityNames } from '../apiserver/auth/identities.ts';

export const NODEHERD_IDENTITY_NAMES: IdentityNames = {
  controller: { namespace: CONTROLLER_NAMESPACE, serviceAccount: CONTROLLER_SERVICE_ACCOUNT },
  agents: {
    userPrefix: AGENT_USER_PREFIX,
    group: AGENTS_GROUP,
    daemonSetNamespace: AGENT_NAMESPACE,
    daemonSetServiceAccount: AGENT_DAEMONSET_SERVICE_ACCOUNT,
  },
};

/** nodeherd's identities, for whoever opens a server's token store without the server (the token command, tests). */
export const nodeherdIdentities = new Identities(NODEHERD_IDENTITY_NAMES);

// nodeherd's authorization rules for the embedded API server, and the authorizer bound to them (what
// the server decides for nodeherd's identities; the tests and deploy-manifests.ts compare against it).

import { CONTROLLER_RULES, DAEMONSET_UPDATE_RULES } from '../api/controller-rules.ts';
import {
  type AuthorizationRules,
  authorize as authorizeWith,
  type Decision,
  type RequestAttributes,
} from '../apiserver/auth/authorizer.ts';
import type { Identity } from '../apiserver/auth/identities.ts';
import { authorizeAgent } from './agent-authorization.ts';

export const NODEHERD_AUTHORIZATION: AuthorizationRules = {
  controllerRole: 'nodeherd controller',
  // Every feature of the controller runs against the embedded server, the DaemonSet updates included.
  controller: [...CONTROLLER_RULES, ...DAEMONSET_UPDATE_RULES],
  agent: authorizeAgent,
  // deploy/'s agent RBAC is seeded by the profile (bootstrapPolicy): one policy confines agents here too.
  agentsConfinedByRbac: true,
  agentRulesIncomplete:
    "a node agent's permissions depend on the object (its own Node and Leases, Events about its Node, the Secrets its revisions reference) and are not expressible as rules",
};

/** The embedded server's decision for nodeherd's identities. */
export function authorize(identity: Identity, attrs: RequestAttributes): Decision {
  return authorizeWith(identity, attrs, NODEHERD_AUTHORIZATION);
}

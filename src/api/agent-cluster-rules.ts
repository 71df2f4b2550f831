// What a node agent may do on a real cluster, as RBAC can say it. The embedded API server decides per
// request (authorizeAgent in src/profile/agent-authorization.ts: own Node only, pods bound to its Node,
// Secrets its revisions reference); plain RBAC cannot name "its own Node", so these rules are the
// verbs and resources only, and deploy/agent's ValidatingAdmissionPolicy confines the writes.
// test/api/deploy-manifests.test.ts checks that the embedded server allows every rule here to an
// agent for its own objects, so a real cluster never grants more kinds of access than it does.
//
// Creating the Node and its heartbeat Lease in kube-node-lease is the kubelet's, here and in the
// embedded server (where the simulated kubelets have their own identity, system:node:<node>).

import type { PolicyRule } from '../util/kube-api-types.ts';
import { GROUP, NAMESPACE } from './group.ts';
import { AGENT_NAMESPACE } from './users.ts';

/** Namespaces in which an agent may record Events about its Node. */
export const AGENT_EVENT_NAMESPACES: readonly string[] = ['default', NAMESPACE];

/**
 * On clusters where no authenticator can name a user nodeherd:agent:<node> (managed control planes),
 * an agent may instead be the ServiceAccount <node> in this namespace: its group
 * system:serviceaccounts:nodeherd-agents is bound like nodeherd:agents, and the admission policy takes
 * the node name from the service account name.
 */
export const AGENT_SERVICE_ACCOUNT_NAMESPACE = AGENT_NAMESPACE;
export const AGENT_SERVICE_ACCOUNT_GROUP = `system:serviceaccounts:${AGENT_SERVICE_ACCOUNT_NAMESPACE}`;
export const AGENT_SERVICE_ACCOUNT_USER_PREFIX = `system:serviceaccount:${AGENT_SERVICE_ACCOUNT_NAMESPACE}:`;

export const AGENT_CLUSTER_RULES: readonly PolicyRule[] = [
  // Watch its Node (field selector metadata.name), report annotations; OTA copies the available
  // revision into desired-revision (the policy allows nothing else).
  { groups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch', 'update', 'patch'] },
  // The NodeConfigReady condition.
  { groups: [''], resources: ['nodes/status'], verbs: ['get', 'update', 'patch'] },
  // What to apply, and the strategy parameters agents act on without the controller.
  {
    groups: [GROUP],
    resources: ['nodeconfigrevisions', 'nodeconfigpools'],
    verbs: ['get', 'list', 'watch'],
  },
  // Events about its Node (namespaces confined by the admission policy).
  { groups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create'] },
  // Pods on its Node: the OTA API lists them and deletes one to upgrade it.
  { groups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'delete'] },
  // Serial strategy: the Lease semaphore (the policy confines writes to slot Leases in its own name).
  {
    groups: ['coordination.k8s.io'],
    resources: ['leases'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
    namespaces: [NAMESPACE],
  },
  // NodeConfig files from secretRef. RBAC cannot say "only Secrets my revisions reference", so the
  // grant is narrowed by namespace instead: keep such Secrets in nodeherd (docs/real-cluster.md).
  { groups: [''], resources: ['secrets'], verbs: ['get'], namespaces: [NAMESPACE] },
];

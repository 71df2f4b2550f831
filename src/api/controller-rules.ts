// What the nodeherd controller may do, least privilege for what it does: its own API group; reading
// and annotating/cordoning Nodes; deleting and evicting Pods (drain, DaemonSet updates) and writing pod
// status (OTA condition); reading Secrets (NodeConfig secretRef rendering, health gates' Prometheus
// credentials) but never writing them;
// Events; Leases (leader election, Serial semaphores). It cannot create or delete Nodes or Namespaces,
// nor touch RBAC or CRDs. The embedded API server enforces these rules; deploy-manifests.ts turns them
// into RBAC for a real cluster.

import type { PolicyRule, RequestVerb } from '../util/kube-api-types.ts';
import { GROUP, NAMESPACE, SECRETS_NAMESPACE } from './group.ts';

const READ: readonly RequestVerb[] = ['get', 'list', 'watch'];
const WRITE_ONE: readonly RequestVerb[] = ['create', 'update', 'patch', 'delete'];

export const CONTROLLER_RULES: readonly PolicyRule[] = [
  { groups: [GROUP], resources: ['*'], verbs: ['*'] },
  { groups: [''], resources: ['nodes', 'nodes/status'], verbs: [...READ, 'update', 'patch'] },
  { groups: [''], resources: ['pods'], verbs: [...READ, 'delete'] },
  { groups: [''], resources: ['pods/eviction'], verbs: ['create'] },
  { groups: [''], resources: ['pods/status'], verbs: ['get', 'update', 'patch'] },
  { groups: ['', 'events.k8s.io'], resources: ['events'], verbs: [...READ, 'create', 'update', 'patch'] },
  // Secrets only in SECRETS_NAMESPACE (a Role): every Secret reference must name it (issue 31).
  { groups: [''], resources: ['secrets'], verbs: READ, namespaces: [SECRETS_NAMESPACE] },
  { groups: ['apps'], resources: ['daemonsets'], verbs: [...READ, 'update', 'patch'] },
  { groups: ['apps'], resources: ['daemonsets/status', 'controllerrevisions'], verbs: READ },
  { groups: ['coordination.k8s.io'], resources: ['leases'], verbs: READ },
  {
    groups: ['coordination.k8s.io'],
    resources: ['leases'],
    verbs: [...READ, ...WRITE_ONE],
    namespaces: [NAMESPACE],
  },
  { groups: ['policy'], resources: ['poddisruptionbudgets'], verbs: READ },
  { groups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: READ },
];

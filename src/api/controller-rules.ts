// What the nodeherd controller may do: exactly the requests it makes, no more (issue 31).
// - its own API group: read pools, configs and revisions; patch pools (their annotations) and the status
//   of pools and configs; create and delete revisions;
// - Nodes: read, patch (annotations, cordon) and patch their status (the NodeInMultiplePools condition);
// - Pods: read (drain, pods by node), evict (drain) and delete (a pool's drain with onTimeout Force
//   deletes the pods whose eviction is refused once its timeout passed);
// - Events: create and patch (the recorder aggregates repeats);
// - Secrets only in SECRETS_NAMESPACE, read only (NodeConfig secretRef rendering, health gates'
//   Prometheus credentials): a Role there, never a ClusterRole;
// - Leases in its own namespace (leader election, Serial slots): read, create, update;
// - TokenReviews and SubjectAccessReviews (kube's system:auth-delegator): /metrics authenticates and
//   authorizes its scrapers through the API server.
// It cannot create or delete Nodes or Namespaces, nor touch RBAC or CRDs, nor read Secrets elsewhere.
// What only the opt-in DaemonSet update strategies need (DAEMONSET_UPDATE_RULES) comes with that feature:
// the kustomize component deploy/components/daemonset-updates, which also turns the feature on.
// The embedded API server enforces both (its controller runs every feature); deploy-manifests.ts turns
// them into RBAC for a real cluster.

import type { PolicyRule, RequestVerb } from '../util/kube-api-types.ts';
import { GROUP, NAMESPACE, SECRETS_NAMESPACE } from './group.ts';

const READ: readonly RequestVerb[] = ['get', 'list', 'watch'];

export const CONTROLLER_RULES: readonly PolicyRule[] = [
  { groups: [GROUP], resources: ['nodeconfigpools', 'nodeconfigs', 'nodeconfigrevisions'], verbs: READ },
  { groups: [GROUP], resources: ['nodeconfigpools'], verbs: ['patch'] },
  { groups: [GROUP], resources: ['nodeconfigpools/status', 'nodeconfigs/status'], verbs: ['patch'] },
  { groups: [GROUP], resources: ['nodeconfigrevisions'], verbs: ['create', 'delete'] },
  { groups: [''], resources: ['nodes'], verbs: [...READ, 'patch'] },
  { groups: [''], resources: ['nodes/status'], verbs: ['patch'] },
  { groups: [''], resources: ['pods'], verbs: READ },
  { groups: [''], resources: ['pods/eviction'], verbs: ['create'] },
  { groups: [''], resources: ['pods'], verbs: ['delete'] },
  { groups: [''], resources: ['events'], verbs: ['create', 'patch'] },
  {
    groups: ['coordination.k8s.io'],
    resources: ['leases'],
    verbs: [...READ, 'create', 'update'],
    namespaces: [NAMESPACE],
  },
  { groups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
  { groups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
  // Secrets only in SECRETS_NAMESPACE (a Role): every Secret reference must name it.
  { groups: [''], resources: ['secrets'], verbs: READ, namespaces: [SECRETS_NAMESPACE] },
];

/**
 * The DaemonSet update strategies (src/controller/daemonsets, `--daemonset-updates`): watch DaemonSets
 * and their ControllerRevisions, delete outdated daemon pods, write their UpdateAvailable condition.
 */
export const DAEMONSET_UPDATE_RULES: readonly PolicyRule[] = [
  { groups: ['apps'], resources: ['daemonsets', 'controllerrevisions'], verbs: READ },
  { groups: [''], resources: ['pods'], verbs: ['delete'] },
  { groups: [''], resources: ['pods/status'], verbs: ['patch'] },
];

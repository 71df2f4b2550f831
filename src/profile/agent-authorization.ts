// What a nodeherd agent may do on the embedded API server: the profile's half of the authorizer
// (src/apiserver/auth/authorizer.ts), like the Node authorizer does for kubelets.

import { AGENT_EVENT_NAMESPACES } from '../api/agent-cluster-rules.ts';
import { GROUP, NAMESPACE } from '../api/group.ts';
import {
  ALLOW,
  type Decision,
  deny,
  describe,
  eventSubject,
  ownNodeAccess,
  READ,
  type ResourceAttributes,
} from '../apiserver/auth/authorizer.ts';
import type { Identity } from '../apiserver/auth/identities.ts';

/**
 * Node agent of node X:
 * - its own Node X: get; list/watch confined to X (metadata.name field selector); update/patch X and
 *   X/status, limited by node-restriction.ts to what the agent reports. Never another Node, never
 *   create or delete one (registering the Node is the kubelet's).
 * - nodeherd.io: read NodeConfigRevisions (what to apply) and NodeConfigPools (strategy parameters such as
 *   Serial slots and Spread windows, which agents act on without the controller).
 * - Events about Node X only, created in namespaces default or nodeherd.
 * - Leases in namespace nodeherd: read all; write only Serial slot Leases (which ones, and how, is
 *   node-restriction.ts's: the pool it is gated for, in its own name). Not its heartbeat Lease in
 *   kube-node-lease: that is the kubelet's.
 * - Pods: list/watch only with the field selector spec.nodeName=X. Get and delete of a pod bound to X
 *   are decided by the request pipeline, which can see the stored pod (node-bound-pods.ts).
 */
export function authorizeAgent(identity: Identity, attrs: ResourceAttributes): Decision {
  const node = identity.nodeName;
  if (node === undefined) return deny('node agent identity without a node name');
  const own = `node agent ${identity.name} may only`;
  const { group, resource, subresource, verb } = attrs;

  if (group === '' && resource === 'nodes') return ownNodeAccess(identity, attrs, node, false);

  if (group === GROUP && subresource === undefined) {
    if ((resource === 'nodeconfigrevisions' || resource === 'nodeconfigpools') && READ.includes(verb))
      return ALLOW;
    return deny(`node agents may only read nodeconfigrevisions and nodeconfigpools in ${GROUP}`);
  }

  if ((group === '' || group === 'events.k8s.io') && resource === 'events' && subresource === undefined) {
    if (verb !== 'create') return deny(`node agents may only create events, not ${verb} them`);
    if (!attrs.namespace || !AGENT_EVENT_NAMESPACES.includes(attrs.namespace)) {
      return deny(`${own} create events in namespaces ${AGENT_EVENT_NAMESPACES.join(', ')}`);
    }
    const subject = eventSubject(group, attrs.body);
    const field = group === 'events.k8s.io' ? 'regarding' : 'involvedObject';
    return subject.kind === 'Node' && subject.name === node && !subject.namespace
      ? ALLOW
      : deny(`${own} create events whose ${field} is its own Node "${node}"`);
  }

  if (group === 'coordination.k8s.io' && resource === 'leases' && subresource === undefined) {
    if (attrs.namespace === NAMESPACE) {
      return verb === 'deletecollection' ? deny(`node agents may not deletecollection leases`) : ALLOW;
    }
    return deny(`${own} use leases in namespace ${NAMESPACE} (Serial slots)`);
  }

  if (group === '' && resource === 'pods' && subresource === undefined) {
    if ((verb === 'list' || verb === 'watch') && attrs.fieldSelectorNodeName === node) return ALLOW;
    return deny(`${own} list or watch pods with the field selector spec.nodeName=${node}`);
  }

  return deny(`no rule for node agents allows ${describe(attrs)}`);
}

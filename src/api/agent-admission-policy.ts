// A ValidatingAdmissionPolicy that does for nodeherd agents what NodeRestriction does for kubelets,
// and what src/apiserver/auth/node-restriction.ts does in the embedded server: a member of the
// nodeherd:agents group, named nodeherd:agent:<node> (src/apiserver/auth/identities.ts), or the
// ServiceAccount <node> in nodeherd-agents where no authenticator can issue such names, may write
// - its own Node, and there only the agent-protocol annotations (AGENT_ANNOTATIONS), the desired
//   revision only as a copy of the available one (OTA pull), and in status only the NodeConfigReady
//   condition; never labels, spec, finalizers or owners;
// - Serial slot Leases in nodeherd (named nodeherd-serial-<pool>-<slot>, labelled with their pool): take
//   one only in its own name, renew and release only one it holds; no other Lease (not the leader's);
// - pods bound to its Node (delete), and Events about its Node in the namespaces the server allows.
// RBAC (agent-cluster-rules.ts) grants the verbs; this confines them to the agent's objects.
// What a policy cannot see, it cannot check: which pool's slots the controller gated this node for is
// on the Node, not in the request, so on a real cluster an agent may take a free slot of any Serial
// pool (docs/security.md). Reads cannot be confined by admission at all; docs/real-cluster.md says
// what that leaves open. test/profile/node-credentials.test.ts runs this policy and the embedded
// server against one table of attempts.
// The agent DaemonSet's ServiceAccount (nodeherd-agent in nodeherd, deploy/agent-daemonset) is one user
// for every node: its node is the one its pod-bound token names, which Kubernetes 1.30+ puts into
// the user's extra authentication.kubernetes.io/node-name (the embedded server does the same).

import { NODE_NAME_EXTRA } from '../util/kube-api-types.ts';
import {
  AGENT_EVENT_NAMESPACES,
  AGENT_SERVICE_ACCOUNT_GROUP,
  AGENT_SERVICE_ACCOUNT_USER_PREFIX,
} from './agent-cluster-rules.ts';
import {
  AGENT_ANNOTATIONS,
  AGENT_CONDITIONS,
  AVAILABLE_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  SERIAL_LEASE_NAMESPACE,
  SERIAL_POOL_LABEL,
  serialLeaseName,
} from './node-protocol.ts';
import { AGENT_DAEMONSET_USER, AGENT_USER_PREFIX, AGENTS_GROUP } from './users.ts';

export const AGENT_ADMISSION_POLICY_NAME = 'nodeherd-agent-restriction';

const celString = (value: string): string => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const celList = (values: readonly string[]): string => `[${values.map(celString).join(', ')}]`;

// An absent map and an empty one are the same to a user; CEL's == would tell them apart.
const mapOf = (object: string, field: string): string =>
  `(has(${object}.${field}) ? ${object}.${field} : {})`;
const listOf = (object: string, field: string): string =>
  `(has(${object}.${field}) ? ${object}.${field} : [])`;
// The spec is a typed object on a real cluster (never absent on a Node), so no `{}` stands in for it:
// a conditional's branches must have one type.
const sameSpec =
  '(has(object.spec) == has(oldObject.spec) && (!has(object.spec) || object.spec == oldObject.spec))';

// A status field is the same in both objects (absent status and absent field alike).
const hasStatusField = (object: string, field: string): string =>
  `(has(${object}.status) && has(${object}.status.${field}))`;
const sameStatusField = (field: string): string =>
  `(${hasStatusField('object', field)} == ${hasStatusField('oldObject', field)} && ` +
  `(!${hasStatusField('object', field)} || object.status.${field} == oldObject.status.${field}))`;
const statusConditions = (object: string): string =>
  `(${hasStatusField(object, 'conditions')} ? ${object}.status.conditions : [])`;

// NodeStatus fields other than conditions (core/v1). Named one by one: on a real cluster the Node is a
// typed object, over which CEL has no map macros.
const NODE_STATUS_FIELDS = [
  'capacity',
  'allocatable',
  'phase',
  'addresses',
  'daemonEndpoints',
  'nodeInfo',
  'images',
  'volumesInUse',
  'volumesAttached',
  'config',
  'runtimeHandlers',
  'features',
] as const;

// The Node an Event is about: involvedObject in core/v1, regarding in events.k8s.io/v1.
const eventAboutOwnNode = (field: string): string =>
  [
    `has(object.${field})`,
    `has(object.${field}.kind) && object.${field}.kind == 'Node'`,
    `has(object.${field}.name) && object.${field}.name == variables.nodeName`,
    `(!has(object.${field}.namespace) || object.${field}.namespace == '')`,
  ].join(' && ');

// The DaemonSet's node: the first value of the token's node-name extra; '' when there is none.
const nodeNameFromExtra = (): string =>
  `has(request.userInfo.extra) && ${celString(NODE_NAME_EXTRA)} in request.userInfo.extra && ` +
  `size(request.userInfo.extra[${celString(NODE_NAME_EXTRA)}]) > 0 ? ` +
  `request.userInfo.extra[${celString(NODE_NAME_EXTRA)}][0] : ''`;

// The node name: from the extra for the DaemonSet's ServiceAccount, else what follows the first
// prefix the user name starts with; '' for any other user.
function nodeNameFromUser(prefixes: readonly string[]): string {
  const fromName = prefixes.reduceRight(
    (otherwise, prefix) =>
      `request.userInfo.username.startsWith(${celString(prefix)}) ? ` +
      `request.userInfo.username.substring(${prefix.length}) : ${otherwise}`,
    "''",
  );
  return `request.userInfo.username == ${celString(AGENT_DAEMONSET_USER)} ? (${nodeNameFromExtra()}) : ${fromName}`;
}

const SLOT_PREFIX = serialLeaseName('', 0).slice(0, -2);

// Whether a Lease is a Serial slot Lease: labelled with its pool, named <prefix><pool>-<index>.
const isSlotLease = (lease: string): string => {
  const pool = `${lease}.metadata.labels[${celString(SERIAL_POOL_LABEL)}]`;
  const prefix = `${celString(SLOT_PREFIX)} + ${pool} + '-'`;
  return (
    `(has(${lease}.metadata.labels) && ${celString(SERIAL_POOL_LABEL)} in ${lease}.metadata.labels && ` +
    `${lease}.metadata.name.startsWith(${prefix}) && ` +
    `${lease}.metadata.name.substring(size(${prefix})).matches('^(0|[1-9][0-9]*)$'))`
  );
};
const holderOf = (lease: string): string =>
  `(has(${lease}.spec) && has(${lease}.spec.holderIdentity) ? ${lease}.spec.holderIdentity : '')`;

const isNodeWrite = "request.resource.resource != 'nodes' || request.operation != 'UPDATE' || ";
const isSlotLeaseWrite = `request.resource.resource != 'leases' || request.namespace != ${celString(SERIAL_LEASE_NAMESPACE)} || `;

export function agentAdmissionPolicy(): Record<string, unknown> {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: AGENT_ADMISSION_POLICY_NAME, labels: { 'app.kubernetes.io/part-of': 'nodeherd' } },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: [''],
            apiVersions: ['v1'],
            operations: ['CREATE', 'UPDATE', 'DELETE'],
            resources: ['nodes', 'nodes/status', 'pods', 'events'],
          },
          {
            apiGroups: ['events.k8s.io'],
            apiVersions: ['v1'],
            operations: ['CREATE', 'UPDATE', 'DELETE'],
            resources: ['events'],
          },
          {
            apiGroups: ['coordination.k8s.io'],
            apiVersions: ['v1'],
            operations: ['CREATE', 'UPDATE', 'DELETE'],
            resources: ['leases'],
          },
        ],
      },
      matchConditions: [
        {
          name: 'is-nodeherd-agent',
          expression:
            `${celString(AGENTS_GROUP)} in request.userInfo.groups || ` +
            `${celString(AGENT_SERVICE_ACCOUNT_GROUP)} in request.userInfo.groups || ` +
            `request.userInfo.username == ${celString(AGENT_DAEMONSET_USER)}`,
        },
      ],
      variables: [
        {
          name: 'nodeName',
          expression: nodeNameFromUser([AGENT_USER_PREFIX, AGENT_SERVICE_ACCOUNT_USER_PREFIX]),
        },
        // Evaluated only where used (Node updates, where both objects exist).
        { name: 'newAnnotations', expression: mapOf('object.metadata', 'annotations') },
        { name: 'oldAnnotations', expression: mapOf('oldObject.metadata', 'annotations') },
      ],
      validations: [
        {
          expression: "variables.nodeName != ''",
          message: `a nodeherd agent must be the user ${AGENT_USER_PREFIX}<node>, the service account ${AGENT_SERVICE_ACCOUNT_USER_PREFIX}<node>, or ${AGENT_DAEMONSET_USER} with a token bound to a pod on a node`,
          reason: 'Forbidden',
        },
        {
          expression:
            "request.resource.resource != 'nodes' || " +
            "(request.operation == 'UPDATE' && request.name == variables.nodeName)",
          message: 'a nodeherd agent may only update or patch its own Node (never create or delete one)',
          reason: 'Forbidden',
        },
        {
          expression:
            isNodeWrite +
            `(${sameSpec} && ${mapOf('object.metadata', 'labels')} == ${mapOf('oldObject.metadata', 'labels')} && ` +
            `${listOf('object.metadata', 'finalizers')} == ${listOf('oldObject.metadata', 'finalizers')} && ` +
            `${listOf('object.metadata', 'ownerReferences')} == ${listOf('oldObject.metadata', 'ownerReferences')})`,
          message: "a nodeherd agent may not change its Node's labels, spec, finalizers or owners",
          reason: 'Forbidden',
        },
        {
          expression:
            isNodeWrite +
            `(variables.newAnnotations.all(k, k in ${celList(AGENT_ANNOTATIONS)} || ` +
            '(k in variables.oldAnnotations && variables.oldAnnotations[k] == variables.newAnnotations[k]) || ' +
            `(k == ${celString(DESIRED_REVISION_ANNOTATION)} && ${celString(AVAILABLE_REVISION_ANNOTATION)} in variables.oldAnnotations && ` +
            `variables.oldAnnotations[${celString(AVAILABLE_REVISION_ANNOTATION)}] == variables.newAnnotations[k])) && ` +
            `variables.oldAnnotations.all(k, k in ${celList(AGENT_ANNOTATIONS)} || k in variables.newAnnotations))`,
          message: `a nodeherd agent may only write the annotations ${AGENT_ANNOTATIONS.join(', ')} of its Node, and ${DESIRED_REVISION_ANNOTATION} only as a copy of ${AVAILABLE_REVISION_ANNOTATION}`,
          reason: 'Forbidden',
        },
        {
          expression:
            isNodeWrite +
            `(${NODE_STATUS_FIELDS.map(sameStatusField).join(' && ')} && ` +
            `${statusConditions('object')}.filter(c, !(c.type in ${celList(AGENT_CONDITIONS)})) == ` +
            `${statusConditions('oldObject')}.filter(c, !(c.type in ${celList(AGENT_CONDITIONS)})))`,
          message: `a nodeherd agent may only change the ${AGENT_CONDITIONS.join(' and ')} conditions in the status of its Node`,
          reason: 'Forbidden',
        },
        {
          expression:
            isSlotLeaseWrite +
            `(request.operation == 'DELETE' ? (${isSlotLease('oldObject')} && ${holderOf('oldObject')} == variables.nodeName) : ` +
            `request.operation == 'CREATE' ? (${isSlotLease('object')} && ${holderOf('object')} == variables.nodeName) : ` +
            `(${isSlotLease('object')} && ${isSlotLease('oldObject')} && ` +
            `(${holderOf('oldObject')} == variables.nodeName && object.metadata.labels == oldObject.metadata.labels ? ` +
            `${holderOf('object')} in [variables.nodeName, ''] : ${holderOf('object')} == variables.nodeName)))`,
          message: `a nodeherd agent may only take Serial slot Leases (${SLOT_PREFIX}<pool>-<slot>, labelled ${SERIAL_POOL_LABEL}) in its own name and release only one it holds`,
          reason: 'Forbidden',
        },
        {
          expression:
            "request.resource.resource != 'pods' || (request.operation == 'DELETE' && " +
            'has(oldObject.spec.nodeName) && oldObject.spec.nodeName == variables.nodeName)',
          message: 'a nodeherd agent may only delete pods bound to its own Node',
          reason: 'Forbidden',
        },
        {
          expression:
            "request.resource.resource != 'events' || (request.operation == 'CREATE' && " +
            `request.namespace in ${celList(AGENT_EVENT_NAMESPACES)} && ` +
            `(request.resource.group == '' ? (${eventAboutOwnNode('involvedObject')}) : (${eventAboutOwnNode('regarding')})))`,
          message: `a nodeherd agent may only create Events about its own Node, in namespaces ${AGENT_EVENT_NAMESPACES.join(', ')}`,
          reason: 'Forbidden',
        },
      ],
    },
  };
}

export function agentAdmissionPolicyBinding(): Record<string, unknown> {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: AGENT_ADMISSION_POLICY_NAME, labels: { 'app.kubernetes.io/part-of': 'nodeherd' } },
    spec: { policyName: AGENT_ADMISSION_POLICY_NAME, validationActions: ['Deny'] },
  };
}

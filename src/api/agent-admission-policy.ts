// A ValidatingAdmissionPolicy that does for nodeherd agents what NodeRestriction does for kubelets:
// a member of the nodeherd:agents group, named nodeherd:agent:<node> (src/apiserver/auth/identities.ts),
// or the ServiceAccount <node> in nodeherd-agents where no authenticator can issue such names, may write only its own Node (annotations and status, never its spec or labels), delete only pods
// bound to its Node, and create only Events about its Node in the namespaces the embedded server
// allows. RBAC (agent-cluster-rules.ts) grants the verbs; this confines them to the agent's objects,
// which is what authorizeAgent decides per request in the embedded server. Reads cannot be confined
// by admission; docs/real-cluster.md says what that leaves open.
// The agent DaemonSet's ServiceAccount (nodeherd-agent in nodeherd, deploy/agent-daemonset) is one user
// for every node: its node is the one its pod-bound token names, which Kubernetes 1.30+ puts into
// the user's extra authentication.kubernetes.io/node-name (the embedded server does the same).

import { AGENT_EVENT_NAMESPACES } from '../apiserver/auth/authorizer.ts';
import {
  AGENT_DAEMONSET_USER,
  AGENT_USER_PREFIX,
  AGENTS_GROUP,
  NODE_NAME_EXTRA,
} from '../apiserver/auth/identities.ts';
import { AGENT_SERVICE_ACCOUNT_GROUP, AGENT_SERVICE_ACCOUNT_USER_PREFIX } from './agent-cluster-rules.ts';

export const AGENT_ADMISSION_POLICY_NAME = 'nodeherd-agent-restriction';

const celString = (value: string): string => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const celList = (values: readonly string[]): string => `[${values.map(celString).join(', ')}]`;

// An absent map and an empty one are the same to a user; CEL's == would tell them apart.
const labelsOf = (object: string): string =>
  `(has(${object}.metadata.labels) ? ${object}.metadata.labels : {})`;
const specOf = (object: string): string => `(has(${object}.spec) ? ${object}.spec : {})`;

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
            "request.resource.resource != 'nodes' || request.operation != 'UPDATE' || request.subResource != '' || " +
            `(${specOf('object')} == ${specOf('oldObject')} && ${labelsOf('object')} == ${labelsOf('oldObject')})`,
          message: "a nodeherd agent may change its Node's annotations and status, not its spec or labels",
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

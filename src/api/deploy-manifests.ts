// The manifests that install nodeherd on a real cluster (deploy/controller, deploy/agent, and
// deploy/agent-daemonset for agents as a DaemonSet), built from the same constants and rules the
// embedded API server enforces so the two cannot drift.
// Written by src/api/generate-deploy.ts; docs/real-cluster.md explains them.

import type { PolicyRule } from '../util/kube-api-types.ts';
import { agentAdmissionPolicy, agentAdmissionPolicyBinding } from './agent-admission-policy.ts';
import {
  AGENT_CLUSTER_RULES,
  AGENT_SERVICE_ACCOUNT_GROUP,
  AGENT_SERVICE_ACCOUNT_NAMESPACE,
} from './agent-cluster-rules.ts';
import { CONTROLLER_RULES, DAEMONSET_UPDATE_RULES } from './controller-rules.ts';
import { NAMESPACE } from './group.ts';
import { clusterWideRules, namespacedRules } from './rbac-rules.ts';
import {
  AGENT_DAEMONSET_SERVICE_ACCOUNT,
  AGENT_NAMESPACE,
  AGENTS_GROUP,
  CONTROLLER_NAMESPACE,
  CONTROLLER_SERVICE_ACCOUNT,
} from './users.ts';

export type Manifest = Record<string, unknown>;

export interface ManifestFile {
  /** Repository-relative path. */
  path: string;
  /** A comment printed above the documents (without '# '), e.g. what to replace. */
  comment?: string;
  documents: Manifest[];
}

const CONTROLLER_NAME = CONTROLLER_SERVICE_ACCOUNT;
const AGENT_ROLE_NAME = 'nodeherd-agent';
const METRICS_PORT = 8080;
/**
 * The name `npm run images` gives the controller image (src/dist/images); no image is published, so
 * the user pushes it to a registry and sets that name (docs/real-cluster.md, examples/overlays/image).
 */
export const CONTROLLER_IMAGE_PLACEHOLDER = 'nodeherd/nodeherd-controller';
/** Replaced by the user like the controller's: the agent image (its entrypoint runs the agent). */
export const AGENT_IMAGE_PLACEHOLDER = 'nodeherd/nodeherd-agent';
/** The agent's HTTP port on the node's loopback (DEFAULT_METRICS_ADDRESS of src/agent/agent-config.ts). */
export const AGENT_HTTP_PORT = 9469;
/** Where the DaemonSet mounts the node's root filesystem. */
export const AGENT_HOST_ROOT = '/host';
/** The agent's state on the node: the systemd agent's directory, so either can take over. */
export const AGENT_STATE_DIR = '/var/lib/nodeherd';

/** Pod Security admission labels: enforce (and warn and audit at) `level`, at the latest version. */
export function podSecurity(level: 'privileged' | 'baseline' | 'restricted'): Record<string, string> {
  return {
    'pod-security.kubernetes.io/enforce': level,
    'pod-security.kubernetes.io/enforce-version': 'latest',
    'pod-security.kubernetes.io/warn': level,
    'pod-security.kubernetes.io/audit': level,
  };
}

function labels(component: string): Record<string, string> {
  return {
    'app.kubernetes.io/name': component,
    'app.kubernetes.io/part-of': 'nodeherd',
  };
}

function roleObjects(
  name: string,
  rules: readonly PolicyRule[],
  subjects: Manifest[],
  component: string,
): Manifest[] {
  const out: Manifest[] = [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name, labels: labels(component) },
      rules: clusterWideRules(rules),
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name, labels: labels(component) },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects,
    },
  ];
  for (const [namespace, namespaced] of namespacedRules(rules)) {
    out.push(
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name, namespace, labels: labels(component) },
        rules: namespaced,
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name, namespace, labels: labels(component) },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
        subjects,
      },
    );
  }
  return out;
}

/** The controller's container arguments (flags of src/controller/controller-command.ts). */
export function controllerArgs(): string[] {
  return [
    `--metrics-address=0.0.0.0:${METRICS_PORT}`,
    // TokenReview + SubjectAccessReview for every scrape: a token bound to nodeherd-metrics-reader.
    '--metrics-auth=true',
    '--leader-elect=true',
    `--leader-election-namespace=${CONTROLLER_NAMESPACE}`,
    '--lease-duration=15',
    '--workers=4',
    '--log-level=info',
  ];
}

function controllerDeployment(version: string): Manifest {
  const selector = labels(CONTROLLER_NAME);
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: CONTROLLER_NAME, namespace: CONTROLLER_NAMESPACE, labels: selector },
    spec: {
      // Two replicas, one leading (a Lease in nodeherd): a standby takes over within the lease duration.
      replicas: 2,
      revisionHistoryLimit: 5,
      selector: { matchLabels: selector },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } },
      template: {
        metadata: { labels: selector },
        spec: {
          serviceAccountName: CONTROLLER_SERVICE_ACCOUNT,
          automountServiceAccountToken: true,
          // The leader exits when it loses the Lease and the kubelet restarts it as a standby.
          restartPolicy: 'Always',
          terminationGracePeriodSeconds: 30,
          securityContext: {
            runAsNonRoot: true,
            runAsUser: 65532,
            runAsGroup: 65532,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          topologySpreadConstraints: [
            {
              maxSkew: 1,
              topologyKey: 'kubernetes.io/hostname',
              whenUnsatisfiable: 'ScheduleAnyway',
              labelSelector: { matchLabels: selector },
            },
          ],
          containers: [
            {
              name: 'controller',
              image: `${CONTROLLER_IMAGE_PLACEHOLDER}:${version}`,
              imagePullPolicy: 'IfNotPresent',
              // The image's entrypoint runs the controller; only its flags are set here.
              args: controllerArgs(),
              ports: [{ name: 'metrics', containerPort: METRICS_PORT, protocol: 'TCP' }],
              livenessProbe: {
                httpGet: { path: '/healthz', port: 'metrics' },
                initialDelaySeconds: 10,
                periodSeconds: 10,
                timeoutSeconds: 5,
                failureThreshold: 3,
              },
              readinessProbe: {
                httpGet: { path: '/readyz', port: 'metrics' },
                periodSeconds: 5,
                timeoutSeconds: 5,
                failureThreshold: 3,
              },
              resources: {
                requests: { cpu: '50m', memory: '128Mi' },
                limits: { memory: '512Mi' },
              },
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                runAsNonRoot: true,
                capabilities: { drop: ['ALL'] },
              },
              volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
            },
          ],
          volumes: [{ name: 'tmp', emptyDir: { sizeLimit: '64Mi' } }],
        },
      },
    },
  };
}

function controllerNetworkPolicy(): Manifest {
  const tcp = (port: number) => ({ protocol: 'TCP', port });
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: CONTROLLER_NAME, namespace: CONTROLLER_NAMESPACE, labels: labels(CONTROLLER_NAME) },
    spec: {
      podSelector: { matchLabels: labels(CONTROLLER_NAME) },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [{ ports: [tcp(METRICS_PORT)] }],
      egress: [
        { ports: [{ protocol: 'UDP', port: 53 }, tcp(53)] },
        { ports: [tcp(443), tcp(6443)] },
        { ports: [tcp(9090)] },
        { ports: [tcp(80), tcp(8080)] },
      ],
    },
  };
}

/** The ClusterRole a /metrics scraper needs, and a ServiceAccount bound to it with a token for Prometheus. */
export const METRICS_READER = 'nodeherd-metrics-reader';

function metricsReaderObjects(component: string): Manifest[] {
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: METRICS_READER, labels: labels(component) },
      rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
    },
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: METRICS_READER, namespace: CONTROLLER_NAMESPACE, labels: labels(component) },
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: METRICS_READER, labels: labels(component) },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: METRICS_READER },
      subjects: [{ kind: 'ServiceAccount', name: METRICS_READER, namespace: CONTROLLER_NAMESPACE }],
    },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'kubernetes.io/service-account-token',
      metadata: {
        name: `${METRICS_READER}-token`,
        namespace: CONTROLLER_NAMESPACE,
        labels: labels(component),
        annotations: { 'kubernetes.io/service-account.name': METRICS_READER },
      },
    },
  ];
}

function controllerFiles(version: string): ManifestFile[] {
  const component = CONTROLLER_NAME;
  const serviceAccount: Manifest = {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: {
      name: CONTROLLER_SERVICE_ACCOUNT,
      namespace: CONTROLLER_NAMESPACE,
      labels: labels(component),
    },
  };
  const subject = {
    kind: 'ServiceAccount',
    name: CONTROLLER_SERVICE_ACCOUNT,
    namespace: CONTROLLER_NAMESPACE,
  };
  return [
    {
      path: 'deploy/controller/00-namespace.yaml',
      documents: [
        {
          apiVersion: 'v1',
          kind: 'Namespace',
          // The controller runs under the restricted Pod Security profile (test/api/pod-security.test.ts
          // checks its pod spec against the profile's rules).
          metadata: {
            name: NAMESPACE,
            labels: { 'app.kubernetes.io/part-of': 'nodeherd', ...podSecurity('restricted') },
          },
        },
      ],
    },
    {
      path: 'deploy/controller/10-rbac.yaml',
      comment:
        'RBAC rules: CONTROLLER_RULES, which the embedded API server enforces (src/api/controller-rules.ts).',
      documents: [serviceAccount, ...roleObjects(CONTROLLER_NAME, CONTROLLER_RULES, [subject], component)],
    },
    {
      path: 'deploy/controller/20-deployment.yaml',
      comment:
        `image: ${CONTROLLER_IMAGE_PLACEHOLDER}:${version} is what \`npm run images\` builds; no image is published.\n` +
        'Push it to your registry and set its name there with a kustomize images: entry (examples/overlays/image)\n' +
        'or `kubectl set image` (docs/real-cluster.md).',
      documents: [controllerDeployment(version)],
    },
    {
      path: 'deploy/controller/30-metrics-service.yaml',
      documents: [
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: {
            name: `${CONTROLLER_NAME}-metrics`,
            namespace: CONTROLLER_NAMESPACE,
            labels: labels(component),
          },
          spec: {
            type: 'ClusterIP',
            selector: labels(component),
            ports: [{ name: 'metrics', port: METRICS_PORT, targetPort: 'metrics', protocol: 'TCP' }],
          },
        },
      ],
    },
    {
      path: 'deploy/controller/35-metrics-reader.yaml',
      comment:
        `/metrics answers only bearer tokens the API server authenticates and authorizes for get on /metrics\n` +
        `(--metrics-auth): bind ${METRICS_READER} to your Prometheus's ServiceAccount, or scrape with the token\n` +
        `of the ${METRICS_READER} ServiceAccount below (the Secret ${METRICS_READER}-token holds it; a\n` +
        'ServiceMonitor names it in authorization.credentials). The endpoint is plain HTTP inside the cluster.',
      documents: metricsReaderObjects(component),
    },
    {
      path: 'deploy/controller/50-network-policy.yaml',
      comment:
        'What the controller pods may reach and be reached by. In: the metrics port (Prometheus, from any\n' +
        'namespace; /metrics itself needs a token). Out: DNS, the API server (443 or 6443 behind the\n' +
        'kubernetes Service), Prometheus for health gates (9090) and notification webhooks (HTTPS 443, or\n' +
        'HTTP 80/8080 inside the cluster). Destinations are not narrowed to addresses: they are the\n' +
        "cluster's; an overlay can patch ipBlock/namespaceSelector entries in (docs/real-cluster.md).",
      documents: [controllerNetworkPolicy()],
    },
    {
      path: 'deploy/controller/40-pod-disruption-budget.yaml',
      documents: [
        {
          apiVersion: 'policy/v1',
          kind: 'PodDisruptionBudget',
          metadata: { name: CONTROLLER_NAME, namespace: CONTROLLER_NAMESPACE, labels: labels(component) },
          // One replica may go (a drain of its node): the other one leads or takes over.
          spec: { maxUnavailable: 1, selector: { matchLabels: labels(component) } },
        },
      ],
    },
  ];
}

function agentFiles(): ManifestFile[] {
  const subjects = [AGENTS_GROUP, AGENT_SERVICE_ACCOUNT_GROUP].map((name) => ({
    apiGroup: 'rbac.authorization.k8s.io',
    kind: 'Group',
    name,
  }));
  return [
    {
      path: 'deploy/agent/00-namespace.yaml',
      comment: `ServiceAccounts of agents that authenticate as service accounts: one per node, named like the Node.`,
      documents: [
        {
          apiVersion: 'v1',
          kind: 'Namespace',
          // Agents are privileged pods (hostPID, the node's root): their namespace says so, and holds
          // nothing else, so a cluster enforcing baseline or restricted everywhere else admits them.
          metadata: {
            name: AGENT_SERVICE_ACCOUNT_NAMESPACE,
            labels: { 'app.kubernetes.io/part-of': 'nodeherd', ...podSecurity('privileged') },
          },
        },
      ],
    },
    {
      path: 'deploy/agent/rbac.yaml',
      comment:
        `Verbs and resources for agents, the groups ${AGENTS_GROUP} and ${AGENT_SERVICE_ACCOUNT_GROUP}\n` +
        '(src/api/agent-cluster-rules.ts). RBAC cannot say "its own Node": admission-policy.yaml confines\n' +
        'the writes; docs/real-cluster.md says what is left open.\n' +
        'The Role lives in namespace nodeherd: apply deploy/controller first.',
      documents: roleObjects(AGENT_ROLE_NAME, AGENT_CLUSTER_RULES, subjects, 'nodeherd-agent'),
    },
    {
      path: 'deploy/agent/admission-policy.yaml',
      comment:
        'NodeRestriction for nodeherd agents: writes confined to their own Node, pods and Events.\n' +
        'Needs admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy (Kubernetes 1.30 or newer).',
      documents: [agentAdmissionPolicy(), agentAdmissionPolicyBinding()],
    },
  ];
}

/** The agent as a privileged pod on every node (docs/real-cluster.md, "Agents as a DaemonSet"). */
function agentDaemonSet(version: string): Manifest {
  const selector = labels('nodeherd-agent');
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: AGENT_ROLE_NAME, namespace: AGENT_NAMESPACE, labels: selector },
    spec: {
      selector: { matchLabels: selector },
      // One node at a time: a new agent takes over a node's journal and resumes what the old one left.
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
      revisionHistoryLimit: 5,
      template: {
        metadata: { labels: selector },
        spec: {
          serviceAccountName: AGENT_DAEMONSET_SERVICE_ACCOUNT,
          // The token the kubelet mounts is bound to this pod and names its node: the agent's identity.
          automountServiceAccountToken: true,
          // PID 1 is the node's systemd: systemctl and apt-get run in its namespaces (nsenter).
          hostPID: true,
          // Health probes of the node's units (http://127.0.0.1:...) and the agent's local API mean the node.
          hostNetwork: true,
          dnsPolicy: 'ClusterFirstWithHostNet',
          priorityClassName: 'system-node-critical',
          // Every node, tainted or not: an unmanaged node is what this must never leave behind.
          tolerations: [{ operator: 'Exists' }],
          terminationGracePeriodSeconds: 30,
          containers: [
            {
              name: 'agent',
              image: `${AGENT_IMAGE_PLACEHOLDER}:${version}`,
              imagePullPolicy: 'IfNotPresent',
              env: [
                { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
                { name: 'NODEHERD_IN_CLUSTER', value: 'true' },
                { name: 'NODEHERD_HOST_ROOT', value: AGENT_HOST_ROOT },
                { name: 'NODEHERD_STATE_DIR', value: AGENT_STATE_DIR },
              ],
              // nsenter into PID 1's mount namespace and writing the node's files need all of it.
              securityContext: { privileged: true },
              // The agent's /healthz on the node's loopback (hostNetwork: the kubelet probes from the node).
              livenessProbe: {
                httpGet: { host: '127.0.0.1', path: '/healthz', port: AGENT_HTTP_PORT },
                initialDelaySeconds: 15,
                periodSeconds: 20,
                timeoutSeconds: 5,
                // An apply can hold the agent busy (apt-get); only a long silence restarts it.
                failureThreshold: 6,
              },
              readinessProbe: {
                httpGet: { host: '127.0.0.1', path: '/healthz', port: AGENT_HTTP_PORT },
                periodSeconds: 10,
                timeoutSeconds: 5,
                failureThreshold: 3,
              },
              // apt-get and dpkg run in this container's cgroup, and an OOM kill in the middle of dpkg
              // leaves the node's packages half-configured: the memory limit is far above what the
              // agent itself uses (~64Mi), as a bound on a runaway rather than a budget.
              resources: {
                requests: { cpu: '10m', memory: '64Mi' },
                limits: { cpu: '1', memory: '2Gi' },
              },
              volumeMounts: [
                { name: 'host', mountPath: AGENT_HOST_ROOT, mountPropagation: 'HostToContainer' },
                { name: 'state', mountPath: AGENT_STATE_DIR },
              ],
            },
          ],
          volumes: [
            { name: 'host', hostPath: { path: '/', type: 'Directory' } },
            { name: 'state', hostPath: { path: AGENT_STATE_DIR, type: 'DirectoryOrCreate' } },
          ],
        },
      },
    },
  };
}

function agentDaemonSetFiles(version: string): ManifestFile[] {
  const component = 'nodeherd-agent';
  const name = `${AGENT_ROLE_NAME}-daemonset`;
  const subjects = [
    { kind: 'ServiceAccount', name: AGENT_DAEMONSET_SERVICE_ACCOUNT, namespace: AGENT_NAMESPACE },
  ];
  const roleRef = (kind: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name: AGENT_ROLE_NAME });
  return [
    {
      path: 'deploy/agent-daemonset/kustomization.yaml',
      comment:
        'Agents as a DaemonSet, beside (not with) nodeherd-init: `kubectl apply -k deploy/agent-daemonset`\n' +
        'after deploy/controller and deploy/agent (namespace nodeherd-agents, the nodeherd-agent roles and\n' +
        'the admission policy). Set the agent image with an `images:` entry in an overlay.',
      documents: [
        {
          apiVersion: 'kustomize.config.k8s.io/v1beta1',
          kind: 'Kustomization',
          resources: ['rbac.yaml', 'daemonset.yaml'],
        },
      ],
    },
    {
      path: 'deploy/agent-daemonset/rbac.yaml',
      comment:
        `The DaemonSet's ServiceAccount gets the agent roles of deploy/agent/rbac.yaml. Every pod runs as the\n` +
        'same ServiceAccount; the admission policy confines each to the node its token is bound to.',
      documents: [
        {
          apiVersion: 'v1',
          kind: 'ServiceAccount',
          metadata: {
            name: AGENT_DAEMONSET_SERVICE_ACCOUNT,
            namespace: AGENT_NAMESPACE,
            labels: labels(component),
          },
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name, labels: labels(component) },
          roleRef: roleRef('ClusterRole'),
          subjects,
        },
        ...[...namespacedRules(AGENT_CLUSTER_RULES).keys()].map((namespace) => ({
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name, namespace, labels: labels(component) },
          roleRef: roleRef('Role'),
          subjects,
        })),
      ],
    },
    {
      path: 'deploy/agent-daemonset/daemonset.yaml',
      comment:
        `image: ${AGENT_IMAGE_PLACEHOLDER}:${version} is a placeholder, like the controller's: build the agent\n` +
        "image (docs/real-cluster.md) and point the DaemonSet at it. Privileged, hostPID, the node's root at\n" +
        `${AGENT_HOST_ROOT}: the pod manages the node's files, systemd and apt as the systemd agent does.`,
      documents: [agentDaemonSet(version)],
    },
  ];
}

/** The kustomize component that turns on the DaemonSet update strategies, with the RBAC only they need. */
export const DAEMONSET_UPDATES_COMPONENT = 'deploy/components/daemonset-updates';

function daemonSetUpdatesFiles(): ManifestFile[] {
  const component = CONTROLLER_NAME;
  const name = `${CONTROLLER_NAME}-daemonset-updates`;
  const subject = {
    kind: 'ServiceAccount',
    name: CONTROLLER_SERVICE_ACCOUNT,
    namespace: CONTROLLER_NAMESPACE,
  };
  if (namespacedRules(DAEMONSET_UPDATE_RULES).size > 0) {
    throw new Error('DAEMONSET_UPDATE_RULES are cluster-wide: the component has no Role');
  }
  return [
    {
      path: `${DAEMONSET_UPDATES_COMPONENT}/kustomization.yaml`,
      comment:
        "nodeherd's update strategies for DaemonSets (OnDelete DaemonSets annotated nodeherd.io/update-strategy),\n" +
        'opt-in: add this component to an overlay of deploy/ (`components: [<path>/deploy/components/daemonset-updates]`).\n' +
        'It grants the controller what only that feature needs (DAEMONSET_UPDATE_RULES, src/api/controller-rules.ts:\n' +
        'watch DaemonSets and ControllerRevisions, delete daemon pods, write their status) and turns it on\n' +
        '(--daemonset-updates=true). Without it the controller never touches DaemonSets or deletes a pod.',
      documents: [
        {
          apiVersion: 'kustomize.config.k8s.io/v1alpha1',
          kind: 'Component',
          resources: ['rbac.yaml'],
          patches: [
            {
              target: { group: 'apps', version: 'v1', kind: 'Deployment', name: CONTROLLER_NAME },
              patch: stringifyPatch([
                {
                  op: 'add',
                  path: '/spec/template/spec/containers/0/args/-',
                  value: '--daemonset-updates=true',
                },
              ]),
            },
          ],
        },
      ],
    },
    {
      path: `${DAEMONSET_UPDATES_COMPONENT}/rbac.yaml`,
      comment: 'RBAC rules: DAEMONSET_UPDATE_RULES (src/api/controller-rules.ts), for the controller.',
      documents: roleObjects(name, DAEMONSET_UPDATE_RULES, [subject], component),
    },
  ];
}

/** A JSON 6902 patch as kustomize reads it inline (a YAML list in a string). */
function stringifyPatch(operations: Record<string, unknown>[]): string {
  return operations
    .map(
      (op) =>
        `- ${Object.entries(op)
          .map(([key, value]) => `${key}: ${JSON.stringify(value)}`)
          .join('\n  ')}`,
    )
    .join('\n');
}

/** Every manifest file of deploy/controller, deploy/agent, deploy/agent-daemonset and deploy/components. */
export function deployManifestFiles(version: string): ManifestFile[] {
  return [
    ...controllerFiles(version),
    ...agentFiles(),
    ...agentDaemonSetFiles(version),
    ...daemonSetUpdatesFiles(),
  ];
}

/** The kinds of deploy/'s base that are policy: who may do what, and what writes are admitted. */
const POLICY_KINDS = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'Role',
  'RoleBinding',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
]);

/**
 * The policy objects of deploy/'s base (deploy/controller and deploy/agent: RBAC, the agents'
 * ValidatingAdmissionPolicy and its binding, and the namespaces they live in), in file order: what the
 * embedded API server seeds at start, as kube-apiserver seeds its bootstrap policy, so one policy
 * confines the controller and agents on both servers. Opt-in components are not part of it.
 */
export function basePolicyObjects(): Manifest[] {
  return [...controllerFiles('0.0.0'), ...agentFiles()]
    .flatMap((file) => file.documents)
    .filter((doc) => POLICY_KINDS.has(String(doc.kind)));
}

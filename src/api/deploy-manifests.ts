// The manifests that install nodeherd on a real cluster (deploy/controller, deploy/agent), built from
// the same constants and rules the embedded API server enforces so the two cannot drift.
// Written by src/api/generate-deploy.ts; docs/real-cluster.md explains them.

import { CONTROLLER_RULES, NODEHERD_NAMESPACE, type PolicyRule } from '../apiserver/auth/authorizer.ts';
import {
  AGENTS_GROUP,
  CONTROLLER_NAMESPACE,
  CONTROLLER_SERVICE_ACCOUNT,
} from '../apiserver/auth/identities.ts';
import { agentAdmissionPolicy, agentAdmissionPolicyBinding } from './agent-admission-policy.ts';
import {
  AGENT_CLUSTER_RULES,
  AGENT_SERVICE_ACCOUNT_GROUP,
  AGENT_SERVICE_ACCOUNT_NAMESPACE,
} from './agent-cluster-rules.ts';
import { clusterWideRules, namespacedRules } from './rbac-rules.ts';

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
          metadata: { name: NODEHERD_NAMESPACE, labels: { 'app.kubernetes.io/part-of': 'nodeherd' } },
        },
      ],
    },
    {
      path: 'deploy/controller/10-rbac.yaml',
      comment: 'RBAC rules: CONTROLLER_RULES of the embedded API server (src/apiserver/auth/authorizer.ts).',
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
          metadata: {
            name: AGENT_SERVICE_ACCOUNT_NAMESPACE,
            labels: { 'app.kubernetes.io/part-of': 'nodeherd' },
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

/** Every manifest file of deploy/controller and deploy/agent. */
export function deployManifestFiles(version: string): ManifestFile[] {
  return [...controllerFiles(version), ...agentFiles()];
}

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { parseAllDocuments } from 'yaml';
import {
  AGENT_CLUSTER_RULES,
  AGENT_SERVICE_ACCOUNT_GROUP,
  AGENT_SERVICE_ACCOUNT_NAMESPACE,
} from '../../src/api/agent-cluster-rules.ts';
import { controllerArgs } from '../../src/api/deploy-manifests.ts';
import { repositoryRoot } from '../../src/api/generate-crds.ts';
import { generatedDeployFiles, unexpectedDeployFiles } from '../../src/api/generate-deploy.ts';
import {
  authorize,
  CONTROLLER_RULES,
  NODEHERD_NAMESPACE,
  type RequestVerb,
  type ResourceAttributes,
} from '../../src/apiserver/auth/authorizer.ts';
import { identityFor } from '../../src/apiserver/auth/identities.ts';
import { agentMayUseBoundPod } from '../../src/apiserver/auth/node-bound-pods.ts';
import { revisionsReferenceSecret } from '../../src/apiserver/auth/referenced-secrets.ts';
import { controllerCommand } from '../../src/controller/controller-command.ts';
import { MetricsServer } from '../../src/controller/metrics-server.ts';
import { type LocalApiServer, startLocalApiServer } from '../support/local-apiserver.ts';

type Doc = Record<string, any>;

interface LoadedDoc {
  file: string;
  doc: Doc;
}

function yamlFilesUnder(directory: string): string[] {
  return readdirSync(directory)
    .sort()
    .flatMap((name) => {
      const path = join(directory, name);
      if (statSync(path).isDirectory()) return yamlFilesUnder(path);
      return /\.ya?ml$/.test(name) ? [path] : [];
    });
}

/** Every document of every YAML file under deploy/, parsed strictly (a syntax error fails). */
function loadDeploy(): LoadedDoc[] {
  return yamlFilesUnder(join(repositoryRoot, 'deploy')).flatMap((file) =>
    parseAllDocuments(readFileSync(file, 'utf8')).flatMap((document) => {
      assert.deepEqual(document.errors, [], `${file}: YAML errors`);
      const doc = document.toJS() as Doc | null;
      return doc === null ? [] : [{ file, doc }];
    }),
  );
}

let loaded: Doc[] | undefined;
const deployDocs = (): Doc[] => {
  loaded ??= loadDeploy().map((d) => d.doc);
  return loaded;
};

const docsOf = (kind: string, name: string): Doc[] =>
  deployDocs().filter((d) => d.kind === kind && d.metadata?.name === name);

test('committed deploy/controller and deploy/agent equal the generated output (run node src/api/generate-deploy.ts)', () => {
  const files = generatedDeployFiles();
  assert.ok(Object.keys(files).length >= 7);
  for (const [path, content] of Object.entries(files)) {
    assert.equal(readFileSync(join(repositoryRoot, path), 'utf8'), content, `${path} is stale`);
  }
  assert.deepEqual(
    unexpectedDeployFiles(files),
    [],
    'files in deploy/controller or deploy/agent not generated',
  );
});

// Kubernetes RBAC's rule matching (rbac/v1 helpers): '*' matches every resource and subresource.
function rbacAllows(rules: Doc[], attrs: ResourceAttributes): boolean {
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  return rules.some(
    (rule) =>
      (rule.apiGroups.includes('*') || rule.apiGroups.includes(attrs.group)) &&
      (rule.resources.includes('*') || rule.resources.includes(resource)) &&
      (rule.verbs.includes('*') || rule.verbs.includes(attrs.verb)),
  );
}

/** What the committed RBAC documents grant `subject` for this request: its ClusterRoles, and Roles in the namespace. */
function committedRbacAllows(subject: Doc, attrs: ResourceAttributes): boolean {
  const docs = deployDocs();
  const bound = (bindingKind: string, roleKind: string, namespace?: string) =>
    docs
      .filter(
        (b) =>
          b.kind === bindingKind &&
          b.metadata.namespace === namespace &&
          b.subjects.some((s: Doc) => s.kind === subject.kind && s.name === subject.name),
      )
      .flatMap((b) =>
        docs.filter(
          (r) =>
            r.kind === roleKind && r.metadata.name === b.roleRef.name && r.metadata.namespace === namespace,
        ),
      )
      .flatMap((r) => r.rules as Doc[]);
  const clusterRules = bound('ClusterRoleBinding', 'ClusterRole');
  const namespaceRules = attrs.namespace ? bound('RoleBinding', 'Role', attrs.namespace) : [];
  return rbacAllows([...clusterRules, ...namespaceRules], attrs);
}

const VERBS: RequestVerb[] = [
  'get',
  'list',
  'watch',
  'create',
  'update',
  'patch',
  'delete',
  'deletecollection',
];

test('the controller RBAC in deploy/controller grants exactly what the embedded server allows the controller', () => {
  const controller = identityFor('controller');
  const subject = { kind: 'ServiceAccount', name: 'nodeherd-controller' };
  // Every resource a controller rule names, plus resources it must not touch.
  const resources = new Set<string>();
  for (const rule of CONTROLLER_RULES) {
    for (const group of rule.groups) for (const r of rule.resources) resources.add(`${group}|${r}`);
  }
  for (const extra of [
    '|secrets',
    '|nodes',
    '|namespaces',
    'rbac.authorization.k8s.io|clusterroles',
    'apiextensions.k8s.io|customresourcedefinitions',
    'nodeherd.io|nodeconfigpools/status',
    'apps|deployments',
    '|services',
  ]) {
    resources.add(extra);
  }
  let compared = 0;
  for (const entry of resources) {
    const [group = '', key = ''] = entry.split('|');
    const [resource = '', subresource] = key === '*' ? ['nodeconfigpools'] : key.split('/');
    for (const namespace of [undefined, NODEHERD_NAMESPACE, 'default']) {
      for (const verb of VERBS) {
        const attrs: ResourceAttributes = {
          verb,
          group,
          resource,
          ...(subresource ? { subresource } : {}),
          ...(namespace ? { namespace } : {}),
        };
        const embedded = authorize(controller, attrs).allowed;
        assert.equal(
          committedRbacAllows(subject, attrs),
          embedded,
          `${verb} ${key || resource}.${group} in ${namespace ?? 'cluster scope'}: embedded says ${embedded}`,
        );
        compared++;
      }
    }
  }
  assert.ok(compared > 300);
});

// The request an agent makes for its own objects: the embedded server must allow it, or a real cluster
// would grant agents access the embedded server never gives them.
function ownObjectAllowed(
  group: string,
  key: string,
  verb: RequestVerb,
  namespace: string | undefined,
): boolean {
  const node = 'worker-1';
  const identity = identityFor('node', node);
  const [resource = '', subresource] = key.split('/');
  const base: ResourceAttributes = {
    verb,
    group,
    resource,
    ...(subresource ? { subresource } : {}),
    ...(namespace ? { namespace } : {}),
  };
  if (group === '' && resource === 'nodes') {
    const list = verb === 'list' || verb === 'watch';
    return authorize(identity, list ? { ...base, fieldSelectorName: node } : { ...base, name: node }).allowed;
  }
  if (resource === 'events') {
    const about = { kind: 'Node', name: node };
    const body = group === '' ? { involvedObject: about } : { regarding: about };
    return authorize(identity, { ...base, namespace: namespace ?? 'default', body }).allowed;
  }
  if (group === '' && resource === 'pods') {
    if (verb === 'list' || verb === 'watch') {
      return authorize(identity, { ...base, fieldSelectorNodeName: node }).allowed;
    }
    if (authorize(identity, { ...base, namespace: 'default', name: 'p' }).allowed) return true;
    const bound = { metadata: { name: 'p', namespace: 'default' }, spec: { nodeName: node } };
    const request = { verb, group, resource, subresource, namespace: 'default', name: 'p' };
    return agentMayUseBoundPod(identity, request, () => bound);
  }
  if (group === '' && resource === 'secrets') {
    const ns = namespace ?? NODEHERD_NAMESPACE;
    if (authorize(identity, { ...base, namespace: ns, name: 's' }).allowed) return true;
    // The pipeline lets an agent get a Secret its revision references (referenced-secrets.ts).
    const revision = {
      spec: { config: { files: [{ content: { secretRef: { namespace: ns, name: 's', key: 'k' } } }] } },
    };
    return verb === 'get' && revisionsReferenceSecret([revision], ns, 's');
  }
  const named = verb === 'create' ? { body: { metadata: { name: 'slot-0' } } } : { name: 'slot-0' };
  return authorize(identity, verb === 'list' || verb === 'watch' ? base : { ...base, ...named }).allowed;
}

test('every agent RBAC rule is allowed by the embedded server for the agent’s own objects', () => {
  let checked = 0;
  for (const rule of AGENT_CLUSTER_RULES) {
    for (const group of rule.groups) {
      for (const resource of rule.resources) {
        for (const verb of rule.verbs) {
          assert.notEqual(verb, '*', 'agent rules name their verbs');
          for (const namespace of rule.namespaces ?? [undefined]) {
            assert.ok(
              ownObjectAllowed(group, resource, verb as RequestVerb, namespace),
              `${verb} ${resource}.${group} in ${namespace ?? 'any namespace'} is not allowed by the embedded server`,
            );
            checked++;
          }
        }
      }
    }
  }
  assert.ok(checked >= 20);
  // And the committed agent RBAC is bound to the group the embedded server puts agents in, and to the
  // group of agents that authenticate as service accounts.
  for (const group of [identityFor('node', 'worker-1').groups[0], AGENT_SERVICE_ACCOUNT_GROUP]) {
    const subject = { kind: 'Group', name: group };
    const attrs = { verb: 'get', group: '', resource: 'secrets', namespace: NODEHERD_NAMESPACE } as const;
    assert.equal(committedRbacAllows(subject, attrs), true, group);
    assert.equal(committedRbacAllows(subject, { ...attrs, namespace: 'kube-system' }), false, group);
    assert.equal(
      committedRbacAllows(subject, { verb: 'delete', group: '', resource: 'nodes' }),
      false,
      group,
    );
    assert.equal(committedRbacAllows(subject, { verb: 'patch', group: '', resource: 'nodes' }), true, group);
  }
  const [namespace] = docsOf('Namespace', AGENT_SERVICE_ACCOUNT_NAMESPACE);
  assert.ok(namespace, `the Namespace ${AGENT_SERVICE_ACCOUNT_NAMESPACE} is in deploy/agent`);
});

test('the agent admission policy matches the agents group and confines writes by the agent’s user name', () => {
  const [policy] = docsOf('ValidatingAdmissionPolicy', 'nodeherd-agent-restriction');
  const [binding] = docsOf('ValidatingAdmissionPolicyBinding', 'nodeherd-agent-restriction');
  assert.ok(policy && binding);
  assert.equal(binding.spec.policyName, policy.metadata.name);
  assert.deepEqual(binding.spec.validationActions, ['Deny']);
  assert.equal(policy.spec.failurePolicy, 'Fail');
  const agent = identityFor('node', 'worker-1');
  assert.equal(
    policy.spec.matchConditions[0].expression,
    `'${agent.groups[0]}' in request.userInfo.groups || '${AGENT_SERVICE_ACCOUNT_GROUP}' in request.userInfo.groups`,
  );
  // The node name is what follows the embedded server's agent user prefix, or the service account's.
  const prefix = agent.name.slice(0, -'worker-1'.length);
  const serviceAccountPrefix = `system:serviceaccount:${AGENT_SERVICE_ACCOUNT_NAMESPACE}:`;
  const after = (p: string) =>
    `request.userInfo.username.startsWith('${p}') ? request.userInfo.username.substring(${p.length})`;
  assert.equal(policy.spec.variables[0].expression, `${after(prefix)} : ${after(serviceAccountPrefix)} : ''`);
  // Every resource the agent may write is matched by the policy.
  const matched = new Set(
    policy.spec.matchConstraints.resourceRules.flatMap((r: Doc) =>
      r.apiGroups.flatMap((g: string) => r.resources.map((res: string) => `${g}|${res}`)),
    ),
  );
  for (const rule of AGENT_CLUSTER_RULES.filter((r) => r.namespaces === undefined)) {
    if (!rule.verbs.some((v) => !['get', 'list', 'watch'].includes(v))) continue;
    for (const group of rule.groups) {
      for (const resource of rule.resources)
        assert.ok(matched.has(`${group}|${resource}`), `${resource}.${group}`);
    }
  }
  for (const validation of policy.spec.validations) {
    assert.equal(typeof validation.expression, 'string');
    assert.ok(validation.message.length > 0);
    // Balanced parentheses and quotes: a cheap guard against a broken expression (no CEL evaluator here).
    let depth = 0;
    for (const ch of validation.expression.replace(/'[^']*'/g, '')) {
      depth += ch === '(' ? 1 : ch === ')' ? -1 : 0;
      assert.ok(depth >= 0, validation.expression);
    }
    assert.equal(depth, 0, validation.expression);
  }
});

test('the controller Deployment runs the controller with flags it knows, probes it serves, and a locked-down pod', async () => {
  const [deployment] = docsOf('Deployment', 'nodeherd-controller');
  assert.ok(deployment);
  const pod = deployment.spec.template.spec;
  const [container] = pod.containers;
  assert.deepEqual(container.args, controllerArgs());
  assert.deepEqual(container.command, ['node', 'bin/nodeherd-controller.ts']);
  assert.ok(statSync(join(repositoryRoot, 'bin/nodeherd-controller.ts')).isFile());
  const flags = controllerCommand()
    .exitOverride()
    .parse(['node', 'nodeherd-controller', ...container.args])
    .opts();
  assert.equal(flags.leaderElect, true);
  assert.equal(flags.leaderElectionNamespace, NODEHERD_NAMESPACE);
  assert.equal(deployment.spec.replicas, 2);
  assert.equal(pod.serviceAccountName, 'nodeherd-controller');
  assert.equal(pod.securityContext.runAsNonRoot, true);
  assert.equal(container.securityContext.readOnlyRootFilesystem, true);
  assert.equal(container.securityContext.allowPrivilegeEscalation, false);
  assert.deepEqual(container.securityContext.capabilities.drop, ['ALL']);
  assert.ok(container.resources.requests.cpu && container.resources.limits.memory);
  const [pdb] = docsOf('PodDisruptionBudget', 'nodeherd-controller');
  assert.deepEqual(pdb?.spec.selector.matchLabels, deployment.spec.selector.matchLabels);

  // The probes' paths answer on the metrics port the flags configure.
  const metricsPort = container.ports.find((p: Doc) => p.name === 'metrics').containerPort;
  assert.equal(flags.metricsAddress, `0.0.0.0:${metricsPort}`);
  const server = new MetricsServer({ address: '127.0.0.1:0', registry: new Registry(), ready: () => true });
  const address = await server.listen();
  try {
    for (const probe of [container.livenessProbe, container.readinessProbe]) {
      assert.equal(probe.httpGet.port, 'metrics');
      const response = await fetch(`${address}${probe.httpGet.path}`);
      assert.equal(response.status, 200, probe.httpGet.path);
    }
  } finally {
    await server.close();
  }
});

// Structural check against the Kubernetes API models of @kubernetes/client-node: every field must be
// one the type has, with a value of its JSON type. Catches typos kubectl would reject on a real cluster.
function checkShape(value: unknown, type: string, at: string, problems: string[]): void {
  if (value === null || value === undefined) return;
  const array = /^Array<(.+)>$/.exec(type);
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (type === 'any') return;
  if (array) {
    if (!Array.isArray(value)) problems.push(`${at}: want an array`);
    else for (const [i, item] of value.entries()) checkShape(item, array[1]!, `${at}[${i}]`, problems);
  } else if (map) {
    if (typeof value !== 'object' || Array.isArray(value)) problems.push(`${at}: want a map`);
    else for (const [k, v] of Object.entries(value)) checkShape(v, map[1]!, `${at}.${k}`, problems);
  } else if (type === 'string' || type === 'Date') {
    if (typeof value !== 'string') problems.push(`${at}: want a string`);
  } else if (type === 'number' || type === 'boolean') {
    if (typeof value !== type) problems.push(`${at}: want a ${type}`);
  } else if (type === 'IntOrString') {
    if (typeof value !== 'string' && typeof value !== 'number') problems.push(`${at}: want an int or string`);
  } else {
    const model = (k8s as unknown as Record<string, { getAttributeTypeMap?: () => Doc[] }>)[type];
    if (!model?.getAttributeTypeMap) {
      problems.push(`${at}: unknown model ${type}`);
      return;
    }
    if (typeof value !== 'object' || Array.isArray(value)) {
      problems.push(`${at}: want an object (${type})`);
      return;
    }
    const attributes = new Map(
      model.getAttributeTypeMap().map((a) => [a.baseName as string, a.type as string]),
    );
    for (const [field, v] of Object.entries(value)) {
      const fieldType = attributes.get(field);
      if (fieldType === undefined) problems.push(`${at}.${field}: not a field of ${type}`);
      else checkShape(v, fieldType, `${at}.${field}`, problems);
    }
  }
}

const KNOWN_API_VERSIONS: Record<string, string[]> = {
  v1: ['Namespace', 'ServiceAccount', 'Service'],
  'apps/v1': ['Deployment'],
  'policy/v1': ['PodDisruptionBudget'],
  'rbac.authorization.k8s.io/v1': ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'],
  'admissionregistration.k8s.io/v1': ['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding'],
  'apiextensions.k8s.io/v1': ['CustomResourceDefinition'],
  'nodeherd.io/v1alpha1': ['NodeConfig', 'NodeConfigPool'],
};

test('every document under deploy/ parses, has a known kind and apiVersion, and fits the Kubernetes model', () => {
  const docs = loadDeploy();
  assert.ok(docs.length >= 20);
  for (const { file, doc } of docs) {
    const where = `${file.slice(repositoryRoot.length + 1)} ${doc.kind}/${doc.metadata?.name}`;
    assert.ok(
      KNOWN_API_VERSIONS[doc.apiVersion]?.includes(doc.kind),
      `${where}: unknown ${doc.apiVersion} ${doc.kind}`,
    );
    assert.ok(typeof doc.metadata?.name === 'string' && doc.metadata.name !== '', `${where}: metadata.name`);
    // nodeherd.io objects are checked by the embedded server's own schema (kubectl below).
    if (doc.apiVersion.startsWith('nodeherd.io/')) continue;
    const problems: string[] = [];
    checkShape(doc, `V1${doc.kind}`, doc.kind, problems);
    assert.deepEqual(problems, [], where);
  }
  const problems: string[] = [];
  checkShape({ spec: { replicas: '2', templte: {} } }, 'V1Deployment', 'Deployment', problems);
  assert.deepEqual(problems, [
    'Deployment.spec.replicas: want a number',
    'Deployment.spec.templte: not a field of V1DeploymentSpec',
  ]);
});

let apiServer: LocalApiServer;
before(async () => {
  apiServer = await startLocalApiServer();
});
after(async () => {
  await apiServer?.stop();
});

test('kubectl apply --dry-run=client -R -f deploy/ accepts every document whose kind the embedded server serves', async () => {
  // The embedded server serves what nodeherd uses, not RBAC, Deployments, Services or admission
  // policies; kubectl cannot map those kinds there, so they are checked structurally (test above).
  const resources = await apiServer.kubectl(['api-resources', '--no-headers', '-o', 'wide']);
  assert.equal(resources.code, 0, resources.stderr);
  const served = new Set(
    resources.stdout
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter((cols) => cols.length >= 4)
      .map((cols) => {
        // NAME [SHORTNAMES] APIVERSION NAMESPACED KIND VERBS [CATEGORIES]
        const namespacedAt = cols.findIndex((c) => c === 'true' || c === 'false');
        return `${cols[namespacedAt - 1]} ${cols[namespacedAt + 1]}`;
      }),
  );
  assert.ok(
    served.has('v1 Namespace') && served.has('policy/v1 PodDisruptionBudget'),
    [...served].join(', '),
  );

  const result = await apiServer.kubectl(
    ['apply', '--dry-run=client', '-R', '-f', join(repositoryRoot, 'deploy')],
    {
      timeoutMs: 120_000,
    },
  );
  const docs = loadDeploy().map((d) => d.doc);
  for (const doc of docs) {
    const name = doc.metadata.name;
    if (served.has(`${doc.apiVersion} ${doc.kind}`)) {
      const line = new RegExp(
        `^${doc.kind.toLowerCase()}[.a-z0-9]*/${name} (created|configured|unchanged) \\(dry run\\)$`,
        'm',
      );
      assert.match(result.stdout, line, `${doc.kind}/${name} not accepted:\n${result.stderr}`);
    } else {
      assert.ok(
        result.stderr.includes(`no matches for kind "${doc.kind}" in version "${doc.apiVersion}"`),
        `${doc.kind}/${name}: expected only a mapping error, got:\n${result.stderr}`,
      );
    }
  }
  // Nothing else went wrong: every error line is one of those mapping errors.
  const otherErrors = result.stderr
    .split('\n')
    .filter((line) => line.trim() !== '')
    .filter(
      (line) =>
        !/no matches for kind "[A-Za-z]+" in version/.test(line) &&
        line !== 'ensure CRDs are installed first',
    );
  assert.deepEqual(otherErrors, []);
  assert.ok(docs.filter((d) => served.has(`${d.apiVersion} ${d.kind}`)).length >= 5);
});

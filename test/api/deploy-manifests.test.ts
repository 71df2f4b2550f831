import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { parseAllDocuments } from 'yaml';
import { parseAgentConfig } from '../../src/agent/agent-config.ts';
import {
  AGENT_CLUSTER_RULES,
  AGENT_SERVICE_ACCOUNT_GROUP,
  AGENT_SERVICE_ACCOUNT_NAMESPACE,
} from '../../src/api/agent-cluster-rules.ts';
import { CONTROLLER_RULES } from '../../src/api/controller-rules.ts';
import { controllerArgs } from '../../src/api/deploy-manifests.ts';
import { repositoryRoot } from '../../src/api/generate-crds.ts';
import { generatedDeployFiles, unexpectedDeployFiles } from '../../src/api/generate-deploy.ts';
import { NAMESPACE as NODEHERD_NAMESPACE } from '../../src/api/group.ts';
import { AGENT_DAEMONSET_SERVICE_ACCOUNT, AGENT_NAMESPACE } from '../../src/api/users.ts';
import type { RequestVerb, ResourceAttributes } from '../../src/apiserver/auth/authorizer.ts';

import { agentMayUseBoundPod } from '../../src/apiserver/auth/node-bound-pods.ts';
import { controllerCommand } from '../../src/controller/controller-command.ts';
import { MetricsServer } from '../../src/controller/metrics-server.ts';
import { authorize } from '../../src/profile/nodeherd-authorization.ts';
import { nodeherdIdentities } from '../../src/profile/nodeherd-identities.ts';
import { revisionsReferenceSecret } from '../../src/profile/referenced-secrets.ts';
import { type LocalApiServer, startLocalApiServer } from '../support/local-apiserver.ts';

type Doc = Record<string, any>;

interface LoadedDoc {
  file: string;
  doc: Doc;
}

/** YAML files of objects (kustomization.yaml files are kustomize's configuration, not objects). */
function yamlFilesUnder(directory: string): string[] {
  return readdirSync(directory)
    .sort()
    .flatMap((name) => {
      const path = join(directory, name);
      // deploy/prometheus holds Prometheus's own files (a rule file, a scrape job), not objects.
      if (path.endsWith('/deploy/prometheus')) return [];
      if (statSync(path).isDirectory()) return yamlFilesUnder(path);
      // A kustomization.yaml lists manifests; it is not one (checked by kubectl kustomize below).
      return /\.ya?ml$/.test(name) && !/^kustomization\.ya?ml$/.test(name) ? [path] : [];
    });
}

/** Every document of a multi-document YAML text, parsed strictly (a syntax error fails). */
function parseDocs(text: string, source: string): Doc[] {
  return parseAllDocuments(text).flatMap((document) => {
    assert.deepEqual(document.errors, [], `${source}: YAML errors`);
    const doc = document.toJS() as Doc | null;
    return doc === null ? [] : [doc];
  });
}

/** Every document of every YAML file under deploy/. */
function loadDeploy(): LoadedDoc[] {
  return yamlFilesUnder(join(repositoryRoot, 'deploy')).flatMap((file) =>
    parseDocs(readFileSync(file, 'utf8'), file).map((doc) => ({ file, doc })),
  );
}

const objectKey = (doc: Doc) => `${doc.kind} ${doc.metadata?.namespace ?? ''}/${doc.metadata?.name}`;

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
  const controller = nodeherdIdentities.identityFor('controller');
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
  const identity = nodeherdIdentities.identityFor('node', node);
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
  for (const group of [
    nodeherdIdentities.identityFor('node', 'worker-1').groups[0],
    AGENT_SERVICE_ACCOUNT_GROUP,
  ]) {
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
  const agent = nodeherdIdentities.identityFor('node', 'worker-1');
  const daemonSetUser = `system:serviceaccount:${AGENT_NAMESPACE}:${AGENT_DAEMONSET_SERVICE_ACCOUNT}`;
  assert.equal(
    policy.spec.matchConditions[0].expression,
    `'${agent.groups[0]}' in request.userInfo.groups || '${AGENT_SERVICE_ACCOUNT_GROUP}' in request.userInfo.groups || ` +
      `request.userInfo.username == '${daemonSetUser}'`,
  );
  // The node name is what follows the embedded server's agent user prefix, or the service account's.
  const prefix = agent.name.slice(0, -'worker-1'.length);
  const serviceAccountPrefix = `system:serviceaccount:${AGENT_SERVICE_ACCOUNT_NAMESPACE}:`;
  const after = (p: string) =>
    `request.userInfo.username.startsWith('${p}') ? request.userInfo.username.substring(${p.length})`;
  // The DaemonSet's one ServiceAccount: the node its token is bound to (Kubernetes 1.30+ user extra).
  const extra = "request.userInfo.extra['authentication.kubernetes.io/node-name']";
  const fromExtra =
    "has(request.userInfo.extra) && 'authentication.kubernetes.io/node-name' in request.userInfo.extra && " +
    `size(${extra}) > 0 ? ${extra}[0] : ''`;
  assert.equal(
    policy.spec.variables[0].expression,
    `request.userInfo.username == '${daemonSetUser}' ? (${fromExtra}) : ${after(prefix)} : ${after(serviceAccountPrefix)} : ''`,
  );
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
  // The image's entrypoint runs the controller (src/dist/images); the Deployment sets only its flags.
  assert.equal(container.command, undefined);
  assert.equal(container.workingDir, undefined);
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
  v1: ['Namespace', 'ServiceAccount', 'Service', 'Secret'],
  'apps/v1': ['Deployment', 'DaemonSet'],
  'policy/v1': ['PodDisruptionBudget'],
  'networking.k8s.io/v1': ['NetworkPolicy'],
  'rbac.authorization.k8s.io/v1': ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'],
  'admissionregistration.k8s.io/v1': ['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding'],
  'apiextensions.k8s.io/v1': ['CustomResourceDefinition'],
  'nodeherd.io/v1alpha1': ['NodeConfig', 'NodeConfigPool'],
  // deploy/components/prometheus, for the Prometheus Operator (its rules: test/prometheus/).
  'monitoring.coreos.com/v1': ['ServiceMonitor', 'PrometheusRule'],
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
    // nodeherd.io objects are checked by the embedded server's own schema (kubectl below), the
    // Prometheus Operator's by promtool and kustomize (test/prometheus/, the overlay test below).
    if (doc.apiVersion.startsWith('nodeherd.io/') || doc.apiVersion.startsWith('monitoring.coreos.com/'))
      continue;
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

/** The kinds the embedded server serves, as "apiVersion Kind". */
async function servedKinds(): Promise<Set<string>> {
  const resources = await apiServer.kubectl(['api-resources', '--no-headers', '-o', 'wide']);
  assert.equal(resources.code, 0, resources.stderr);
  return new Set(
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
}

/**
 * Applies with kubectl (`args` name what) and checks that every document of `docs` whose kind the
 * embedded server serves is accepted, and that every other one fails only because kubectl cannot map
 * its kind there. The embedded server now serves every kind deploy/ ships (issue 33), so all apply;
 * they are also checked structurally (test above). Returns how many were applied.
 */
async function assertApplied(args: string[], docs: Doc[], served: Set<string>): Promise<number> {
  const result = await apiServer.kubectl(['apply', ...args], { timeoutMs: 120_000 });
  for (const doc of docs) {
    const name = doc.metadata.name;
    if (served.has(`${doc.apiVersion} ${doc.kind}`)) {
      const line = new RegExp(
        `^${doc.kind.toLowerCase()}[.a-z0-9]*/${name} (created|configured|unchanged) \\((server )?dry run\\)$`,
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
  // Nothing else went wrong: every error line is one of those mapping errors (or kubectl's note that
  // it adds its last-applied annotation to an object the server already has).
  const otherErrors = result.stderr
    .split('\n')
    .filter((line) => line.trim() !== '')
    .filter(
      (line) =>
        !/no matches for kind "[A-Za-z]+" in version/.test(line) &&
        line !== 'ensure CRDs are installed first' &&
        !/^Warning: resource \S+ is missing the kubectl.kubernetes.io\/last-applied-configuration annotation/.test(
          line,
        ),
    );
  assert.deepEqual(otherErrors, []);
  return docs.filter((d) => served.has(`${d.apiVersion} ${d.kind}`)).length;
}

/** `kubectl kustomize <dir>` (kubectl's built-in kustomize), parsed. */
async function kustomize(directory: string): Promise<Doc[]> {
  const result = await apiServer.kubectl(['kustomize', directory]);
  assert.equal(result.code, 0, result.stderr);
  return parseDocs(result.stdout, `kubectl kustomize ${directory}`);
}

// The base holds everything but the samples and the agent DaemonSet (a kustomization an overlay adds).
const baseDocs = () =>
  loadDeploy()
    .filter(
      ({ file }) =>
        !file.includes('/deploy/samples/') &&
        !file.includes('/deploy/agent-daemonset/') &&
        !file.includes('/deploy/components/'),
    )
    .map(({ doc }) => doc);

test('kubectl kustomize deploy/ renders exactly the CRDs, controller and agent manifests, unchanged, and no samples', async () => {
  const rendered = await kustomize(join(repositoryRoot, 'deploy'));
  const expected = baseDocs();
  assert.deepEqual(rendered.map(objectKey).sort(), expected.map(objectKey).sort());
  const byKey = new Map(expected.map((doc) => [objectKey(doc), doc]));
  for (const doc of rendered) assert.deepEqual(doc, byKey.get(objectKey(doc)), objectKey(doc));
  assert.ok(
    !rendered.some((doc) => doc.apiVersion.startsWith('nodeherd.io/')),
    'samples are not in the base',
  );
  // Kustomize puts Namespaces and CRDs before what lives in them, so one apply works on an empty cluster.
  const kinds = rendered.map((doc) => doc.kind);
  assert.ok(kinds.lastIndexOf('Namespace') < kinds.indexOf('ServiceAccount'));
  assert.ok(kinds.lastIndexOf('CustomResourceDefinition') < kinds.indexOf('Deployment'));
});

test('every overlay example under examples/overlays renders; the image overlay sets the controller image', async () => {
  const overlays = join(repositoryRoot, 'examples/overlays');
  const names = readdirSync(overlays).filter((name) => statSync(join(overlays, name)).isDirectory());
  assert.ok(names.includes('image'), names.join(', '));
  const base = baseDocs();
  for (const name of names) {
    const rendered = await kustomize(join(overlays, name));
    const keys = new Set(rendered.map(objectKey));
    for (const doc of base) assert.ok(keys.has(objectKey(doc)), `${name}: ${objectKey(doc)} missing`);
  }
  const overlay = parseDocs(
    readFileSync(join(overlays, 'image/kustomization.yaml'), 'utf8'),
    'examples/overlays/image',
  )[0]!;
  const [image] = overlay.images;
  assert.ok(names.includes('daemonset'), names.join(', '));
  const withAgents = await kustomize(join(overlays, 'daemonset'));
  const daemonSet = withAgents.find((doc) => doc.kind === 'DaemonSet');
  assert.ok(daemonSet, 'the daemonset overlay adds the agent DaemonSet');
  assert.match(
    daemonSet.spec.template.spec.containers[0].image,
    /^registry\.example\.com\/nodeherd\/nodeherd-agent:/,
  );
  const rendered = await kustomize(join(overlays, 'image'));
  assert.ok(!rendered.some((doc) => doc.kind === 'DaemonSet'), 'the base runs no agent pods');
  const deployment = rendered.find((doc) => doc.kind === 'Deployment')!;
  const baseDeployment = docsOf('Deployment', 'nodeherd-controller')[0]!;
  assert.equal(baseDeployment.spec.template.spec.containers[0].image.split(':')[0], image.name);
  assert.equal(deployment.spec.template.spec.containers[0].image, `${image.newName}:${image.newTag}`);
});

test('kubectl apply -k deploy/ --dry-run=server: the embedded server accepts every object of a kind it serves', async () => {
  const served = await servedKinds();
  assert.ok(
    served.has('v1 Namespace') && served.has('policy/v1 PodDisruptionBudget'),
    [...served].join(', '),
  );
  const applied = await assertApplied(
    ['-k', join(repositoryRoot, 'deploy'), '--dry-run=server'],
    baseDocs(),
    served,
  );
  assert.ok(applied >= 5, `${applied} objects applied`);
});

test('kubectl apply --dry-run=server -f deploy/samples/ accepts the samples', async () => {
  const samples = loadDeploy()
    .filter(({ file }) => file.includes('/deploy/samples/'))
    .map(({ doc }) => doc);
  assert.ok(samples.length >= 2);
  const applied = await assertApplied(
    ['--dry-run=server', '-f', join(repositoryRoot, 'deploy/samples')],
    samples,
    await servedKinds(),
  );
  assert.equal(applied, samples.length);
});

test('deploy/agent-daemonset: kubectl kustomize renders it alone; a privileged hostPID pod whose env the agent reads as DaemonSet mode', async () => {
  const rendered = await apiServer.kubectl(['kustomize', join(repositoryRoot, 'deploy/agent-daemonset')]);
  assert.equal(rendered.code, 0, rendered.stderr);
  const docs = parseAllDocuments(rendered.stdout).map((d) => d.toJS() as Doc);
  assert.deepEqual(docs.map((d) => `${d.kind}/${d.metadata.name}`).sort(), [
    'ClusterRoleBinding/nodeherd-agent-daemonset',
    'DaemonSet/nodeherd-agent',
    'RoleBinding/nodeherd-agent-daemonset',
    'ServiceAccount/nodeherd-agent',
  ]);
  // The ServiceAccount gets exactly the agent roles of deploy/agent.
  const account = {
    kind: 'ServiceAccount',
    name: AGENT_DAEMONSET_SERVICE_ACCOUNT,
    namespace: AGENT_NAMESPACE,
  };
  for (const binding of docs.filter((d) => d.kind.endsWith('Binding'))) {
    assert.deepEqual(binding.subjects, [account]);
    assert.equal(binding.roleRef.name, 'nodeherd-agent');
    assert.equal(docsOf(binding.roleRef.kind, 'nodeherd-agent').length, 1, `${binding.roleRef.kind} exists`);
  }
  const daemonSet = docs.find((d) => d.kind === 'DaemonSet')!;
  assert.equal(daemonSet.metadata.namespace, AGENT_NAMESPACE);
  const pod = daemonSet.spec.template.spec;
  assert.equal(pod.serviceAccountName, AGENT_DAEMONSET_SERVICE_ACCOUNT);
  assert.equal(pod.hostPID, true);
  assert.equal(pod.hostNetwork, true);
  assert.deepEqual(pod.tolerations, [{ operator: 'Exists' }]);
  const [container] = pod.containers;
  assert.equal(container.securityContext.privileged, true);
  // A limit far above the agent's own use: a bound on a runaway, not a budget dpkg could hit.
  assert.equal(container.resources.limits.memory, '2Gi');
  const mounts = Object.fromEntries(container.volumeMounts.map((m: Doc) => [m.name, m.mountPath]));
  const volumes = Object.fromEntries(pod.volumes.map((v: Doc) => [v.name, v.hostPath.path]));
  assert.deepEqual(volumes, { host: '/', state: '/var/lib/nodeherd' });
  // The environment the kubelet gives the container, read by the agent's own parser.
  const env: Record<string, string> = { NODE_NAME: 'worker-7' };
  for (const entry of container.env) if (entry.value !== undefined) env[entry.name] = entry.value;
  assert.equal(
    container.env.find((e: Doc) => e.name === 'NODE_NAME').valueFrom.fieldRef.fieldPath,
    'spec.nodeName',
  );
  const config = parseAgentConfig([], env)!;
  assert.equal(config.nodeName, 'worker-7');
  assert.equal(config.inCluster, true);
  assert.equal(config.rootDir, mounts.host);
  assert.equal(config.hostPid, 1);
  assert.equal(config.stateDir, mounts.state);
  assert.equal(config.backend, 'real');
  // The checks the rest of deploy/ gets.
  for (const doc of docs) {
    const problems: string[] = [];
    checkShape(doc, `V1${doc.kind}`, doc.kind, problems);
    assert.deepEqual(problems, [], `${doc.kind}/${doc.metadata.name}`);
  }
});

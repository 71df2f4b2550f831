// issue 31: the controller's RBAC in deploy/ is what it uses and no more. The base (kubectl kustomize
// deploy/) reads Secrets only in nodeherd, lists no namespaces, configmaps, CRDs or PDBs, and neither
// deletes pods nor touches DaemonSets: what only the opt-in DaemonSet update strategies need comes with
// the kustomize component deploy/components/daemonset-updates, which also turns the feature on.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { repositoryRoot } from '../../src/api/generated-files.ts';

type Doc = Record<string, any>;

function kustomize(directory: string): Promise<Doc[]> {
  return new Promise((resolve, reject) => {
    execFile('kubectl', ['kustomize', directory], { maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`kubectl kustomize ${directory}: ${stderr}`));
      else resolve(parseAllDocuments(stdout).map((d) => d.toJS() as Doc));
    });
  });
}

interface Request {
  verb: string;
  group: string;
  resource: string;
  namespace?: string;
}

/** Kubernetes RBAC for the controller's ServiceAccount over these documents. */
function allows(docs: Doc[], req: Request): boolean {
  const isController = (b: Doc) =>
    (b.subjects ?? []).some(
      (s: Doc) =>
        s.kind === 'ServiceAccount' && s.name === 'nodeherd-controller' && s.namespace === 'nodeherd',
    );
  const rules = (bindingKind: string, roleKind: string, namespace?: string) =>
    docs
      .filter((b) => b.kind === bindingKind && b.metadata.namespace === namespace && isController(b))
      .flatMap((b) =>
        docs.filter(
          (r) =>
            r.kind === roleKind && r.metadata.name === b.roleRef.name && r.metadata.namespace === namespace,
        ),
      )
      .flatMap((r) => r.rules as Doc[]);
  const all = [
    ...rules('ClusterRoleBinding', 'ClusterRole'),
    ...(req.namespace ? rules('RoleBinding', 'Role', req.namespace) : []),
  ];
  return all.some(
    (rule) =>
      (rule.apiGroups.includes('*') || rule.apiGroups.includes(req.group)) &&
      (rule.resources.includes('*') || rule.resources.includes(req.resource)) &&
      (rule.verbs.includes('*') || rule.verbs.includes(req.verb)),
  );
}

const controllerArgs = (docs: Doc[]): string[] =>
  docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'nodeherd-controller')!.spec.template.spec
    .containers[0].args;

// Deleting pods is in the base since a pool's drain may Force (spec.drain.onTimeout); the component
// still lists it for clusters that deploy its rules alone.
const DAEMONSET_ONLY: Request[] = [
  { verb: 'patch', group: '', resource: 'pods/status', namespace: 'default' },
  { verb: 'list', group: 'apps', resource: 'daemonsets' },
  { verb: 'watch', group: 'apps', resource: 'controllerrevisions' },
];

test('the base deploy/ grants the controller only what it uses', async () => {
  const base = await kustomize(join(repositoryRoot, 'deploy'));
  const denied: Request[] = [
    ...DAEMONSET_ONLY,
    { verb: 'update', group: 'apps', resource: 'daemonsets', namespace: 'default' },
    { verb: 'get', group: '', resource: 'secrets', namespace: 'kube-system' },
    { verb: 'list', group: '', resource: 'secrets' },
    { verb: 'list', group: '', resource: 'configmaps' },
    { verb: 'list', group: '', resource: 'namespaces' },
    { verb: 'list', group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' },
    { verb: 'list', group: 'policy', resource: 'poddisruptionbudgets' },
    { verb: 'list', group: 'coordination.k8s.io', resource: 'leases' },
    { verb: 'delete', group: 'nodeherd.io', resource: 'nodeconfigs' },
    { verb: 'update', group: '', resource: 'nodes' },
  ];
  for (const req of denied) assert.equal(allows(base, req), false, JSON.stringify(req));
  const granted: Request[] = [
    { verb: 'watch', group: '', resource: 'secrets', namespace: 'nodeherd' },
    { verb: 'patch', group: '', resource: 'nodes' },
    { verb: 'create', group: '', resource: 'pods/eviction', namespace: 'default' },
    { verb: 'delete', group: '', resource: 'pods', namespace: 'default' },
    { verb: 'create', group: 'nodeherd.io', resource: 'nodeconfigrevisions' },
    { verb: 'update', group: 'coordination.k8s.io', resource: 'leases', namespace: 'nodeherd' },
  ];
  for (const req of granted) assert.equal(allows(base, req), true, JSON.stringify(req));
  assert.ok(!controllerArgs(base).some((a) => a.startsWith('--daemonset-updates')), 'off in the base');
});

test('the daemonset-updates component brings the rules only that feature needs, and turns it on', async () => {
  const withUpdates = await kustomize(join(repositoryRoot, 'examples/overlays/daemonset-updates'));
  for (const req of DAEMONSET_ONLY) assert.equal(allows(withUpdates, req), true, JSON.stringify(req));
  assert.equal(allows(withUpdates, { verb: 'update', group: 'apps', resource: 'daemonsets' }), false);
  assert.ok(controllerArgs(withUpdates).includes('--daemonset-updates=true'));
});

test('Prometheus can scrape /metrics: a metrics-reader ClusterRole, bound to a ServiceAccount with a token', async () => {
  const base = await kustomize(join(repositoryRoot, 'deploy'));
  const role = base.find((d) => d.kind === 'ClusterRole' && d.metadata.name === 'nodeherd-metrics-reader');
  assert.deepEqual(role?.rules, [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }]);
  const binding = base.find(
    (d) => d.kind === 'ClusterRoleBinding' && d.roleRef?.name === 'nodeherd-metrics-reader',
  );
  assert.deepEqual(binding?.subjects, [
    { kind: 'ServiceAccount', name: 'nodeherd-metrics-reader', namespace: 'nodeherd' },
  ]);
  const token = base.find((d) => d.kind === 'Secret' && d.type === 'kubernetes.io/service-account-token');
  assert.equal(token?.metadata.annotations['kubernetes.io/service-account.name'], 'nodeherd-metrics-reader');
  assert.ok(controllerArgs(base).includes('--metrics-auth=true'));
  // The Service still points at the metrics port the controller serves.
  const service = base.find((d) => d.kind === 'Service' && d.metadata.name === 'nodeherd-controller-metrics');
  assert.equal(service?.spec.ports[0].targetPort, 'metrics');
});

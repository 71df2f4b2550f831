// The import rules between src/ folders (.dependency-cruiser.cjs) hold: dependency-cruiser reads every
// import, type-only ones included, and this test fails on any violation not in the allow-list below.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { cruise, type IConfiguration, type ICruiseResult } from 'dependency-cruiser';

const root = path.resolve(import.meta.dirname, '../..');
const config = createRequire(import.meta.url)(path.join(root, '.dependency-cruiser.cjs')) as IConfiguration;

// Known violations, each an import edge "from -> to" under its rule. The branch making src/apiserver
// generic and src/api independent of it removes these; then this list is deleted. A new violation, or
// an edge listed here that no longer exists, fails the test, so the list only ever shrinks.
const ALLOWED: Record<string, readonly string[]> = {
  'api-imports-nothing-above': [
    'src/api/agent-admission-policy.ts -> src/apiserver/auth/authorizer.ts',
    'src/api/agent-admission-policy.ts -> src/apiserver/auth/identities.ts',
    'src/api/agent-cluster-rules.ts -> src/apiserver/auth/authorizer.ts',
    'src/api/crds.ts -> src/apiserver/registry/resource-definition.ts',
    'src/api/deploy-manifests.ts -> src/apiserver/auth/authorizer.ts',
    'src/api/deploy-manifests.ts -> src/apiserver/auth/identities.ts',
    'src/api/field-errors.ts -> src/apiserver/errors.ts',
    'src/api/rbac-rules.ts -> src/apiserver/auth/authorizer.ts',
    'src/api/reference-doc.ts -> src/apiserver/registry/resource-definition.ts',
    'src/api/schema-builder.ts -> src/apiserver/registry/resource-definition.ts',
    'src/api/structural.ts -> src/apiserver/registry/resource-definition.ts',
  ],
  'apiserver-imports-no-nodeherd-code': [
    'src/apiserver/api-server.ts -> src/api/crds.ts',
    'src/apiserver/api-server.ts -> src/api/group.ts',
    'src/apiserver/api-server.ts -> src/dist/artefact-server.ts',
    'src/apiserver/auth/credentials.ts -> src/kube/kubeconfig-file.ts',
    'src/apiserver/auth/node-restriction.ts -> src/api/group.ts',
    'src/apiserver/auth/node-restriction.ts -> src/api/node-protocol.ts',
    'src/apiserver/auth/referenced-secrets.ts -> src/api/label-selector.ts',
    'src/apiserver/auth/referenced-secrets.ts -> src/api/node-protocol.ts',
    'src/apiserver/managedfields/managers.ts -> src/api/canonical-json.ts',
    'src/apiserver/parts.ts -> src/api/group.ts',
    'src/apiserver/parts.ts -> src/api/validation.ts',
  ],
};

test('src/ imports follow the layering rules', { timeout: 120_000 }, async () => {
  const rules = config.forbidden ?? [];
  assert.ok(
    rules.length >= 10,
    `expected the layering rules in .dependency-cruiser.cjs, found ${rules.length}`,
  );
  const result = await cruise(
    [path.join(root, 'src')],
    { ...config.options, baseDir: root, validate: true, ruleSet: { forbidden: rules } },
    undefined,
    {},
  );
  const output = result.output as ICruiseResult;
  // Guard against a parser that silently reads nothing (dependency-cruiser skips files it cannot parse).
  assert.ok(output.summary.totalCruised > 300, `only ${output.summary.totalCruised} modules read`);
  assert.ok(
    (output.summary.totalDependenciesCruised ?? 0) > 1000,
    'too few imports read: is the swc parser missing?',
  );

  const found = new Map<string, Set<string>>();
  for (const v of output.summary.violations) {
    const edges = found.get(v.rule.name) ?? new Set<string>();
    edges.add(`${v.from} -> ${v.to}`);
    found.set(v.rule.name, edges);
  }
  const unexpected: string[] = [];
  for (const [rule, edges] of found) {
    for (const edge of edges) if (!ALLOWED[rule]?.includes(edge)) unexpected.push(`${rule}: ${edge}`);
  }
  const gone: string[] = [];
  for (const [rule, edges] of Object.entries(ALLOWED)) {
    for (const edge of edges) if (!found.get(rule)?.has(edge)) gone.push(`${rule}: ${edge}`);
  }
  assert.deepEqual(
    unexpected,
    [],
    `imports against the layering (docs/architecture.md):\n  ${unexpected.join('\n  ')}`,
  );
  assert.deepEqual(
    gone,
    [],
    `allow-listed edges that no longer exist; delete them from ALLOWED:\n  ${gone.join('\n  ')}`,
  );
});

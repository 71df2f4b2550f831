// The import rules between src/ folders (.dependency-cruiser.cjs) hold: dependency-cruiser reads every
// import, type-only ones included, and this test fails on any violation not in the allow-list below.
// Every folder of src/ must be named by some rule, so a new folder is placed in the layering.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { cruise, type IConfiguration, type ICruiseResult } from 'dependency-cruiser';

const root = path.resolve(import.meta.dirname, '../..');
const config = createRequire(import.meta.url)(path.join(root, '.dependency-cruiser.cjs')) as IConfiguration;

// Known violations, each an import edge "from -> to" under its rule; none is left. A new violation, or
// an edge listed here that no longer exists, fails the test, so the list only ever shrinks.
const ALLOWED: Record<string, readonly string[]> = {};

test('every src/ folder is named by some layering rule', () => {
  // A pattern names a folder when it matches that folder and not just any folder ("^src/").
  const patterns = (config.forbidden ?? [])
    .flatMap((rule) => [rule.from, 'to' in rule ? rule.to : undefined])
    .flatMap((side) => [side?.path, side?.pathNot])
    .flatMap((pattern) => (pattern === undefined ? [] : [pattern].flat()))
    .map((pattern) => new RegExp(pattern))
    .filter((pattern) => !pattern.test('src/a-folder-no-rule-names/x.ts'));
  const folders = readdirSync(path.join(root, 'src'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
  assert.ok(folders.length >= 10, `only ${folders.length} folders in src/`);
  const unnamed = folders.filter((folder) => !patterns.some((pattern) => pattern.test(`src/${folder}/x.ts`)));
  assert.deepEqual(
    unnamed,
    [],
    `src/ folders no rule in .dependency-cruiser.cjs names: ${unnamed.join(', ')}`,
  );
});

test('src/ imports follow the layering rules', { timeout: 120_000 }, async () => {
  const rules = config.forbidden ?? [];
  assert.ok(
    rules.length >= 14,
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

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CliError } from '../../../src/cli/cli-error.ts';
import { parseConfigFile } from '../../../src/cli/plan/config-file.ts';
import { fieldSegments } from '../../../src/cli/plan/field-lines.ts';

function problems(text: string): string[] {
  try {
    parseConfigFile('c.yaml', text);
  } catch (error) {
    assert.ok(error instanceof CliError);
    return error.message.split('\n');
  }
  assert.fail('the file was accepted');
}

const HEAD = 'apiVersion: nodeherd.io/v1alpha1\nkind: NodeConfig\n';

test('field paths split into keys and indices', () => {
  assert.deepEqual(fieldSegments('spec.units[2].dropIns[0].name'), [
    'spec',
    'units',
    2,
    'dropIns',
    0,
    'name',
  ]);
});

test('each problem names the line of its field, across documents', () => {
  const text = [
    `${HEAD}metadata: {name: a}`,
    'spec:',
    '  packages:',
    '    - name: htop',
    '      state: gone',
    '---',
    `${HEAD}metadata: {name: b}`,
    'spec:',
    '  units:',
    '    - name: web.service',
    '      state: running',
    '      dropIns:',
    '        - content: "[Service]"',
    '',
  ].join('\n');
  assert.deepEqual(problems(text), [
    'c.yaml:7: spec.packages[0].state: Unsupported value: "gone": supported values: "present", "absent"',
    'c.yaml:17: spec.units[0].dropIns[0].name: Required value',
  ]);
});

test('a missing name, a duplicate name, a wrong apiVersion and broken YAML are reported with lines', () => {
  assert.deepEqual(problems(`${HEAD}metadata: {}\nspec: {}\n`), ['c.yaml:3: metadata.name: Required value']);
  assert.deepEqual(
    problems(`${HEAD}metadata: {name: a}\nspec: {}\n---\n${HEAD}metadata:\n  name: a\nspec: {}\n`),
    ['c.yaml:9: metadata.name: NodeConfig a is already defined on line 1'],
  );
  assert.deepEqual(problems('apiVersion: v1\nkind: NodeConfig\nmetadata: {name: a}\nspec: {}\n'), [
    'c.yaml:1: apiVersion: must be nodeherd.io/v1alpha1',
  ]);
  const broken = problems(`${HEAD}metadata: {name: a}\nspec:\n  files: [\n`);
  assert.equal(broken.length, 1);
  assert.match(broken[0]!, /^c\.yaml:\d+: invalid YAML: /);
});

test('other kinds are skipped, NodeConfigPools are read and validated, unknown fields are warnings with lines, a file without either is an error', () => {
  const pool =
    'apiVersion: nodeherd.io/v1alpha1\nkind: NodeConfigPool\nmetadata: {name: web}\nspec:\n  nodeSelector: {matchLabels: {role: web}}\n  configSelector: {matchLabels: {role: web}}\n';
  const file = parseConfigFile(
    'c.yaml',
    `kind: Deployment\nmetadata: {name: web}\n---\n${HEAD}metadata: {name: a}\nspec:\n  fles:\n    - path: /etc/x\n---\n${pool}`,
  );
  assert.deepEqual(
    file.configs.map((c) => [c.config.metadata.name, c.line]),
    [['a', 4]],
  );
  assert.deepEqual(
    file.pools.map((p) => [p.pool.metadata.name, p.line]),
    [['web', 11]],
  );
  assert.deepEqual(file.skipped, ['Deployment web (line 1)']);
  assert.deepEqual(file.warnings, ['c.yaml:8: spec.fles: unknown field: the API server drops it']);
  // A pool alone is a preview of the pool's change.
  assert.equal(parseConfigFile('c.yaml', pool).pools.length, 1);
  assert.deepEqual(problems('kind: Deployment\nmetadata: {name: web}\n'), [
    'c.yaml: no NodeConfig or NodeConfigPool in the file (found Deployment web (line 1))',
  ]);
  // A pool the API server would refuse names the field and its line.
  assert.deepEqual(
    problems(
      pool.replace('  configSelector: {matchLabels: {role: web}}\n', '  updateStrategy: {type: Nope}\n'),
    ),
    [
      'c.yaml:4: spec.configSelector: Required value',
      'c.yaml:6: spec.updateStrategy.type: Unsupported value: "Nope": supported values: "RollingUpdate", "Serial", "Spread", "OnDelete", "OTA"',
    ],
  );
});

test('YAML is read as kubectl reads it (YAML 1.1): mode 0644 is octal', () => {
  const text = [
    `${HEAD}metadata: {name: a}`,
    'spec:',
    '  files:',
    '    - path: /etc/a.conf',
    '      mode: 0644',
    '      content: {inline: {data: x}}',
  ].join('\n');
  const file = parseConfigFile('c.yaml', text);
  assert.equal(file.configs[0]?.config.spec.files?.[0]?.mode, 0o644);
});

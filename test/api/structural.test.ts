import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { nodeConfigPoolSpecSchema } from '../../src/api/node-config-pool-schema.ts';
import { nodeConfigSpecSchema } from '../../src/api/node-config-schema.ts';
import { type DefaultedPoolSpec, defaultedPoolSpec } from '../../src/api/pool-defaults.ts';
import { array, defaulted, integer, object, optional, string } from '../../src/api/schema-builder.ts';
import { applyDefaults, pruneUnknown } from '../../src/api/structural.ts';
import type { NodeConfigPoolSpec } from '../../src/api/types.ts';

describe('schema builder', () => {
  test('lists required properties only; optional and defaulted ones are not required', () => {
    const schema = object(
      {
        a: string('A.'),
        b: optional(integer('B.')),
        c: defaulted(integer('C.'), 3),
        d: array(string('D.'), 'Ds.'),
      },
      'Thing.',
    );
    assert.deepEqual(schema.json, {
      type: 'object',
      description: 'Thing.',
      properties: {
        a: { type: 'string', description: 'A.' },
        b: { type: 'integer', description: 'B.' },
        c: { type: 'integer', description: 'C.', default: 3 },
        d: { type: 'array', description: 'Ds.', items: { type: 'string', description: 'D.' } },
      },
      required: ['a', 'd'],
    });
  });

  test('every property of the nodeherd schemas has a type (or is int-or-string) and a description', () => {
    const problems: string[] = [];
    const walk = (path: string, s: Record<string, any>) => {
      if (!s.type && !s['x-kubernetes-int-or-string']) problems.push(`${path}: no type`);
      if (!s.description && path.split('.').length > 1) problems.push(`${path}: no description`);
      for (const [name, child] of Object.entries(s.properties ?? {})) walk(`${path}.${name}`, child as any);
      if (s.items) walk(`${path}[]`, s.items);
      // Structural schemas allow only constraints (here: required) inside oneOf.
      for (const branch of s.oneOf ?? []) {
        if (Object.keys(branch).some((k) => k !== 'required'))
          problems.push(`${path}: oneOf with more than required`);
      }
    };
    walk('NodeConfig', nodeConfigSpecSchema.json);
    walk('NodeConfigPool', nodeConfigPoolSpecSchema.json);
    assert.deepEqual(problems, []);
  });
});

describe('applyDefaults', () => {
  test('fills defaults at every depth, including inside a defaulted {}', () => {
    const spec = applyDefaults(nodeConfigSpecSchema.json, {
      files: [{ path: '/a', content: { inline: { data: 'x' } } }],
      units: [{ name: 'a.service' }],
    });
    assert.deepEqual(spec, {
      files: [
        {
          path: '/a',
          content: { inline: { data: 'x', encoding: 'plain' } },
          mode: 420,
          owner: 'root',
          group: 'root',
        },
      ],
      units: [{ name: 'a.service', dropIns: [], filePaths: [], packages: [] }],
      repositories: [],
      packages: [],
      disruptionPolicies: { files: [], units: [], packages: [] },
    });
  });

  test('keeps given values and does not modify its input', () => {
    const input = {
      files: [{ path: '/a', mode: 0o600, content: { inline: { data: 'x', encoding: 'base64' } } }],
    };
    const copy = structuredClone(input);
    const spec = applyDefaults(nodeConfigSpecSchema.json, input) as any;
    assert.deepEqual(input, copy);
    assert.equal(spec.files[0].mode, 0o600);
    assert.equal(spec.files[0].content.inline.encoding, 'base64');
  });

  test('defaults NodeConfigPool strategy settings', () => {
    const spec = applyDefaults(nodeConfigPoolSpecSchema.json, {
      nodeSelector: {},
      configSelector: {},
      updateStrategy: { rollingUpdate: {} },
    }) as any;
    assert.equal(spec.updateStrategy.type, 'RollingUpdate');
    assert.equal(spec.updateStrategy.rollingUpdate.maxUnavailable, 1);
    assert.deepEqual(spec.updateStrategy.rollingUpdate.failurePolicy, { action: 'Pause', maxFailures: 0 });
    assert.equal(spec.revisionHistoryLimit, 10);
    assert.equal(spec.paused, false);
  });

  test('leaves wrongly typed values for validation', () => {
    assert.deepEqual(applyDefaults(nodeConfigSpecSchema.json, { files: 'nope' }), {
      files: 'nope',
      units: [],
      repositories: [],
      packages: [],
      disruptionPolicies: { files: [], units: [], packages: [] },
    });
  });
});

describe('pruneUnknown', () => {
  test('drops fields the schema does not declare, at every depth', () => {
    const pruned = pruneUnknown(nodeConfigSpecSchema.json, {
      extra: true,
      files: [{ path: '/a', typo: 1, content: { inline: { data: 'x', junk: 2 } } }],
      units: [{ name: 'a.service', healthProbe: { exec: { command: ['true'], shell: true } } }],
    });
    assert.deepEqual(pruned, {
      files: [{ path: '/a', content: { inline: { data: 'x' } } }],
      units: [{ name: 'a.service', healthProbe: { exec: { command: ['true'] } } }],
    });
  });

  test('keeps map entries of additionalProperties', () => {
    const pruned = pruneUnknown(nodeConfigPoolSpecSchema.json, { nodeSelector: { matchLabels: { a: 'b' } } });
    assert.deepEqual(pruned, { nodeSelector: { matchLabels: { a: 'b' } } });
  });
});

describe('defaultedPoolSpec', () => {
  const selectors = { nodeSelector: {}, configSelector: {} };
  const cases: [string, NodeConfigPoolSpec, (spec: DefaultedPoolSpec) => unknown, unknown][] = [
    ['RollingUpdate gets its settings', selectors, (s) => s.updateStrategy.rollingUpdate?.maxUnavailable, 1],
    [
      'given rolling update settings are kept and completed',
      { ...selectors, updateStrategy: { rollingUpdate: { maxUnavailable: '20%' } } },
      (s) => [
        s.updateStrategy.rollingUpdate?.maxUnavailable,
        s.updateStrategy.rollingUpdate?.progressDeadlineSeconds,
      ],
      ['20%', 600],
    ],
    [
      'Serial gets one slot',
      { ...selectors, updateStrategy: { type: 'Serial' } },
      (s) => s.updateStrategy.serial,
      { slots: 1, leaseDurationSeconds: 600 },
    ],
    [
      'Serial gets no rolling update settings',
      { ...selectors, updateStrategy: { type: 'Serial' } },
      (s) => s.updateStrategy.rollingUpdate,
      undefined,
    ],
    [
      'OnDelete taints nothing by default',
      { ...selectors, updateStrategy: { type: 'OnDelete' } },
      (s) => s.updateStrategy.onDelete,
      { outdatedTaint: 'None' },
    ],
    ['pool-level defaults', selectors, (s) => [s.paused, s.revisionHistoryLimit], [false, 10]],
  ];
  for (const [name, spec, pick, expected] of cases)
    test(name, () => assert.deepEqual(pick(defaultedPoolSpec(spec)), expected));
});

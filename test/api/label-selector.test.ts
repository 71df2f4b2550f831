import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { labelKeyProblem, labelValueProblem, matchesLabelSelector } from '../../src/api/label-selector.ts';
import type { LabelSelector } from '../../src/api/types.ts';

describe('matchesLabelSelector', () => {
  const labels = { role: 'worker', zone: 'a', gpu: '' };
  const cases: [string, LabelSelector, boolean][] = [
    ['empty selector', {}, true],
    ['matchLabels hit', { matchLabels: { role: 'worker' } }, true],
    ['matchLabels miss', { matchLabels: { role: 'master' } }, false],
    ['matchLabels with an empty value', { matchLabels: { gpu: '' } }, true],
    ['In hit', { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }, true],
    ['In miss', { matchExpressions: [{ key: 'zone', operator: 'In', values: ['c'] }] }, false],
    ['In on a missing key', { matchExpressions: [{ key: 'rack', operator: 'In', values: ['1'] }] }, false],
    ['NotIn hit', { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['c'] }] }, true],
    [
      'NotIn on a missing key matches',
      { matchExpressions: [{ key: 'rack', operator: 'NotIn', values: ['1'] }] },
      true,
    ],
    ['NotIn miss', { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }, false],
    ['Exists', { matchExpressions: [{ key: 'gpu', operator: 'Exists' }] }, true],
    ['DoesNotExist', { matchExpressions: [{ key: 'gpu', operator: 'DoesNotExist' }] }, false],
    [
      'all requirements ANDed',
      { matchLabels: { role: 'worker' }, matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] },
      false,
    ],
  ];
  for (const [name, selector, expected] of cases) {
    test(name, () => assert.equal(matchesLabelSelector(selector, labels), expected));
  }
  test('undefined labels are an empty set', () => {
    assert.equal(matchesLabelSelector({}, undefined), true);
    assert.equal(matchesLabelSelector({ matchLabels: { a: 'b' } }, undefined), false);
  });
});

describe('label keys and values', () => {
  const keys: [string, boolean][] = [
    ['app', true],
    ['app.kubernetes.io/name', true],
    ['node-role.kubernetes.io/worker', true],
    ['', false],
    ['-app', false],
    ['a/b/c', false],
    ['UPPER.example.com/x', false],
    [`${'a'.repeat(64)}`, false],
    ['/name', false],
  ];
  for (const [key, ok] of keys)
    test(`key ${JSON.stringify(key)}`, () => assert.equal(labelKeyProblem(key) === undefined, ok));
  const values: [string, boolean][] = [
    ['', true],
    ['v1.2_3-x', true],
    ['a b', false],
    ['-a', false],
    ['a'.repeat(64), false],
  ];
  for (const [value, ok] of values) {
    test(`value ${JSON.stringify(value)}`, () => assert.equal(labelValueProblem(value) === undefined, ok));
  }
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  evaluateJsonPath,
  formatJsonPathResult,
  JsonPathError,
  parseJsonPath,
} from '../../../src/apiserver/schema/jsonpath.ts';

const node = {
  metadata: {
    name: 'worker-1',
    labels: { 'app.kubernetes.io/name': 'agent', tier: 'edge' },
    annotations: { 'nodeherd.io/state': 'Done' },
  },
  spec: {
    items: ['a', 'b', 'c', 'd'],
    list: [{ name: 'x', port: 80 }, { name: 'y', port: 8080 }, { port: 9090 }],
  },
  status: {
    replicas: 3,
    ratio: 0.5,
    ready: true,
    conditions: [
      { type: 'MemoryPressure', status: 'False' },
      { type: 'Ready', status: 'True', reason: 'KubeletReady' },
    ],
  },
};

test('paths select values like client-go jsonpath', () => {
  const cases: [string, unknown[]][] = [
    ['.metadata.name', ['worker-1']],
    ['{.metadata.name}', ['worker-1']],
    ['$.metadata.name', ['worker-1']],
    ['.status.conditions[?(@.type=="Ready")].status', ['True']],
    [".status.conditions[?(@.type=='Ready')].reason", ['KubeletReady']],
    ['.status.conditions[?(@.type!="Ready")].type', ['MemoryPressure']],
    ['.status.conditions[?(@.reason)].type', ['Ready']],
    ['.spec.items[0]', ['a']],
    ['.spec.items[-1]', ['d']],
    ['.spec.items[1:3]', ['b', 'c']],
    ['.spec.items[::2]', ['a', 'c']],
    ['.spec.items[0,2]', ['a', 'c']],
    ['.spec.items[*]', ['a', 'b', 'c', 'd']],
    ['.spec.list[*].name', ['x', 'y']],
    ['.spec.list[?(@.port>1000)].port', [8080, 9090]],
    ['.spec.list[?(@.port<=80)].name', ['x']],
    [".metadata.labels['app.kubernetes.io/name']", ['agent']],
    ['.metadata.labels.app\\.kubernetes\\.io/name', ['agent']],
    ['.metadata.annotations.nodeherd\\.io/state', ['Done']],
    ['.metadata.labels.*', ['agent', 'edge']],
    ['..port', [80, 8080, 9090]],
    ['.status.replicas', [3]],
    ['.', [node]],
    ['.status.missing', []],
    ['.spec.items[10]', []],
    ['.metadata.name.deeper', []],
  ];
  for (const [path, want] of cases) assert.deepEqual(evaluateJsonPath(path, node), want, path);
});

test('malformed paths are refused', () => {
  for (const bad of ['.a[', '.a[x]', 'metadata.name', '{.a}{.b}', '.a[?(@.x==)]', "['a"]) {
    assert.throws(() => parseJsonPath(bad), JsonPathError, bad);
  }
});

test('results print as kubectl -o jsonpath prints them', () => {
  const cases: [unknown, string][] = [
    ['text', 'text'],
    [3, '3'],
    [0.5, '0.5'],
    [true, 'true'],
    [null, 'null'],
    [{ b: 1, a: [1, 'x'] }, '{"a":[1,"x"],"b":1}'],
  ];
  for (const [value, want] of cases) assert.equal(formatJsonPathResult(value), want);
});

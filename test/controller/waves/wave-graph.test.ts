import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type WaveNode,
  waveCycle,
  waveFollowers,
  waveNode,
  waveOrder,
} from '../../../src/controller/waves/wave-graph.ts';

const pools = (spec: Record<string, string[]>): WaveNode[] =>
  Object.entries(spec).map(([name, after]) => ({ name, after }));

describe('wave graph', () => {
  test('a pool without wave settings waits for none', () => {
    assert.deepEqual(
      waveNode({ metadata: { name: 'a' }, spec: { nodeSelector: {}, configSelector: {} } }).after,
      [],
    );
  });

  test('followers: the pools that name it', () => {
    const g = pools({ canary: [], a: ['canary'], b: ['a', 'canary'], c: ['b'] });
    assert.deepEqual(waveFollowers('canary', g), ['a', 'b']);
    assert.deepEqual(waveFollowers('c', g), []);
  });

  test('cycles: found through the pool, as a path back to it', () => {
    const g = pools({ a: ['c'], b: ['a'], c: ['b'], d: ['a'], e: ['e'] });
    assert.deepEqual(waveCycle('a', g), ['a', 'c', 'b', 'a']);
    assert.deepEqual(waveCycle('b', g), ['b', 'a', 'c', 'b']);
    assert.equal(waveCycle('d', g), undefined, 'd waits for a cycle but is not on it');
    assert.deepEqual(waveCycle('e', g), ['e', 'e']);
    assert.equal(waveCycle('x', pools({ x: ['missing'] })), undefined);
    assert.equal(
      waveCycle('b', pools({ a: [], b: ['a'], c: ['a', 'b'] })),
      undefined,
      'a diamond is no cycle',
    );
  });

  test('order: waves by depth; cycles and what waits for them blocked; missing pools named', () => {
    const order = waveOrder(
      pools({
        canary: [],
        other: [],
        a: ['canary'],
        b: ['a', 'canary'],
        c: ['ghost'],
        x: ['y'],
        y: ['x'],
        z: ['x'],
      }),
    );
    assert.deepEqual(order.waves, [['c', 'canary', 'other'], ['a'], ['b']]);
    assert.deepEqual(order.blocked, ['x', 'y', 'z']);
    assert.deepEqual([...order.missing], [['c', ['ghost']]]);
    assert.deepEqual(waveOrder([]).waves, []);
  });
});

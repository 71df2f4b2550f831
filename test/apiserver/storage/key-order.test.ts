import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compareKeys, prefixUpperBound } from '../../../src/apiserver/storage/key-order.ts';
import { SortedKeys } from '../../../src/apiserver/storage/sorted-keys.ts';

// SQLite's BINARY collation compares UTF-8 bytes; the in-memory order must be the same.
function utf8Order(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

const samples = [
  '',
  '/',
  '/a',
  '/a/',
  '/a/b',
  '/a0',
  '/ab',
  '/a\u007f',
  '/a\u00e9',
  '/a\u4e2d',
  '/a\ud7ff',
  '/a\ue000',
  '/a\uffff',
  '/a\u{10000}',
  '/a\u{1f600}',
  '/a\u{10ffff}',
  '/a\u{1f600}x',
  '/b',
];

describe('compareKeys', () => {
  test('orders every pair exactly as UTF-8 bytes (SQLite BINARY) do', () => {
    for (const a of samples) {
      for (const b of samples) {
        assert.equal(
          Math.sign(compareKeys(a, b)),
          Math.sign(utf8Order(a, b)),
          `${JSON.stringify(a)} vs ${JSON.stringify(b)}`,
        );
      }
    }
  });
});

describe('prefixUpperBound', () => {
  const cases: Array<[prefix: string, bound: string | undefined]> = [
    ['', undefined],
    ['/core/pods/', '/core/pods0'],
    ['/a', '/b'],
    ['/a\ud7ff', '/a\ue000'],
    ['/a\uffff', '/a\u{10000}'],
    ['/a\u{1f600}', '/a\u{1f601}'],
    ['/a\u{10ffff}', '/b'],
    ['\u{10ffff}', undefined],
  ];
  for (const [prefix, bound] of cases) {
    test(`${JSON.stringify(prefix)} → ${JSON.stringify(bound)}`, () => {
      assert.equal(prefixUpperBound(prefix), bound);
    });
  }

  test('is exact: a sample is under the prefix iff it lies in [prefix, bound)', () => {
    for (const prefix of samples) {
      const bound = prefixUpperBound(prefix);
      for (const key of samples) {
        const inRange = compareKeys(key, prefix) >= 0 && (bound === undefined || compareKeys(key, bound) < 0);
        assert.equal(
          inRange,
          key.startsWith(prefix),
          `${JSON.stringify(key)} under ${JSON.stringify(prefix)}`,
        );
      }
    }
  });
});

describe('SortedKeys', () => {
  function filled(keys: string[]): SortedKeys {
    const sorted = new SortedKeys();
    for (const key of keys) sorted.insert(key);
    return sorted;
  }

  test('keeps keys sorted and unique whatever the insertion order', () => {
    const keys = filled(['/b', '/a/2', '/a/1', '/c', '/a/1', '/a\u{1f600}', '/a\uffff']);
    assert.equal(keys.size, 6);
    assert.deepEqual([...keys.range('')], ['/a/1', '/a/2', '/a\uffff', '/a\u{1f600}', '/b', '/c']);
  });

  test('range walks only the prefix, strictly after afterKey', () => {
    const keys = filled(['/a/1', '/a/2', '/a/3', '/ab/1', '/b/1']);
    assert.deepEqual([...keys.range('/a/')], ['/a/1', '/a/2', '/a/3']);
    assert.deepEqual([...keys.range('/a/', '/a/1')], ['/a/2', '/a/3']);
    assert.deepEqual([...keys.range('/a/', '/a/1x')], ['/a/2', '/a/3'], 'afterKey need not exist');
    assert.deepEqual([...keys.range('/a/', '/0')], ['/a/1', '/a/2', '/a/3'], 'afterKey before the prefix');
    assert.deepEqual([...keys.range('/a/', '/a/3')], []);
  });

  test('remove and countPrefix', () => {
    const keys = filled(['/a/1', '/a/2', '/ab/1', '/b/1']);
    keys.remove('/a/1');
    keys.remove('/missing');
    assert.equal(keys.countPrefix('/a/'), 1);
    assert.equal(keys.countPrefix('/a'), 2);
    assert.equal(keys.countPrefix(''), 3);
    assert.equal(keys.countPrefix('/z'), 0);
  });
});

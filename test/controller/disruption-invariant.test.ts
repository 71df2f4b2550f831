// The invariant checker must catch what it is there to catch: these sequences of node changes break
// (or keep) the disruption budget on purpose.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DisruptionInvariant, type ObservedNode } from './support/disruption-invariant.ts';

function node(
  name: string,
  over: {
    zone?: string;
    ready?: boolean;
    cordoned?: boolean;
    desired?: string;
    current?: string;
    state?: string;
    draining?: string;
  } = {},
): ObservedNode {
  const current = over.current ?? 'r1';
  return {
    metadata: {
      name,
      labels: { 'topology.kubernetes.io/zone': over.zone ?? 'a' },
      annotations: {
        'nodeherd.io/desired-revision': over.desired ?? current,
        'nodeherd.io/current-revision': current,
        'nodeherd.io/state': over.state ?? 'Done',
        ...(over.draining ? { 'nodeherd.io/draining-for': over.draining } : {}),
      },
    },
    spec: { unschedulable: over.cordoned ?? false },
    status: {
      conditions: [
        { type: 'Ready', status: over.ready === false ? 'False' : 'True' },
        { type: 'NodeConfigReady', status: 'True' },
      ],
    },
  };
}

function fleet(check: DisruptionInvariant, names: string[], zone = 'a'): void {
  for (const n of names) check.observe(node(n, { zone }), 0);
}

describe('disruption invariant checker', () => {
  test('a start while the budget is used up is a violation (strict and at the start)', () => {
    const check = new DisruptionInvariant({ maxUnavailable: 1, strict: true }, 3);
    fleet(check, ['a', 'b', 'c']);
    check.beginEpisode();
    check.observe(node('a', { desired: 'r2' }), 10);
    check.observe(node('b', { desired: 'r2' }), 20);
    assert.equal(check.violations.length, 2, check.violations.join('\n'));
    assert.match(check.violations[0]!, /b started with 1 other nodes unavailable/);
    assert.match(check.violations[1]!, /2 nodes unavailable/);
  });

  test('one node at a time keeps the budget', () => {
    const check = new DisruptionInvariant({ maxUnavailable: 1, strict: true }, 2);
    fleet(check, ['a', 'b']);
    check.beginEpisode();
    check.observe(node('a', { desired: 'r2' }), 10);
    check.observe(node('a', { desired: 'r2', state: 'Applying' }), 11);
    check.observe(node('a', { desired: 'r2', ready: false, state: 'Applying' }), 12);
    check.observe(node('a', { desired: 'r2', current: 'r2' }), 13);
    check.observe(node('b', { desired: 'r2' }), 14);
    assert.deepEqual(check.violations, []);
    assert.equal(check.starts, 2);
    assert.equal(check.maxObserved, 1);
  });

  test('nodes NotReady before their turn are not counted; a node already unavailable starts for free', () => {
    const check = new DisruptionInvariant({ maxUnavailable: 1, strict: false }, 3);
    fleet(check, ['a', 'b', 'c']);
    check.observe(node('c', { ready: false }), 5);
    check.beginEpisode();
    check.observe(node('a', { desired: 'r2' }), 10);
    check.observe(node('b', { cordoned: true }), 11);
    check.observe(node('b', { cordoned: true, desired: 'r2' }), 2_000);
    assert.deepEqual(check.violations, []);
  });

  test('a node that failed after its start counts against later starts', () => {
    const check = new DisruptionInvariant({ maxUnavailable: 1, strict: false }, 3);
    fleet(check, ['a', 'b', 'c']);
    check.beginEpisode();
    check.observe(node('a', { desired: 'r2' }), 10);
    check.observe(node('a', { desired: 'r2', current: 'r2' }), 20);
    check.observe(node('a', { desired: 'r2', current: 'r2', ready: false }), 30);
    check.observe(node('b', { desired: 'r2' }), 5_000);
    assert.equal(check.violations.length, 1);
  });

  test('a disruption younger than the lag tolerance is not held against a start', () => {
    const check = new DisruptionInvariant({ maxUnavailable: 1, strict: false, lagToleranceMs: 300 }, 2);
    fleet(check, ['a', 'b']);
    check.beginEpisode();
    check.observe(node('b', { desired: 'r2' }), 10);
    check.observe(node('b', { desired: 'r2', current: 'r2' }), 20);
    check.observe(node('b', { desired: 'r2', current: 'r2', ready: false }), 1_000);
    check.observe(node('a', { desired: 'r2' }), 1_100);
    assert.deepEqual(check.violations, []);
    assert.equal(check.tolerated, 1);
  });

  test('per-zone caps', () => {
    const check = new DisruptionInvariant({ maxUnavailable: 3, maxUnavailablePerZone: 1, strict: true }, 4);
    fleet(check, ['a1', 'a2'], 'a');
    fleet(check, ['b1', 'b2'], 'b');
    check.beginEpisode();
    check.observe(node('a1', { zone: 'a', draining: 'r2', cordoned: true }), 10);
    check.observe(node('b1', { zone: 'b', desired: 'r2' }), 11);
    assert.deepEqual(check.violations, []);
    check.observe(node('a2', { zone: 'a', desired: 'r2' }), 12);
    assert.ok(
      check.violations.some((v) => /zone a: 2 nodes unavailable/.test(v)),
      check.violations.join('\n'),
    );
  });

  test('a start is judged against its own zone only: flaps elsewhere do not make it a violation', () => {
    const check = new DisruptionInvariant(
      { maxUnavailable: 3, maxUnavailablePerZone: 1, strict: false, lagToleranceMs: 0 },
      4,
    );
    fleet(check, ['a1', 'a2'], 'a');
    fleet(check, ['b1', 'b2'], 'b');
    check.beginEpisode();
    // a2 is updated; a1 fails after its start; a2 flaps NotReady on its own: zone a is over its cap,
    // not by a start.
    check.observe(node('a2', { zone: 'a', desired: 'r2' }), 5);
    check.observe(node('a2', { zone: 'a', desired: 'r2', current: 'r2' }), 8);
    check.observe(node('a1', { zone: 'a', desired: 'r2' }), 10);
    check.observe(node('a1', { zone: 'a', desired: 'r2', current: 'r2', ready: false }), 20);
    check.observe(node('a2', { zone: 'a', desired: 'r2', current: 'r2', ready: false }), 30);
    check.observe(node('b1', { zone: 'b', desired: 'r2' }), 40);
    assert.deepEqual(check.violations, []);
    // A start in zone a itself still is one (a1 is unavailable there).
    check.observe(node('a2', { zone: 'a', desired: 'r2', current: 'r2' }), 50);
    check.observe(node('a2', { zone: 'a', desired: 'r1', current: 'r2' }), 60);
    assert.ok(
      check.violations.some((v) => /zone a: 2 nodes unavailable at the start of a2/.test(v)),
      check.violations.join('\n'),
    );
  });
});

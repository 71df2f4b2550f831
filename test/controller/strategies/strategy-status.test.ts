// Table tests of the report every strategy the agents or the nodes' owners drive shares (failed,
// complete, the gated nodes waiting), and of the validation of the strategy settings. Each strategy's
// own notes: test/controller/strategies/<name>/<name>-report.test.ts.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SERIAL_GATE_ANNOTATION } from '../../../src/api/node-protocol.ts';
import { validateNodeConfigPool } from '../../../src/api/validate-node-config-pool.ts';
import type { StrategyNode } from '../../../src/controller/strategies/strategy-node.ts';
import { report, strategyNode } from '../../support/strategy-fixtures.ts';

function n(name: string, over: Partial<StrategyNode> = {}): StrategyNode {
  return strategyNode(name, { desired: 'r2', ...over });
}

describe('strategy status', () => {
  test('a Failed left from an older revision is not a failure of the target', () => {
    const r = report({ nodes: [n('a', { state: 'Failed', stateRevision: 'r1' })] });
    assert.deepEqual(r.failed, []);
    assert.equal(r.degraded, undefined);
  });

  test('every node on the target and healthy: complete', () => {
    const r = report({ nodes: [n('a', { current: 'r2' })] });
    assert.equal(r.done, true);
    assert.equal(r.progressing.reason, 'RolloutComplete');
    assert.equal(r.complete.status, 'True');
  });

  test('Serial and Spread count the gated nodes that have not started', () => {
    const gate = '{"pool":"p","slots":1,"leaseDurationSeconds":60}';
    const serial = report({
      nodes: [
        n('a', { annotations: { [SERIAL_GATE_ANNOTATION]: gate }, state: 'Waiting', stateRevision: 'r2' }),
        n('b', { annotations: { [SERIAL_GATE_ANNOTATION]: gate }, state: 'Applying', stateRevision: 'r2' }),
        n('c', { annotations: { [SERIAL_GATE_ANNOTATION]: gate }, current: 'r2' }),
        n('d', { desired: 'r1' }),
      ],
    });
    assert.equal(serial.waiting, 1, 'a waits; b applies, c is done, d has no gate');
    const spread = report({
      type: 'Spread',
      schedule: new Map(),
      nodes: [n('a', { notBefore: '2030-01-01T00:00:00Z' }), n('b', { hold: 'paused' })],
    });
    assert.equal(spread.waiting, 2);
    assert.equal(spread.updateAvailable, 0);
  });
});

describe('strategy validation', () => {
  const pool = (updateStrategy: unknown) => ({
    apiVersion: 'nodeherd.io/v1alpha1',
    kind: 'NodeConfigPool',
    metadata: { name: 'p' },
    spec: { nodeSelector: {}, configSelector: {}, updateStrategy },
  });
  const fields = (updateStrategy: unknown) =>
    validateNodeConfigPool(pool(updateStrategy)).map((c) => [c.field, c.type]);

  test('Spread needs spread.windowSeconds, named by its path', () => {
    assert.deepEqual(fields({ type: 'Spread', spread: {} }), [
      ['spec.updateStrategy.spread.windowSeconds', 'FieldValueRequired'],
    ]);
    const [cause] = validateNodeConfigPool(pool({ type: 'Spread' }));
    assert.equal(cause?.field, 'spec.updateStrategy.spread');
    assert.match(cause?.message ?? '', /windowSeconds is required when type is Spread/);
  });

  test('Spread and OnDelete take rollingUpdate (failure policy, upgrade rules), checked as such; Serial and OTA do not', () => {
    assert.deepEqual(
      fields({
        type: 'Spread',
        spread: { windowSeconds: 60 },
        rollingUpdate: { failurePolicy: { action: 'Rollback' } },
      }),
      [],
    );
    assert.deepEqual(fields({ type: 'OnDelete', rollingUpdate: { maxUnavailable: 2 } }), []);
    assert.deepEqual(fields({ type: 'OnDelete', rollingUpdate: { maxUnavailable: 0 } }), [
      ['spec.updateStrategy.rollingUpdate.maxUnavailable', 'FieldValueInvalid'],
    ]);
    assert.deepEqual(fields({ type: 'OTA', rollingUpdate: {} }), [
      ['spec.updateStrategy.rollingUpdate', 'FieldValueForbidden'],
    ]);
  });
});

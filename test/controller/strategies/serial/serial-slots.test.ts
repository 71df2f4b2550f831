// Serial's slot holders and the slots the controller frees.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { serialSlots } from '../../../../src/controller/strategies/serial/serial-slots.ts';

describe('Serial slots', () => {
  const lease = (name: string, holder?: string) => ({
    metadata: { name, resourceVersion: '7' },
    spec: holder ? { holderIdentity: holder } : {},
  });
  test('holders with their states; a slot whose node is gone is released by compare-and-swap', () => {
    const view = serialSlots(
      [lease('s-1', 'b'), lease('s-0', 'a'), lease('s-2')],
      (node) => (node === 'a' ? 'Failed' : undefined),
      (node) => node === 'a',
    );
    assert.deepEqual(view.holders, [
      { lease: 's-0', node: 'a', state: 'Failed' },
      { lease: 's-1', node: 'b', state: 'Gone' },
    ]);
    assert.deepEqual(view.release, [{ lease: 's-1', node: 'b', resourceVersion: '7' }]);
  });
});

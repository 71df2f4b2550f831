// The cluster a describe block's tests share: a ClusterHarness started with a controller before them
// and stopped after them (the before/after pair the controller's integration tests had each written).
// Apart from cluster-harness.ts so that the benches, which use the harness, do not load node:test.

import { after, before } from 'node:test';
import type { RolloutControllerOptions } from '../../src/controller/rollout-controller.ts';
import { ClusterHarness, type HarnessOptions } from './cluster-harness.ts';

/**
 * Before the block's tests, a harness (`options`) with a controller running (`controller`'s options;
 * false for none), handed to `use`; stopped after them.
 */
export function clusterPerSuite(
  use: (h: ClusterHarness) => void,
  options: HarnessOptions = {},
  controller: Partial<RolloutControllerOptions> | false = {},
): void {
  let h: ClusterHarness | undefined;
  before(async () => {
    h = await ClusterHarness.start(options);
    use(h);
    if (controller) await h.startController(controller);
  });
  after(async () => {
    await h?.stop();
  });
}

// Entry point for validation of nodeherd.io objects. The nodeherd profile (src/profile) hands
// `validators` to the embedded API server, which runs them on create and update (422 Invalid with the
// causes). On a real cluster the CRDs carry the same rules for a single object (patterns, bounds, CEL:
// test/api/crd-rules-parity.test.ts), and the controller runs these validators again when it renders,
// so an invalid config never reaches a node.

import type { Cause } from './field-errors.ts';
import type { Kind } from './group.ts';
import { validateNodeConfig } from './validate-node-config.ts';
import { validateNodeConfigPool } from './validate-node-config-pool.ts';
import { validateNodeConfigRevision } from './validate-revision.ts';

export type { Cause } from './field-errors.ts';
export { validateNodeConfig, validateNodeConfigSpec } from './validate-node-config.ts';
export { validateNodeConfigPool } from './validate-node-config-pool.ts';
export { validateNodeConfigRevision } from './validate-revision.ts';

/** Validator per kind; `old` is the stored object on update, undefined on create. */
export const validators: Record<Kind, (obj: unknown, old?: unknown) => Cause[]> = {
  NodeConfig: (obj) => validateNodeConfig(obj),
  NodeConfigPool: (obj) => validateNodeConfigPool(obj),
  NodeConfigRevision: (obj, old) => validateNodeConfigRevision(obj, old),
};

// NodeConfigRevision: the immutable, rendered configuration of a pool, named `<pool>-<hash10>`.
// Immutability is enforced by the embedded API server's validator. On a real cluster it rests on RBAC
// (only the controller writes revisions) and on the agent, which refuses a revision whose config does
// not match its hash (revisionMatchesConfig). CEL `self == oldSelf` keeps the identifying scalars
// (pool, revision, hash, hashAlgorithm) immutable on any API server; not on the whole spec: over
// unbounded lists its estimated cost exceeds kube's budget and the CRD would be refused.

import { MAX_POOL_NAME_LENGTH } from './limits.ts';
import { nodeConfigSpecSchema } from './node-config-schema.ts';
import { array, integer, object, optional, string, withoutRules } from './schema-builder.ts';

export const revisionSourceSchema = object(
  {
    name: string('NodeConfig name.'),
    uid: optional(string('Its uid.')),
    generation: optional(integer('Its generation when rendered.')),
    resourceVersion: optional(string('Its resourceVersion when rendered.')),
  },
  'A NodeConfig that went into the revision.',
);

const immutable = {
  'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'field is immutable' }],
};

export const nodeConfigRevisionSpecSchema = object(
  {
    pool: string('The NodeConfigPool this revision belongs to.', {
      maxLength: MAX_POOL_NAME_LENGTH,
      ...immutable,
    }),
    revision: integer('Monotonic revision number within the pool.', { minimum: 1, ...immutable }),
    hash: string('Hash of config, computed with hashAlgorithm.', {
      pattern: '^[0-9a-f]{64}$',
      maxLength: 64,
      ...immutable,
    }),
    hashAlgorithm: string(
      'Version of the hashing scheme, so a new scheme is not mistaken for a config change.',
      { maxLength: 32, ...immutable },
    ),
    // The merged config: checked by nodeherd's validators, so without the NodeConfig's CEL rules (some,
    // such as secretRef.uid being forbidden, are the opposite here) and list caps (it merges several).
    config: withoutRules(nodeConfigSpecSchema),
    sources: array(revisionSourceSchema, 'The NodeConfigs merged, in merge (name) order.'),
  },
  'Immutable. config is the merged, defaulted, sorted configuration; Secret contents are referenced by digest.',
);

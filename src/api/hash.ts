// Revision hashes. The algorithm's version is stored next to the hash ("v1"), so a future change of
// the algorithm is recognised as such and never mistaken for a change of the configuration (the
// mistake Karpenter avoids with its hash version): comparisons recompute with the stored version.

import { createHash } from 'node:crypto';
import { canonicalJson } from '../util/canonical-json.ts';
import type { RenderedConfig } from './types.ts';

type HashFunction = (config: RenderedConfig) => string;

const ALGORITHMS: Record<string, HashFunction> = {
  /** SHA-256 (hex) of the canonical JSON of the rendered config. */
  v1: (config) => createHash('sha256').update(canonicalJson(config)).digest('hex'),
};

export const CURRENT_HASH_ALGORITHM = 'v1';

/** Length of the hash prefix in revision names: 40 bits, collisions within a pool are negligible. */
export const NAME_HASH_LENGTH = 10;

export function isKnownHashAlgorithm(algorithm: string): boolean {
  return Object.hasOwn(ALGORITHMS, algorithm);
}

export function hashConfig(config: RenderedConfig, algorithm: string = CURRENT_HASH_ALGORITHM): string {
  const hash = ALGORITHMS[algorithm];
  if (!hash || !Object.hasOwn(ALGORITHMS, algorithm))
    throw new Error(`unknown hash algorithm ${JSON.stringify(algorithm)}`);
  return hash(config);
}

/** `<pool>-<first 10 hex digits>`. */
export function revisionName(pool: string, hash: string): string {
  return `${pool}-${hash.slice(0, NAME_HASH_LENGTH)}`;
}

export interface HashedConfig {
  config: RenderedConfig;
  hash: string;
  hashAlgorithm: string;
}

/** Whether the revision is the rendering of config, judged with the revision's own algorithm. */
export function revisionMatchesConfig(
  revision: Omit<HashedConfig, 'config'>,
  config: RenderedConfig,
): boolean {
  if (!isKnownHashAlgorithm(revision.hashAlgorithm)) return false;
  return hashConfig(config, revision.hashAlgorithm) === revision.hash;
}

/**
 * Whether two revisions carry the same configuration, even when hashed by different algorithm
 * versions: one side is re-hashed with the other's algorithm; with no algorithm known to this
 * build, the canonical configs are compared directly.
 */
export function sameConfig(a: HashedConfig, b: HashedConfig): boolean {
  if (a.hashAlgorithm === b.hashAlgorithm && isKnownHashAlgorithm(a.hashAlgorithm)) return a.hash === b.hash;
  if (isKnownHashAlgorithm(a.hashAlgorithm)) return revisionMatchesConfig(a, b.config);
  if (isKnownHashAlgorithm(b.hashAlgorithm)) return revisionMatchesConfig(b, a.config);
  return canonicalJson(a.config) === canonicalJson(b.config);
}

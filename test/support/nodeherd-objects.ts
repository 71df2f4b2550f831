// Builders for nodeherd.io objects in tests (real objects, rendered by the real renderer): configs,
// pools, rendered configs and revisions.

import { renderConfigs, type SecretLookup, type SecretSnapshot } from '../../src/api/render.ts';
import { buildRevision } from '../../src/api/revision.ts';
import type {
  NodeConfig,
  NodeConfigPool,
  NodeConfigPoolSpec,
  NodeConfigRevision,
  NodeConfigSpec,
  RenderedConfig,
} from '../../src/api/types.ts';

export function nodeConfig(
  name: string,
  spec: NodeConfigSpec,
  labels: Record<string, string> = {},
): NodeConfig {
  return { apiVersion: 'nodeherd.io/v1alpha1', kind: 'NodeConfig', metadata: { name, labels }, spec };
}

export function nodeConfigPool(
  name: string,
  spec: Partial<NodeConfigPoolSpec> = {},
  uid?: string,
): NodeConfigPool {
  return {
    apiVersion: 'nodeherd.io/v1alpha1',
    kind: 'NodeConfigPool',
    metadata: { name, ...(uid ? { uid } : {}) },
    spec: { nodeSelector: {}, configSelector: {}, ...spec },
  };
}

/** A SecretLookup answer: the value and a version (the renderer puts the version in the revision). */
export function secretSnapshot(
  value: string | Uint8Array,
  uid = 'uid-secret',
  resourceVersion = '1',
): SecretSnapshot {
  return { value: typeof value === 'string' ? Buffer.from(value) : value, uid, resourceVersion };
}

/** The rendered config of one NodeConfig spec; throws when rendering fails. */
export function rendered(spec: NodeConfigSpec, secrets?: SecretLookup): RenderedConfig {
  const result = renderConfigs([nodeConfig('test', spec)], secrets ? { secrets } : {});
  if (!result.config) {
    throw new Error(`render failed: ${JSON.stringify([...result.errors, ...result.conflicts])}`);
  }
  return result.config;
}

export interface RevisionOptions {
  /** The NodeConfig's name (default `<pool>-config`); the revision's sources name it. */
  configName?: string;
  secrets?: SecretLookup;
}

/**
 * Revision `number` of a pool (a name: a pool selecting everything) whose one NodeConfig has `spec`,
 * rendered and built as the controller builds it; throws when rendering fails.
 */
export function revisionOf(
  pool: string | NodeConfigPool,
  spec: NodeConfigSpec,
  number: number,
  options: RevisionOptions = {},
): NodeConfigRevision {
  const owner = typeof pool === 'string' ? nodeConfigPool(pool) : pool;
  const config: NodeConfig = {
    apiVersion: 'nodeherd.io/v1alpha1',
    kind: 'NodeConfig',
    metadata: { name: options.configName ?? `${owner.metadata.name}-config` },
    spec,
  };
  const result = renderConfigs([config], options.secrets ? { secrets: options.secrets } : {});
  if (!result.config || !result.hash) {
    throw new Error(`render failed: ${JSON.stringify([...result.errors, ...result.conflicts])}`);
  }
  return buildRevision(
    owner,
    {
      config: result.config,
      hash: result.hash,
      hashAlgorithm: result.hashAlgorithm,
      sources: result.sources,
    },
    number,
  );
}

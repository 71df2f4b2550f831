// Builders for nodeherd.io objects in tests (real objects, rendered by the real renderer).

import { renderConfigs, type SecretLookup } from '../../src/api/render.ts';
import type {
  NodeConfig,
  NodeConfigPool,
  NodeConfigPoolSpec,
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

/** The rendered config of one NodeConfig spec; throws when rendering fails. */
export function rendered(spec: NodeConfigSpec, secrets?: SecretLookup): RenderedConfig {
  const result = renderConfigs([nodeConfig('test', spec)], secrets ? { secrets } : {});
  if (!result.config) {
    throw new Error(`render failed: ${JSON.stringify([...result.errors, ...result.conflicts])}`);
  }
  return result.config;
}

// What the agent does about drift: the pool's spec.drift.policy (Repair by default), read when drift
// is found, so a changed policy counts from the next check and a quiet node reads nothing. When the
// pool cannot be read (API server away), the policy last read holds; before any, the default.

import { DRIFT_POLICIES, type DriftPolicy } from '../../api/node-protocol.ts';
import type { NodeConfigPool } from '../../api/types.ts';
import { resourcePath } from '../../kube/light/api-paths.ts';
import type { LightKubeClient } from '../../kube/light/light-kube-client.ts';
import type { KubeObject } from '../../kube/light/types.ts';
import type { RevisionRef } from '../apply/revision-ref.ts';
import type { Logger } from '../logger.ts';

const DEFAULT_DRIFT_POLICY: DriftPolicy = 'Repair';
/** The check at start runs before the agent has seen the API server: an unreachable one must not hold it. */
const READ_TIMEOUT_MS = 5000;

/** The policy for drift from `base` (the revision the node last applied). */
export type DriftPolicySource = (base: RevisionRef) => Promise<DriftPolicy>;

export function poolDriftPolicy(client: LightKubeClient, logger: Logger): DriftPolicySource {
  const known = new Map<string, DriftPolicy>();
  return async (base) => {
    const pool = base.spec.pool;
    try {
      let timer: NodeJS.Timeout | undefined;
      const object = await Promise.race([
        client.get<KubeObject & NodeConfigPool>(
          resourcePath({ apiVersion: 'nodeherd.io/v1alpha1', resource: 'nodeconfigpools', name: pool }),
        ),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer within ${READ_TIMEOUT_MS} ms`)),
            READ_TIMEOUT_MS,
          );
        }),
      ]).finally(() => clearTimeout(timer));
      const policy = object.spec.drift?.policy;
      const chosen = (DRIFT_POLICIES as readonly string[]).includes(policy ?? '')
        ? (policy as DriftPolicy)
        : DEFAULT_DRIFT_POLICY;
      known.set(pool, chosen);
      return chosen;
    } catch (error) {
      const chosen = known.get(pool) ?? DEFAULT_DRIFT_POLICY;
      logger.warn(
        { pool, policy: chosen, error: error as Error },
        'could not read the pool for its drift policy',
      );
      return chosen;
    }
  };
}

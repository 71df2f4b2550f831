// Whether a failed apply should be rolled back on the node itself. The pool says so with
// spec.updateStrategy.rollingUpdate.failurePolicy.action = Rollback (the same setting that makes
// the controller roll the pool back): restoring locally at once does not wait for the controller,
// and works while it is down. Read only when an apply fails, so it costs nothing while idle.

import type { NodeConfigPool } from '../../api/types.ts';
import { resourcePath } from '../../kube/light/api-paths.ts';
import type { LightKubeClient } from '../../kube/light/light-kube-client.ts';
import type { KubeObject } from '../../kube/light/types.ts';
import type { Logger } from '../logger.ts';
import type { RevisionRef } from './revision-ref.ts';

/** Decides, for a revision that failed, whether to restore the last applied one. */
export type RollbackPolicy = (failed: RevisionRef) => Promise<boolean>;

export function poolRollbackPolicy(client: LightKubeClient, logger: Logger): RollbackPolicy {
  return async (failed) => {
    const pool = failed.spec.pool;
    try {
      const object = await client.get<KubeObject & NodeConfigPool>(
        resourcePath({ apiVersion: 'nodeherd.io/v1alpha1', resource: 'nodeconfigpools', name: pool }),
      );
      return object.spec.updateStrategy?.rollingUpdate?.failurePolicy?.action === 'Rollback';
    } catch (error) {
      logger.warn(
        {
          pool,
          error: error as Error,
        },
        'could not read the pool for its failure policy: no local rollback',
      );
      return false;
    }
  };
}

export const alwaysRollBack: RollbackPolicy = async () => true;
export const neverRollBack: RollbackPolicy = async () => false;

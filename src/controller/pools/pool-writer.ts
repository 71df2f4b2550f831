// The pool reconciler's writes to the pool itself and its revisions: merge patches whose result goes
// into the cache at once, the status written only when it changed, and old revisions pruned.

import { CURRENT_REVISION_ANNOTATION, DESIRED_REVISION_ANNOTATION } from '../../api/node-protocol.ts';
import type { NodeConfigPool, NodeConfigPoolStatus } from '../../api/types.ts';
import { jsonEqual } from '../../util/json-equal.ts';
import { DRAINING_FOR_ANNOTATION } from '../annotations.ts';
import { nodeConfigPoolPath } from '../api-paths.ts';
import type { ControllerContext } from '../controller-context.ts';
import { revisionsToPrune } from '../revisions/revision-pruning.ts';
import type { NumberedRevision } from '../rollout/types.ts';

/** The status as a merge patch: fields that disappeared are removed explicitly. */
function statusPatch(
  previous: NodeConfigPoolStatus | undefined,
  next: NodeConfigPoolStatus,
): Record<string, unknown> {
  const patch: Record<string, unknown> = { ...next };
  for (const key of Object.keys(previous ?? {})) if (!(key in next)) patch[key] = null;
  return patch;
}

export class PoolWriter {
  private readonly ctx: ControllerContext;

  constructor(ctx: ControllerContext) {
    this.ctx = ctx;
  }

  async patchPool(name: string, patch: unknown): Promise<void> {
    const updated = await this.ctx.client.patch<NodeConfigPool>(nodeConfigPoolPath(name), patch, 'merge');
    this.ctx.informers.pools.upsert(updated);
  }

  async writeStatus(pool: NodeConfigPool, next: NodeConfigPoolStatus): Promise<void> {
    const current = this.ctx.informers.pools.get(pool.metadata.name) ?? pool;
    // By value, not by text: a merge patch appends a field that reappears (currentRevision after the
    // first rollout), so the stored status's key order differs from a freshly built one's.
    if (jsonEqual(current.status ?? {}, next)) return;
    const updated = await this.ctx.client.patch<NodeConfigPool>(
      nodeConfigPoolPath(pool.metadata.name, 'status'),
      { status: statusPatch(current.status, next) },
      'merge',
    );
    this.ctx.informers.pools.upsert(updated);
  }

  // Old revisions beyond the history limit go, except those any node (of any pool) still refers to.
  async prune(
    pool: string,
    limit: number,
    revisions: readonly NumberedRevision[],
    keep: (string | undefined)[],
  ): Promise<void> {
    if (revisions.length <= limit + 1) return;
    const inUse = new Set<string>(keep.filter((k): k is string => k !== undefined));
    for (const node of this.ctx.informers.nodes.list()) {
      const a = node.metadata.annotations ?? {};
      for (const key of [CURRENT_REVISION_ANNOTATION, DESIRED_REVISION_ANNOTATION, DRAINING_FOR_ANNOTATION]) {
        if (a[key]) inUse.add(a[key]);
      }
    }
    for (const name of revisionsToPrune(revisions, inUse, limit)) {
      await this.ctx.revisionWriter.delete(name);
      this.ctx.logger.info({ pool, revision: name }, 'pruned revision');
    }
  }
}

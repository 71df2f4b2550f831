// Turns a rendering into a NodeConfigRevision: reused when one with the same hash exists, created
// otherwise with the next revision number of the pool (never reused, even after pruning) and an owner
// reference to the pool. Also deletes pruned revisions.

import { revisionName } from '../../api/hash.ts';
import { POOL_LABEL } from '../../api/node-protocol.ts';
import { buildRevision, type RenderedRevision } from '../../api/revision.ts';
import type { NodeConfigPool, NodeConfigRevision } from '../../api/types.ts';
import type { Informer } from '../../kube/informer.ts';
import type { KubeClient } from '../../kube/kube-client.ts';
import { isKubeError } from '../../kube/kube-error.ts';
import { PATHS, revisionPath } from '../api-paths.ts';
import type { NumberedRevision } from '../rollout/types.ts';

export type EnsuredRevision =
  | { ok: true; ref: NumberedRevision; created: boolean }
  | { ok: false; reason: string; message: string };

export function revisionsOfPool(revisions: Informer<NodeConfigRevision>, pool: string): NodeConfigRevision[] {
  return revisions
    .list()
    .filter((r) => r.spec?.pool === pool && (r.metadata.labels?.[POOL_LABEL] ?? pool) === pool);
}

export class RevisionWriter {
  private readonly client: KubeClient;
  private readonly revisions: Informer<NodeConfigRevision>;
  /** Highest number issued per pool: the cache may not show our last create yet. */
  private readonly issued = new Map<string, number>();

  constructor(client: KubeClient, revisions: Informer<NodeConfigRevision>) {
    this.client = client;
    this.revisions = revisions;
  }

  async ensure(pool: NodeConfigPool, rendered: RenderedRevision): Promise<EnsuredRevision> {
    const name = revisionName(pool.metadata.name, rendered.hash);
    // The cache is enough: a revision it misses makes the create fail with 409, then we read it.
    const existing = this.revisions.get(name);
    if (existing) return this.judge(pool, existing, rendered);
    const known = revisionsOfPool(this.revisions, pool.metadata.name).map((r) => r.spec.revision);
    const number = Math.max(0, this.issued.get(pool.metadata.name) ?? 0, ...known) + 1;
    try {
      const created = await this.client.create<NodeConfigRevision>(
        PATHS.revisions,
        buildRevision(pool, rendered, number),
      );
      this.issued.set(pool.metadata.name, number);
      this.revisions.upsert(created);
      return { ok: true, ref: { name, number }, created: true };
    } catch (err) {
      if (!isKubeError(err, 409)) throw err;
      const raced = await this.fetch(name);
      if (!raced) throw err;
      return this.judge(pool, raced, rendered);
    }
  }

  async delete(name: string): Promise<void> {
    try {
      await this.client.delete(revisionPath(name));
    } catch (err) {
      if (!isKubeError(err, 404)) throw err;
    }
    const cached = this.revisions.get(name);
    if (cached) this.revisions.forget(cached);
  }

  private judge(
    pool: NodeConfigPool,
    existing: NodeConfigRevision,
    rendered: RenderedRevision,
  ): EnsuredRevision {
    if (existing.spec.pool !== pool.metadata.name || existing.spec.hash !== rendered.hash) {
      return {
        ok: false,
        reason: 'RevisionNameCollision',
        message: `revision ${existing.metadata.name} exists with other content (pool ${existing.spec.pool}, hash ${existing.spec.hash.slice(0, 16)}…); delete it to let the controller write this one`,
      };
    }
    const number = existing.spec.revision;
    if (number > (this.issued.get(pool.metadata.name) ?? 0)) this.issued.set(pool.metadata.name, number);
    return { ok: true, ref: { name: existing.metadata.name, number }, created: false };
  }

  private async fetch(name: string): Promise<NodeConfigRevision | undefined> {
    try {
      const revision = await this.client.get<NodeConfigRevision>(revisionPath(name));
      this.revisions.upsert(revision);
      return revision;
    } catch (err) {
      if (isKubeError(err, 404)) return undefined;
      throw err;
    }
  }
}

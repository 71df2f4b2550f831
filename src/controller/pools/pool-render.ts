// Renders a pool's NodeConfigs into its latest revision: merge, validate, hash, and make sure the
// NodeConfigRevision exists. Problems (invalid configs, conflicts between configs, missing Secrets, a
// name collision) become the RenderDegraded condition and never reach a node: the pool keeps its
// current target, held unless it is the last complete revision (render-hold.ts). Renderings are cached per input (configs and Secrets by resourceVersion),
// since a pool is reconciled on every node change but its configs rarely change. A change of the
// pool's NodeConfigs is rendered only once they settle (configs/config-settle.ts): the NodeConfigs of
// one `kubectl apply -f` become one revision, not one per object.

import { revisionName } from '../../api/hash.ts';
import { type RenderResult, renderPool, selectConfigs } from '../../api/render.ts';
import type { NodeConfigPool } from '../../api/types.ts';
import { findCondition, type StatusCondition } from '../../kube/conditions.ts';
import { RenderSettle, type RenderSettleOptions } from '../configs/config-settle.ts';
import type { ControllerContext } from '../controller-context.ts';
import type { NumberedRevision } from '../rollout/types.ts';
import type { RenderOutcome } from './pool-status.ts';

export interface PoolRendering {
  /** The revision the configs render to now; undefined when they cannot be rendered. */
  latest?: NumberedRevision;
  /** The revision was created by this rendering. */
  created?: boolean;
  outcome: RenderOutcome;
  warnings: string[];
  /** The NodeConfigs changed within the quiet period: nothing rendered; look again after waitMs. */
  settling?: { waitMs: number; message: string };
}

interface CachedRender {
  /** Selector and selected configs with their resourceVersions. */
  base: string;
  /** The Secrets the rendering read, with their resourceVersions. */
  secrets: string;
  result: RenderResult;
}

function secretKey(ref: { namespace: string; name: string }): string {
  return `${ref.namespace}/${ref.name}`;
}

export class PoolRenderer {
  private readonly ctx: ControllerContext;
  private readonly cache = new Map<string, CachedRender>();
  private readonly settle: RenderSettle;

  constructor(ctx: ControllerContext, settle: RenderSettleOptions) {
    this.ctx = ctx;
    this.settle = new RenderSettle(settle);
  }

  /** Pools whose last rendering read this Secret. */
  poolsUsingSecret(namespace: string, name: string): string[] {
    const wanted = `${namespace}/${name}`;
    return [...this.cache.entries()]
      .filter(([, c]) => c.result.secretRefs.some((r) => secretKey(r) === wanted))
      .map(([pool]) => pool);
  }

  forget(pool: string): void {
    this.cache.delete(pool);
    this.settle.forget(pool);
  }

  /** The revision name the pool's NodeConfigs render to now, writing nothing; undefined when they do not. */
  renderedName(pool: NodeConfigPool): string | undefined {
    if (selectConfigs(pool, this.ctx.informers.configs.list()).length === 0) return undefined;
    const result = this.renderCached(pool);
    return nameOf(pool, result);
  }

  async render(pool: NodeConfigPool, now: number): Promise<PoolRendering> {
    // Selecting nothing is far more often a label typo than a wish to strip every node: no revision.
    if (selectConfigs(pool, this.ctx.informers.configs.list()).length === 0) {
      return {
        outcome: {
          conflicts: [],
          problem: {
            reason: 'NoConfigs',
            message:
              'configSelector selects no NodeConfig; to remove all configuration, select an empty NodeConfig',
          },
        },
        warnings: [],
      };
    }
    const result = this.renderCached(pool);
    // Settling: the input must stay unchanged for the quiet period (bounded) before it is rendered.
    // An input that renders to the pool's target already (a restart, a resync) needs no wait.
    const base = this.cache.get(pool.metadata.name)?.base ?? '';
    const unchanged = nameOf(pool, result) === pool.status?.targetRevision && !!pool.status?.targetRevision;
    const verdict = this.settle.check(pool.metadata.name, base, now, unchanged);
    if (!verdict.settled) return settlingRendering(pool, verdict);
    const outcome: RenderOutcome = { conflicts: result.conflicts };
    if (result.conflicts.length > 0) {
      outcome.problem = {
        reason: 'ConfigConflict',
        message: result.conflicts
          .map((c) => c.message)
          .slice(0, 5)
          .join('; '),
      };
      return { outcome, warnings: result.warnings };
    }
    if (result.errors.length > 0 || !result.config || !result.hash) {
      const missingSecret = result.errors.some((e) => /Secret .* does not exist/.test(e.message));
      outcome.problem = {
        reason: missingSecret ? 'SecretNotFound' : 'InvalidConfig',
        message: result.errors
          .slice(0, 5)
          .map(
            (e) =>
              `${e.source ? `NodeConfig ${e.source}` : 'merged config'}${e.field ? ` ${e.field}` : ''}: ${e.message}`,
          )
          .join('; '),
      };
      return { outcome, warnings: result.warnings };
    }
    const ensured = await this.ctx.revisionWriter.ensure(pool, {
      config: result.config,
      hash: result.hash,
      hashAlgorithm: result.hashAlgorithm,
      sources: result.sources,
    });
    if (!ensured.ok) {
      outcome.problem = { reason: ensured.reason, message: ensured.message };
      return { outcome, warnings: result.warnings };
    }
    return { latest: ensured.ref, created: ensured.created, outcome, warnings: result.warnings };
  }

  private renderCached(pool: NodeConfigPool): RenderResult {
    const { configs, secrets } = this.ctx.informers;
    const selected = selectConfigs(pool, configs.list());
    const versions = (refs: RenderResult['secretRefs']) =>
      refs
        .map((r) => `${secretKey(r)}@${secrets.get(r.name, r.namespace)?.metadata.resourceVersion ?? '-'}`)
        .join(',');
    const base = [
      JSON.stringify(pool.spec.configSelector),
      selected.map((c) => `${c.metadata.name}@${c.metadata.resourceVersion}`).join(','),
    ].join('|');
    const previous = this.cache.get(pool.metadata.name);
    if (previous && previous.base === base && previous.secrets === versions(previous.result.secretRefs)) {
      return previous.result;
    }
    const result = renderPool(pool, selected, {
      secrets: (ref) => {
        const secret = secrets.get(ref.name, ref.namespace);
        const data = secret?.data?.[ref.key];
        if (data === undefined) return undefined;
        return {
          value: new Uint8Array(Buffer.from(data, 'base64')),
          uid: secret!.metadata.uid ?? '',
          resourceVersion: secret!.metadata.resourceVersion ?? '',
        };
      },
    });
    this.cache.set(pool.metadata.name, { base, secrets: versions(result.secretRefs), result });
    return result;
  }
}

function nameOf(pool: NodeConfigPool, result: RenderResult): string | undefined {
  if (result.conflicts.length > 0 || result.errors.length > 0 || !result.config || !result.hash)
    return undefined;
  return revisionName(pool.metadata.name, result.hash);
}

/**
 * While the NodeConfigs settle nothing is rendered, and what the last rendering said stands: a problem
 * it found (RenderDegraded True, a conflict) keeps holding the rollout until a settled rendering says
 * otherwise, so editing a conflicting config does not release a held revision for the quiet period.
 */
function settlingRendering(
  pool: NodeConfigPool,
  settling: { waitMs: number; message: string },
): PoolRendering {
  const previous = findCondition(pool.status?.conditions as StatusCondition[] | undefined, 'RenderDegraded');
  const outcome: RenderOutcome = {
    conflicts: previous?.status === 'True' ? [...(pool.status?.conflicts ?? [])] : [],
    settling: settling.message,
  };
  if (previous?.status === 'True')
    outcome.problem = { reason: previous.reason ?? 'RenderFailed', message: previous.message ?? '' };
  return { outcome, warnings: [], settling };
}

// Whether moving a node from one revision to another needs a drain: the plan() between the two
// revisions (the same function the agent executes) says Drain or Reboot. Plans are cached per pair of
// revisions: revisions are immutable, and a whole pool usually moves between the same two.

import type { NodeConfigRevision } from '../api/types.ts';
import { plan } from '../plan/plan.ts';
import type { Disruption } from '../plan/types.ts';

const DRAINING: ReadonlySet<Disruption> = new Set(['Drain', 'Reboot']);
const CACHE_SIZE = 256;

export class DisruptionPlanner {
  private readonly revision: (name: string) => NodeConfigRevision | undefined;
  private readonly cache = new Map<string, Disruption>();
  private readonly downloads = new Map<string, boolean>();

  constructor(revision: (name: string) => NodeConfigRevision | undefined) {
    this.revision = revision;
  }

  /** The disruption of going from `from` (undefined: nothing applied yet) to `to`; undefined if `to` is unknown. */
  disruption(from: string | undefined, to: string): Disruption | undefined {
    const key = `${from ?? ''}\u0000${to}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const target = this.revision(to);
    if (!target) return undefined;
    const source = from === undefined ? undefined : this.revision(from);
    // A node on a revision we cannot read any more is treated as starting from nothing.
    const result = plan(source ? { config: source.spec.config } : undefined, {
      config: target.spec.config,
    }).disruption;
    if (this.cache.size >= CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, result);
    return result;
  }

  /** Whether going from `from` to `to` installs packages (so a pre-stage has something to download). */
  needsDownload(from: string | undefined, to: string): boolean {
    const key = `${from ?? ''}\u0000${to}`;
    const cached = this.downloads.get(key);
    if (cached !== undefined) return cached;
    const target = this.revision(to);
    if (!target) return false;
    const source = from === undefined ? undefined : this.revision(from);
    const result = plan(source ? { config: source.spec.config } : undefined, {
      config: target.spec.config,
    }).actions.some((action) => action.kind === 'install-package');
    if (this.downloads.size >= CACHE_SIZE) this.downloads.delete(this.downloads.keys().next().value!);
    this.downloads.set(key, result);
    return result;
  }

  needsDrain(from: string | undefined, to: string): boolean {
    const disruption = this.disruption(from, to);
    return disruption !== undefined && DRAINING.has(disruption);
  }
}

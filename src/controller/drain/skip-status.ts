// What the pool's Degraded condition says of nodes skipped under spec.drain.onTimeout Skip: who, and
// why (the detail names the PodDisruptionBudget and the pods that block the drain).

import { plural } from '../plural.ts';
import type { NodeVerdict } from '../rollout/types.ts';

/** Shown in full for the first few; the rest by count. */
const SHOWN = 3;

export function skippedDegraded(verdicts: readonly NodeVerdict[]): string | undefined {
  const skipped = verdicts.filter((v) => v.phase === 'DrainSkipped');
  if (skipped.length === 0) return undefined;
  const shown = skipped.slice(0, SHOWN).map((v) => `${v.name} (${v.detail ?? 'skipped'})`);
  const more = skipped.length > SHOWN ? ` and ${skipped.length - SHOWN} more` : '';
  return `${plural(skipped.length, 'node')} skipped, cordoned and still draining, the rollout going on without ${skipped.length === 1 ? 'it' : 'them'}: ${shown.join('; ')}${more}`;
}

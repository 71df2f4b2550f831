// Whether a pool may start a new revision now, given the pools it waits for: go, or hold with the reason
// and a message naming every pool that holds it and why. Pure: from the predecessors' states, the cycle
// check and the clock.

import { kubeTime } from '../../kube/conditions.ts';
import { plural } from '../plural.ts';
import type { PredecessorState } from './predecessor.ts';

export type WaveReason = 'WaitingForPools' | 'WaveCycle';

export interface WaveInput {
  /** spec.updateStrategy.wave.after. */
  after: readonly string[];
  soakSeconds: number;
  /** Each pool of `after`; undefined when it does not exist. */
  predecessors: ReadonlyMap<string, PredecessorState | undefined>;
  /** A cycle through this pool (waveCycle), if any. */
  cycle?: readonly string[];
  now: number;
}

export type WaveDecision =
  | { go: true }
  | { go: false; reason: WaveReason; message: string; requeueAfterMs?: number };

export function decideWave(input: WaveInput): WaveDecision {
  if (input.cycle) {
    return {
      go: false,
      reason: 'WaveCycle',
      message: `pools wait for each other in a cycle (${input.cycle.join(' → ')}), so none of them can start; remove one from spec.updateStrategy.wave.after`,
    };
  }
  const holds: string[] = [];
  let wakeAt: number | undefined;
  for (const name of input.after) {
    const state = input.predecessors.get(name);
    if (!state) {
      holds.push(`${name} does not exist`);
      continue;
    }
    if (state.hold) {
      holds.push(`${name} ${state.hold}`);
      continue;
    }
    const soaked = (state.completedAt ?? Number.NEGATIVE_INFINITY) + input.soakSeconds * 1000;
    if (soaked > input.now) {
      holds.push(`${name} completed, soaking until ${kubeTime(Math.ceil(soaked / 1000) * 1000)}`);
      wakeAt = Math.min(wakeAt ?? soaked, soaked);
    }
  }
  if (holds.length === 0) return { go: true };
  return {
    go: false,
    reason: 'WaitingForPools',
    message: `waiting for ${plural(holds.length, 'pool')}: ${holds.join('; ')}`,
    ...(wakeAt !== undefined ? { requeueAfterMs: Math.max(0, wakeAt - input.now) } : {}),
  };
}

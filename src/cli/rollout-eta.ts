// How long a rollout takes, as `nodeherd plan` and `nodeherd status` say it: the batches (or waves, or
// start offsets) the strategy would run, each lasting its slowest node's apply plus the soak, batches
// starting only inside maintenance windows. The apply times are estimates per action (below); the soak,
// the batches and the windows are the pool's own, so a rollout whose time is mostly soak and batches is
// estimated closely (docs/cli.md, ETA). Pure: the commands read the objects, this adds up.

import type { DefaultedPoolSpec } from '../api/pool-defaults.ts';
import { maintenanceWindowStatus } from '../controller/rollout/maintenance-windows.ts';

export type EtaAction = 'none' | 'reload' | 'restart' | 'drain' | 'reboot';

/**
 * Seconds a node takes from being given a revision to being healthy on it, before its soak, by what
 * the plan does to it: writing files and reloading is quick; a restart waits for the unit (kubelet's
 * restart and its Node going Ready again); a drain evicts pods first; a reboot boots the machine.
 */
export const APPLY_SECONDS: Readonly<Record<EtaAction, number>> = {
  none: 1,
  reload: 1,
  restart: 3,
  drain: 60,
  reboot: 180,
};

export interface EtaBatch {
  /** The action of each of its nodes. */
  actions: readonly EtaAction[];
  /** Seconds already gone of a batch in flight (status), so only the rest is counted. */
  elapsedSeconds?: number;
}

export interface RolloutEta {
  /** Seconds from `now` until the last batch has soaked. */
  seconds: number;
  /** When that is (ms). */
  endsAt: number;
  batches: number;
  /** minReadySeconds: each batch's soak. */
  soakSeconds: number;
  /** Seconds of it spent waiting for a maintenance window to open. */
  windowWaitSeconds: number;
}

export type EtaResult = { eta: RolloutEta } | { none: string };

/** Batches longer than this many are not walked one by one through windows (a bound, not a limit). */
const MAX_WINDOW_STEPS = 10_000;

function batchSeconds(batch: EtaBatch, soakSeconds: number): number {
  const apply = Math.max(0, ...batch.actions.map((a) => APPLY_SECONDS[a]));
  return Math.max(0, apply + soakSeconds - (batch.elapsedSeconds ?? 0));
}

/** The soak a pool's batches wait: RollingUpdate's minReadySeconds (Serial and Spread share it). */
export function soakSecondsOf(spec: DefaultedPoolSpec): number {
  return spec.updateStrategy.rollingUpdate?.minReadySeconds ?? 0;
}

/** Adds up batches from `now`, each starting inside a maintenance window when the pool has any. */
export function estimateBatches(
  batches: readonly EtaBatch[],
  spec: DefaultedPoolSpec,
  now: number,
): EtaResult {
  const soakSeconds = soakSecondsOf(spec);
  const windows = spec.updateStrategy.rollingUpdate?.maintenanceWindows;
  let t = now;
  let waited = 0;
  if (batches.length > MAX_WINDOW_STEPS && windows?.length) return { none: 'too many batches to estimate' };
  for (const batch of batches) {
    // A batch in flight runs on; a new one starts only inside a window.
    if (windows?.length && batch.elapsedSeconds === undefined) {
      const status = maintenanceWindowStatus(windows, t);
      if (status.error) return { none: `the maintenance windows cannot be read (${status.error})` };
      if (!status.open) {
        if (status.opensAt === undefined) return { none: 'no maintenance window opens again' };
        waited += status.opensAt - t;
        t = status.opensAt;
      }
    }
    t += batchSeconds(batch, soakSeconds) * 1000;
  }
  return {
    eta: {
      seconds: Math.round((t - now) / 1000),
      endsAt: t,
      batches: batches.length,
      soakSeconds,
      windowWaitSeconds: Math.round(waited / 1000),
    },
  };
}

/** Spread: the last node starts at its offset (after the canary, when there is one), then applies and soaks. */
export function estimateOffsets(
  offsets: readonly { offsetSeconds: number; action: EtaAction }[],
  canary: readonly EtaAction[],
  spec: DefaultedPoolSpec,
  now: number,
): EtaResult {
  const soakSeconds = soakSecondsOf(spec);
  const canarySeconds = canary.length > 0 ? batchSeconds({ actions: canary }, soakSeconds) : 0;
  const last = Math.max(
    0,
    ...offsets.map((o) => o.offsetSeconds + batchSeconds({ actions: [o.action] }, soakSeconds)),
  );
  const seconds = Math.round(canarySeconds + last);
  return {
    eta: {
      seconds,
      endsAt: now + seconds * 1000,
      batches: offsets.length,
      soakSeconds,
      windowWaitSeconds: 0,
    },
  };
}

/** "45s", "3m 20s", "2h 5m", "3d 4h". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${s % 60 ? ` ${s % 60}s` : ''}`;
  if (s < 86_400)
    return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60) ? ` ${Math.floor((s % 3600) / 60)}m` : ''}`;
  return `${Math.floor(s / 86_400)}d${Math.floor((s % 86_400) / 3600) ? ` ${Math.floor((s % 86_400) / 3600)}h` : ''}`;
}

/** The ETA in words: "about 33s (5 batches, each soaking 3s; done by 2030-01-01T00:00:33Z)". */
export function etaText(result: EtaResult, prefix = 'about'): string {
  if ('none' in result) return `none: ${result.none}`;
  const e = result.eta;
  const parts = [`${e.batches} ${e.batches === 1 ? 'batch' : 'batches'}`];
  if (e.soakSeconds > 0) parts.push(`each soaking ${formatDuration(e.soakSeconds)}`);
  if (e.windowWaitSeconds > 0)
    parts.push(`${formatDuration(e.windowWaitSeconds)} of it waiting for maintenance windows`);
  parts.push(`done by ${new Date(e.endsAt).toISOString().replace(/\.\d{3}Z$/, 'Z')}`);
  return `${prefix} ${formatDuration(e.seconds)} (${parts.join('; ')})`;
}

// Where the agent finds its sentinel: the pool's spec.reboots.osRequested (sentinelFile, sentinelCommand,
// timeoutSeconds), read by the periodic check only — never on the way to applying or starting, whose
// requests are counted (one watch, one revision read) — at the first one, again when the node's
// applied revision changed since (a rollout, when pools change) and otherwise once `refreshMs` (an
// hour) has passed: 5,000 agents checking every 5 minutes would read their pools 17 times a second for
// a setting that rarely changes. Until the first read, Debian's file is checked. What was read is kept in the state directory, so a restarted agent reads nothing
// before it is due (a quiet restart costs the API server one list, one watch and one revision read). The policy is the controller's business (the agent reboots only when asked). When the
// pool cannot be read, the settings last read hold; before any, the defaults (Debian's file only).

import type { NodeConfigPool } from '../../api/types.ts';
import { isKubeError } from '../../kube/kube-error.ts';
import { resourcePath } from '../../kube/light/api-paths.ts';
import type { LightKubeClient } from '../../kube/light/light-kube-client.ts';
import type { KubeObject } from '../../kube/light/types.ts';
import { isObject, JsonRecordFile } from '../apply/json-record-file.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import { DEFAULT_OS_REBOOT_SETTINGS, type OsRebootSettings } from './reboot-sentinel.ts';

const DEFAULT_SETTINGS_REFRESH_MS = 60 * 60_000;
const READ_TIMEOUT_MS = 5000;

/**
 * The settings for the node's pool (undefined: the node belongs to no pool yet); `revision`, the
 * node's applied revision: a different one than at the last read reads the pool again.
 */
export type RebootSettingsSource = (
  pool: string | undefined,
  revision: string | undefined,
  /** false: answer from what was read before (or the defaults), without a request. */
  mayRead: boolean,
) => Promise<OsRebootSettings>;

/** The settings a pool's spec.reboots.osRequested stands for (validated by the API server). */
function rebootSettingsOf(pool: Pick<NodeConfigPool, 'spec'> | undefined): OsRebootSettings {
  const os = pool?.spec.reboots?.osRequested;
  if (!os) return DEFAULT_OS_REBOOT_SETTINGS;
  const command = Array.isArray(os.sentinelCommand)
    ? os.sentinelCommand.filter((a) => typeof a === 'string')
    : [];
  return {
    sentinelFile:
      typeof os.sentinelFile === 'string' && os.sentinelFile.startsWith('/')
        ? os.sentinelFile
        : DEFAULT_OS_REBOOT_SETTINGS.sentinelFile,
    ...(command.length > 0 ? { sentinelCommand: command } : {}),
    timeoutMs:
      typeof os.timeoutSeconds === 'number' && os.timeoutSeconds > 0
        ? os.timeoutSeconds * 1000
        : DEFAULT_OS_REBOOT_SETTINGS.timeoutMs,
  };
}

const REBOOT_SETTINGS_FILE = 'reboot-settings.json';

interface KnownSettings {
  pool: string;
  /** The node's applied revision when it was read. */
  revision?: string;
  settings: OsRebootSettings;
  /** Epoch ms. */
  readAt: number;
}

function isKnownSettings(value: unknown): value is KnownSettings {
  if (!isObject(value) || typeof value.pool !== 'string' || typeof value.readAt !== 'number') return false;
  if (value.revision !== undefined && typeof value.revision !== 'string') return false;
  const settings = value.settings;
  return (
    isObject(settings) &&
    typeof settings.sentinelFile === 'string' &&
    typeof settings.timeoutMs === 'number' &&
    (settings.sentinelCommand === undefined ||
      (Array.isArray(settings.sentinelCommand) &&
        settings.sentinelCommand.every((a) => typeof a === 'string')))
  );
}

export interface PoolRebootSettingsOptions {
  client: LightKubeClient;
  logger: Logger;
  clock: Clock;
  /** Where the last read is kept across restarts. */
  stateDir: string;
  refreshMs?: number;
}

export function poolRebootSettings(options: PoolRebootSettingsOptions): RebootSettingsSource {
  const { client, logger, clock } = options;
  const refreshMs = options.refreshMs ?? DEFAULT_SETTINGS_REFRESH_MS;
  const file = new JsonRecordFile(options.stateDir, REBOOT_SETTINGS_FILE, isKnownSettings);
  const known = new Map<string, Omit<KnownSettings, 'pool'>>();
  let loaded = false;
  return async (pool, revision, mayRead) => {
    if (pool === undefined) return DEFAULT_OS_REBOOT_SETTINGS;
    if (!loaded) {
      loaded = true;
      const { pool: keptPool, ...kept } = (await file.read()) ?? { pool: undefined };
      if (keptPool !== undefined && 'settings' in kept)
        known.set(keptPool, kept as Omit<KnownSettings, 'pool'>);
    }
    const cached = known.get(pool);
    if (!mayRead) return cached?.settings ?? DEFAULT_OS_REBOOT_SETTINGS;
    if (cached && cached.revision === revision && clock.now() - cached.readAt < refreshMs)
      return cached.settings;
    let settings: OsRebootSettings;
    try {
      settings = rebootSettingsOf(await readPool(client, pool));
    } catch (error) {
      if (!isKubeError(error, 404)) {
        // Asked again at the next check, not only after refreshMs.
        logger.warn({ pool, error: error as Error }, 'could not read the pool for its reboot sentinel');
        return cached?.settings ?? DEFAULT_OS_REBOOT_SETTINGS;
      }
      settings = DEFAULT_OS_REBOOT_SETTINGS; // no such pool (yet): an answer, kept like any other
    }
    const readAt = clock.now();
    const entry = { settings, readAt, ...(revision !== undefined ? { revision } : {}) };
    known.set(pool, entry);
    try {
      await file.write({ pool, ...entry });
    } catch (error) {
      logger.warn({ error: error as Error }, 'could not keep the reboot sentinel settings');
    }
    return settings;
  };
}

async function readPool(client: LightKubeClient, pool: string): Promise<NodeConfigPool> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    client.get<KubeObject & NodeConfigPool>(
      resourcePath({ apiVersion: 'nodeherd.io/v1alpha1', resource: 'nodeconfigpools', name: pool }),
    ),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${READ_TIMEOUT_MS} ms`)), READ_TIMEOUT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
}

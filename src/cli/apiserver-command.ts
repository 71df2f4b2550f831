// `nodeherd apiserver`: runs the embedded Kubernetes-compatible API server in the foreground.

import { resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { parseDuration } from '../api/duration.ts';
import { ApiServer } from '../apiserver/api-server.ts';
import { adminKubeconfigPath } from '../apiserver/auth/credentials.ts';
import {
  type FairnessOptions,
  PRIORITY_LEVELS,
  type PriorityLevel,
} from '../apiserver/chain/priority-and-fairness.ts';
import { DEFAULT_EVENT_TTL_MS } from '../apiserver/controllers/event-ttl.ts';
import { DEFAULT_QUOTA_BYTES } from '../apiserver/storage/types.ts';
import { nodeherdProfile } from '../profile/nodeherd-profile.ts';

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError('must be a port number from 0 to 65535');
  return n;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

/** A duration as kube-apiserver's flags take it: `1h`, `30m`, `1h30m`, `90s`, `500ms`. */
function duration(value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined || ms <= 0)
    throw new InvalidArgumentError('must be a duration such as 60s, 30m, 1h or 500ms');
  return ms;
}

/** `level=n,...` for the priority levels (system, node, workload, anonymous). */
function perLevel(allowZero: boolean) {
  return (value: string): Partial<Record<PriorityLevel, number>> => {
    const out: Partial<Record<PriorityLevel, number>> = {};
    for (const pair of value.split(',')) {
      const [level, count, ...rest] = pair.split('=');
      if (!PRIORITY_LEVELS.includes(level as PriorityLevel) || count === undefined || rest.length > 0)
        throw new InvalidArgumentError(
          `expected level=count pairs separated by commas, the levels being ${PRIORITY_LEVELS.join(', ')}; got ${JSON.stringify(pair)}`,
        );
      const n = Number(count);
      if (!Number.isInteger(n) || n < (allowZero ? 0 : 1))
        throw new InvalidArgumentError(
          `the count for ${level} must be ${allowZero ? 'a non-negative' : 'a positive'} integer, got ${JSON.stringify(count)}`,
        );
      out[level as PriorityLevel] = n;
    }
    return out;
  };
}

interface LimitFlags {
  requestTimeout?: number;
  headersTimeout?: number;
  requestReadTimeout?: number;
  maxConnectionsPerAddress?: number;
  maxRequestsPerIdentity?: Partial<Record<PriorityLevel, number>>;
  maxQueuedPerIdentity?: Partial<Record<PriorityLevel, number>>;
  maxWatchesPerIdentity?: Partial<Record<PriorityLevel, number>>;
  maxWatchBytesPerIdentity?: Partial<Record<PriorityLevel, number>>;
  maxRequestsPerLevel?: Partial<Record<PriorityLevel, number>>;
  queueWait?: number;
  seatMs?: Partial<Record<PriorityLevel, number>>;
  refusalDelay?: number;
}

/** The server options the limit flags give (docs/operations.md lists them). */
export function limitOptions(flags: LimitFlags) {
  const fairness: FairnessOptions = {
    ...(flags.maxRequestsPerIdentity ? { requestsPerIdentity: flags.maxRequestsPerIdentity } : {}),
    ...(flags.maxQueuedPerIdentity ? { queuedPerIdentity: flags.maxQueuedPerIdentity } : {}),
    ...(flags.maxWatchesPerIdentity ? { watchesPerIdentity: flags.maxWatchesPerIdentity } : {}),
    ...(flags.maxWatchBytesPerIdentity ? { watchBytesPerIdentity: flags.maxWatchBytesPerIdentity } : {}),
    ...(flags.maxRequestsPerLevel ? { requestsPerLevel: flags.maxRequestsPerLevel } : {}),
    ...(flags.queueWait !== undefined ? { queueWaitMs: flags.queueWait } : {}),
    ...(flags.seatMs ? { seatMs: flags.seatMs } : {}),
    ...(flags.refusalDelay !== undefined ? { refusalDelayMs: flags.refusalDelay } : {}),
  };
  return {
    fairness,
    ...(flags.requestTimeout !== undefined ? { requestTimeoutMs: flags.requestTimeout } : {}),
    ...(flags.headersTimeout !== undefined ? { headersTimeoutMs: flags.headersTimeout } : {}),
    ...(flags.requestReadTimeout !== undefined ? { requestReadTimeoutMs: flags.requestReadTimeout } : {}),
    ...(flags.maxConnectionsPerAddress !== undefined
      ? { maxConnectionsPerAddress: flags.maxConnectionsPerAddress }
      : {}),
  };
}

export function apiserverCommand(): Command {
  return new Command('apiserver')
    .description('run the embedded Kubernetes-compatible API server (SQLite storage, HTTPS, bearer tokens)')
    .option(
      '--data-dir <dir>',
      'where state, certificates and the admin kubeconfig live',
      '.nodeherd/apiserver',
    )
    .option('--port <port>', 'HTTPS port on the bind address (0 picks a free one)', port, 6443)
    .option('--bind-address <addr>', 'address to listen on', '127.0.0.1')
    .option('--tls-san <name...>', 'extra host names or IP addresses for the serving certificate', [])
    .option('--retain-revisions <n>', 'revisions of history kept for watch resume', positiveInt, 10_000)
    .option(
      '--storage-quota-bytes <n>',
      "bytes of storage at which writes are refused (etcd's --quota-backend-bytes); deletes and Lease renewals go on",
      positiveInt,
      DEFAULT_QUOTA_BYTES,
    )
    .addOption(
      new Option('--event-ttl <duration>', 'how long an Event is kept after its last write')
        .argParser(duration)
        .default(DEFAULT_EVENT_TTL_MS, '1h'),
    )
    .option(
      '--agent-artefacts <dir>',
      'serve the built agent (npm run build:agent) at /nodeherd/agent/ for nodeherd-init',
    )
    .option(
      '--request-timeout <duration>',
      'answer a request (not a watch) 504 after this (default 60s)',
      duration,
    )
    .option(
      '--headers-timeout <duration>',
      "close a connection whose request's headers take longer (default 60s)",
      duration,
    )
    .option(
      '--request-read-timeout <duration>',
      'close a connection whose request, body included, takes longer to arrive (default 60s)',
      duration,
    )
    .option(
      '--max-connections-per-address <n>',
      'connections one client address may hold (default 1000, loopback unlimited; given, loopback too)',
      positiveInt,
    )
    .option(
      '--max-requests-per-identity <level=n,...>',
      'requests one identity is served at once, by priority level (default system=200,node=4,workload=8,anonymous=8)',
      perLevel(false),
    )
    .option(
      '--max-queued-per-identity <level=n,...>',
      'requests of one identity that may wait for a seat (default system=1000,node=16,workload=32,anonymous=64)',
      perLevel(true),
    )
    .option(
      '--max-watches-per-identity <level=n,...>',
      'watches one identity may hold open (default system=1000,node=8,workload=32,anonymous=0)',
      perLevel(true),
    )
    .option(
      '--max-watch-bytes-per-identity <level=n,...>',
      "unsent output one identity's watches may hold together before they are cut off; 0: none (default system=0,node=16777216,workload=16777216,anonymous=0)",
      perLevel(true),
    )
    .option(
      '--max-requests-per-level <level=n,...>',
      "requests of a level's identities served at once; system's is the server's total (default system=600,node=400,workload=100,anonymous=20)",
      perLevel(false),
    )
    .option(
      '--queue-wait <duration>',
      'how long a request may wait for a seat before 429 (default 15s)',
      duration,
    )
    .action(
      async (
        opts: LimitFlags & {
          dataDir: string;
          port: number;
          bindAddress: string;
          tlsSan: string[];
          retainRevisions: number;
          storageQuotaBytes: number;
          eventTtl: number;
          agentArtefacts?: string;
        },
      ) => {
        const dataDir = resolve(opts.dataDir);
        const server = await ApiServer.start({
          dataDir,
          port: opts.port,
          host: opts.bindAddress,
          extraSans: opts.tlsSan,
          retainRevisions: opts.retainRevisions,
          storageQuotaBytes: opts.storageQuotaBytes,
          eventTtlMs: opts.eventTtl,
          ...limitOptions(opts),
          // The artefacts are served before authentication (nodeherd-init has no credential yet).
          profile: nodeherdProfile(
            opts.agentArtefacts === undefined ? {} : { artefactDirectory: resolve(opts.agentArtefacts) },
          ),
        });
        process.stdout.write(
          `nodeherd API server listening on ${server.url}\nadmin kubeconfig: ${adminKubeconfigPath(dataDir)}\n`,
        );
        process.stdout.write(`  export KUBECONFIG=${adminKubeconfigPath(dataDir)}\n`);
        const shutdown = () => {
          server.stop().then(
            () => process.exit(0),
            () => process.exit(1),
          );
        };
        process.once('SIGINT', shutdown);
        process.once('SIGTERM', shutdown);
      },
    );
}

// `nodeherd apiserver`: runs the embedded Kubernetes-compatible API server in the foreground.

import { resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { ApiServer } from '../apiserver/api-server.ts';
import { adminKubeconfigPath } from '../apiserver/auth/credentials.ts';
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

/** A duration as kube-apiserver's flags take it: `1h`, `30m`, `1h30m`, `90s`. */
function duration(value: string): number {
  const match = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(value);
  const ms = match
    ? (Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0)) * 1000
    : 0;
  if (ms <= 0) throw new InvalidArgumentError('must be a duration such as 1h, 30m or 90s');
  return ms;
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
    .action(
      async (opts: {
        dataDir: string;
        port: number;
        bindAddress: string;
        tlsSan: string[];
        retainRevisions: number;
        storageQuotaBytes: number;
        eventTtl: number;
        agentArtefacts?: string;
      }) => {
        const dataDir = resolve(opts.dataDir);
        const server = await ApiServer.start({
          dataDir,
          port: opts.port,
          host: opts.bindAddress,
          extraSans: opts.tlsSan,
          retainRevisions: opts.retainRevisions,
          storageQuotaBytes: opts.storageQuotaBytes,
          eventTtlMs: opts.eventTtl,
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

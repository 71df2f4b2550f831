// The nodeherd-controller command line: flags, logging, signals. A replica that loses leadership exits
// (the Deployment restarts it as a fresh standby), as client-go's leader election recommends.

import { Command, Option } from 'commander';
import pino from 'pino';
import { loadClusterConfig } from '../kube/cluster-config.ts';
import {
  DEFAULT_RENDER_SETTLE,
  type RenderSettleOptions,
  renderSettleOptions,
} from './configs/config-settle.ts';
import { type ControllerArtefactsOptions, ControllerManager } from './controller-manager.ts';

export interface ControllerFlags {
  kubeconfig?: string;
  context?: string;
  metricsAddress?: string;
  metricsAuth: boolean;
  leaderElect: boolean;
  leaderElectionNamespace: string;
  leaseDuration: number;
  workers: number;
  logLevel: string;
  artefactsDir?: string;
  artefactsAddress: string;
  artefactsTlsCertFile?: string;
  artefactsTlsKeyFile?: string;
  daemonsetUpdates: boolean;
  renderQuietPeriod: number;
  renderMaxDelay: number;
}

export function controllerCommand(): Command {
  return new Command('nodeherd-controller')
    .description('Renders NodeConfigPools into revisions and rolls them out across their nodes.')
    .option('--kubeconfig <path>', 'kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster)')
    .option('--context <name>', 'kubeconfig context to use')
    .option(
      '--metrics-address <host:port>',
      'serve /metrics, /healthz and /readyz here (default: :8080 with --metrics-auth, else 127.0.0.1:8080)',
    )
    .addOption(
      new Option(
        '--metrics-auth [bool]',
        '/metrics only for bearer tokens the API server authenticates (TokenReview) and authorizes (SubjectAccessReview: get /metrics)',
      )
        .default(true)
        .argParser((v) => v !== 'false'),
    )
    .addOption(
      new Option('--leader-elect [bool]', 'run only while holding the leader Lease')
        .default(true)
        .argParser((v) => v !== 'false'),
    )
    .option('--no-leader-elect', 'run without leader election (a single replica)')
    .option('--leader-election-namespace <ns>', 'namespace of the leader Lease', 'nodeherd')
    .option(
      '--lease-duration <seconds>',
      'leader lease duration; a standby takes over within it',
      (v) => Number(v),
      15,
    )
    .option('--workers <n>', 'pools reconciled in parallel', (v) => Number(v), 4)
    .option(
      '--render-quiet-period <ms>',
      "render a pool's NodeConfigs only after this long without a change to them",
      (v) => Number(v),
      DEFAULT_RENDER_SETTLE.quietMs,
    )
    .option(
      '--render-max-delay <ms>',
      'but at most this long after the first change of a burst',
      (v) => Number(v),
      DEFAULT_RENDER_SETTLE.maxDelayMs,
    )
    .option('--log-level <level>', 'trace, debug, info, warn, error', 'info')
    .option('--artefacts-dir <dir>', 'serve the agent artefacts in this directory to nodeherd-init (HTTPS)')
    .option('--artefacts-address <host:port>', 'HTTPS listener of the artefacts', ':8443')
    .option('--artefacts-tls-cert-file <path>', 'serving certificate of the artefacts listener (PEM)')
    .option('--artefacts-tls-key-file <path>', 'its private key (PEM)')
    .addOption(
      new Option(
        '--daemonset-updates [bool]',
        "nodeherd's update strategies for annotated OnDelete DaemonSets (needs the RBAC of deploy/components/daemonset-updates)",
      )
        .default(false)
        .argParser((v) => v !== 'false'),
    );
}

/** Unauthenticated metrics are served on every interface only when asked for explicitly. */
export function metricsListenAddress(flags: Pick<ControllerFlags, 'metricsAddress' | 'metricsAuth'>): string {
  return flags.metricsAddress ?? (flags.metricsAuth ? ':8080' : '127.0.0.1:8080');
}

/** The artefacts endpoint the flags ask for; throws naming the flag that is missing. */
export function artefactsOptions(flags: ControllerFlags): ControllerArtefactsOptions | undefined {
  const tls = flags.artefactsTlsCertFile !== undefined || flags.artefactsTlsKeyFile !== undefined;
  if (flags.artefactsDir === undefined) {
    if (tls) throw new Error('--artefacts-tls-cert-file and --artefacts-tls-key-file need --artefacts-dir');
    return undefined;
  }
  // No plain HTTP: nodeherd-init trusts the checksums it downloads only as far as the channel.
  if (flags.artefactsTlsCertFile === undefined || flags.artefactsTlsKeyFile === undefined) {
    throw new Error(
      '--artefacts-dir needs --artefacts-tls-cert-file and --artefacts-tls-key-file (HTTPS only)',
    );
  }
  return {
    directory: flags.artefactsDir,
    address: flags.artefactsAddress,
    certFile: flags.artefactsTlsCertFile,
    keyFile: flags.artefactsTlsKeyFile,
  };
}

export async function runController(argv: readonly string[]): Promise<void> {
  const program = controllerCommand();
  program.parse(argv as string[]);
  const flags = program.opts<ControllerFlags>();
  const logger = pino({ level: flags.logLevel });
  let artefacts: ControllerArtefactsOptions | undefined;
  let renderSettle: RenderSettleOptions | undefined;
  try {
    artefacts = artefactsOptions(flags);
    renderSettle = renderSettleOptions(
      { quietMs: flags.renderQuietPeriod, maxDelayMs: flags.renderMaxDelay },
      { quietMs: '--render-quiet-period', maxDelayMs: '--render-max-delay' },
    );
  } catch (error) {
    program.error(`nodeherd-controller: ${(error as Error).message}`);
  }
  const kubeConfig = await loadClusterConfig({
    ...(flags.kubeconfig ? { kubeconfig: flags.kubeconfig } : {}),
    ...(flags.context ? { context: flags.context } : {}),
  });
  const leaseMs = flags.leaseDuration * 1000;
  const manager = new ControllerManager({
    kubeConfig,
    logger,
    leaderElect: flags.leaderElect,
    leaseNamespace: flags.leaderElectionNamespace,
    leaseDurationMs: leaseMs,
    renewDeadlineMs: Math.round((leaseMs * 2) / 3),
    retryPeriodMs: Math.round(leaseMs / 7.5),
    metricsAddress: metricsListenAddress(flags),
    metricsAuth: flags.metricsAuth,
    ...(artefacts ? { artefacts } : {}),
    controller: { workers: flags.workers, daemonSetUpdates: flags.daemonsetUpdates, renderSettle },
  });
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await manager.stop();
    process.exit(code);
  };
  process.on('SIGTERM', () => void stop(0));
  process.on('SIGINT', () => void stop(0));
  await manager.start();
  logger.info({ identity: manager.identity, leaderElect: flags.leaderElect }, 'nodeherd-controller running');
  if (flags.leaderElect) {
    // Exit when leadership is lost, so no stale state of the old term survives.
    let led = false;
    const check = setInterval(() => {
      if (manager.leading) led = true;
      else if (led) {
        clearInterval(check);
        logger.warn('lost leadership; exiting');
        void stop(1);
      }
    }, 250);
  }
}

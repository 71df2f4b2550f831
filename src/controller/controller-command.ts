// The nodeherd-controller command line: flags, logging, signals. A replica that loses leadership exits
// (the Deployment restarts it as a fresh standby), as client-go's leader election recommends.

import { Command, Option } from 'commander';
import pino from 'pino';
import { loadKubeConfig } from '../kube/kube-config.ts';
import { ControllerManager } from './controller-manager.ts';

export interface ControllerFlags {
  kubeconfig?: string;
  context?: string;
  metricsAddress: string;
  leaderElect: boolean;
  leaderElectionNamespace: string;
  leaseDuration: number;
  workers: number;
  logLevel: string;
}

export function controllerCommand(): Command {
  return new Command('nodeherd-controller')
    .description('Renders NodeConfigPools into revisions and rolls them out across their nodes.')
    .option('--kubeconfig <path>', 'kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster)')
    .option('--context <name>', 'kubeconfig context to use')
    .option('--metrics-address <host:port>', 'serve /metrics, /healthz and /readyz here', ':8080')
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
    .option('--log-level <level>', 'trace, debug, info, warn, error', 'info');
}

export async function runController(argv: readonly string[]): Promise<void> {
  const program = controllerCommand();
  program.parse(argv as string[]);
  const flags = program.opts<ControllerFlags>();
  const logger = pino({ level: flags.logLevel });
  const kubeConfig = loadKubeConfig({
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
    metricsAddress: flags.metricsAddress,
    controller: { workers: flags.workers },
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

// Runs the rollout controller the way the Deployment does: a metrics endpoint always, and the controller
// only while this replica holds the leader Lease (or always, without leader election). Losing the lease
// stops the controller at once; the replica then campaigns again as a standby.

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import pino, { type Logger } from 'pino';
import { NAMESPACE } from '../api/group.ts';
import { type ArtefactServer, startArtefactServer } from '../dist/artefact-server.ts';
import type { ClusterConfig } from '../kube/cluster-config.ts';
import { KubeClient } from '../kube/kube-client.ts';
import { LeaderElector } from '../kube/leader-election.ts';
import { ControllerMetrics } from './metrics.ts';
import { DelegatingMetricsAuthorizer } from './metrics-auth.ts';
import { MetricsServer, parseListenAddress } from './metrics-server.ts';
import { RolloutController, type RolloutControllerOptions } from './rollout-controller.ts';

export const LEADER_LEASE_NAMESPACE = NAMESPACE;
export const LEADER_LEASE_NAME = 'nodeherd-controller';

export interface ControllerManagerOptions {
  kubeConfig: ClusterConfig;
  logger?: Logger;
  leaderElect?: boolean;
  leaseNamespace?: string;
  leaseName?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** host:port for /metrics, /healthz, /readyz; undefined: no endpoint. */
  metricsAddress?: string;
  /**
   * /metrics only for bearer tokens the API server authenticates (TokenReview) and authorizes
   * (SubjectAccessReview, get on /metrics): nodeherd-controller's default. Off, anyone who can connect
   * reads the metrics, so bind a loopback address.
   */
  metricsAuth?: boolean;
  /**
   * Serve the agent's artefacts (npm run build:agent's directory) over HTTPS for nodeherd-init, on
   * every replica (leader or not: the files are static). See docs/real-cluster.md.
   */
  artefacts?: ControllerArtefactsOptions;
  identity?: string;
  controller?: Partial<Omit<RolloutControllerOptions, 'kubeConfig' | 'metrics' | 'logger' | 'identity'>>;
}

export interface ControllerArtefactsOptions {
  directory: string;
  /** host:port of the HTTPS listener, e.g. :8443. */
  address: string;
  /** The serving certificate and key (PEM files, read again when they change). */
  certFile: string;
  keyFile: string;
}

export class ControllerManager {
  readonly identity: string;
  readonly metrics = new ControllerMetrics();
  private readonly options: ControllerManagerOptions;
  private readonly logger: Logger;
  private readonly elector: LeaderElector | undefined;
  private readonly electionClient: KubeClient | undefined;
  private metricsServer: MetricsServer | undefined;
  private metricsClient: KubeClient | undefined;
  private artefactServer: ArtefactServer | undefined;
  private controller: RolloutController | undefined;
  metricsUrl: string | undefined;
  /** Base URL of the agent artefacts (nodeherd-init's --artefacts), when served. */
  artefactsUrl: string | undefined;

  constructor(options: ControllerManagerOptions) {
    this.options = options;
    this.logger = options.logger ?? pino({ level: 'silent' });
    this.identity = options.identity ?? `${hostname()}_${randomBytes(4).toString('hex')}`;
    if (options.leaderElect !== false) {
      this.electionClient = new KubeClient(options.kubeConfig);
      this.elector = new LeaderElector({
        client: this.electionClient,
        namespace: options.leaseNamespace ?? LEADER_LEASE_NAMESPACE,
        name: options.leaseName ?? LEADER_LEASE_NAME,
        identity: this.identity,
        ...(options.leaseDurationMs !== undefined ? { leaseDurationMs: options.leaseDurationMs } : {}),
        ...(options.renewDeadlineMs !== undefined ? { renewDeadlineMs: options.renewDeadlineMs } : {}),
        ...(options.retryPeriodMs !== undefined ? { retryPeriodMs: options.retryPeriodMs } : {}),
        onStartedLeading: () => this.startController(),
        onStoppedLeading: () => this.stopController(),
        onNewLeader: (leader) => this.logger.info({ leader }, 'leader'),
        logger: this.logger,
      });
    }
  }

  get leading(): boolean {
    return this.controller !== undefined;
  }

  /** The running controller (while leading). */
  get current(): RolloutController | undefined {
    return this.controller;
  }

  async start(): Promise<void> {
    if (this.options.metricsAddress !== undefined) {
      if (this.options.metricsAuth) this.metricsClient = new KubeClient(this.options.kubeConfig);
      else if (!isLoopback(parseListenAddress(this.options.metricsAddress).host)) {
        this.logger.warn(
          { address: this.options.metricsAddress },
          '/metrics answers anyone who connects: serve it on a loopback address or with authentication',
        );
      }
      this.metricsServer = new MetricsServer({
        address: this.options.metricsAddress,
        ...(this.metricsClient ? { auth: new DelegatingMetricsAuthorizer(this.metricsClient) } : {}),
        registry: this.metrics.registry,
        // A standby is ready (it is waiting, as it should); a leader once its caches are synced.
        ready: () => (this.controller ? this.controller.ready : true),
      });
      this.metricsUrl = await this.metricsServer.listen();
      this.logger.info({ url: this.metricsUrl }, 'metrics endpoint listening');
    }
    const artefacts = this.options.artefacts;
    if (artefacts) {
      const { host, port } = parseListenAddress(artefacts.address);
      this.artefactServer = await startArtefactServer({
        directory: artefacts.directory,
        certFile: artefacts.certFile,
        keyFile: artefacts.keyFile,
        host,
        port,
      });
      this.artefactsUrl = this.artefactServer.url;
      this.logger.info({ url: this.artefactsUrl }, 'serving the agent artefacts');
    }
    if (this.elector) this.elector.start();
    else await this.startController();
  }

  /** Stops; release: false leaves the leader Lease to expire, as a crash would. */
  async stop(options: { release?: boolean } = {}): Promise<void> {
    if (this.elector) await this.elector.stop(options);
    await this.stopController();
    this.electionClient?.close();
    await this.metricsServer?.close();
    this.metricsClient?.close();
    await this.artefactServer?.close();
  }

  private async startController(): Promise<void> {
    if (this.controller) return;
    const controller = new RolloutController({
      ...this.options.controller,
      kubeConfig: this.options.kubeConfig,
      metrics: this.metrics,
      logger: this.logger,
      identity: this.identity,
    });
    this.controller = controller;
    this.metrics.leader.set(1);
    try {
      await controller.start();
    } catch (err) {
      // Stopped while starting (leadership lost), or the caches could not be filled.
      if (this.controller === controller) this.logger.error({ err }, 'controller failed to start');
    }
  }

  // Never waits for a start in progress: stopping the informers is what ends a start that hangs.
  private async stopController(): Promise<void> {
    const controller = this.controller;
    if (!controller) return;
    this.controller = undefined;
    this.metrics.leader.set(0);
    await controller.stop();
  }
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

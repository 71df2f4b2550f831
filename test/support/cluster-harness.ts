// An embedded control plane, a fleet of simulated nodes running the real agent, and the rollout
// controller under its own (least-privilege) identity: what the controller integration tests and the
// benchmark run against.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import pino from 'pino';
import { revisionName } from '../../src/api/hash.ts';
import { CURRENT_REVISION_ANNOTATION } from '../../src/api/node-protocol.ts';
import { renderConfigs } from '../../src/api/render.ts';
import type { NodeConfigPoolSpec, NodeConfigSpec, RollingUpdate } from '../../src/api/types.ts';
import { RolloutController, type RolloutControllerOptions } from '../../src/controller/rollout-controller.ts';
import { KubeClient } from '../../src/kube/kube-client.ts';
import { loadKubeConfig } from '../../src/kube/kube-config.ts';
import { isKubeError } from '../../src/kube/kube-error.ts';
import { LightKubeClient } from '../../src/kube/light/light-kube-client.ts';
import { Fleet, type FleetOptions, type NodeTemplate } from '../../src/sim/fleet.ts';
import {
  embeddedKubeletIdentities,
  embeddedNodeIdentities,
  sharedClient,
} from '../../src/sim/node-clients.ts';
import { type SimulatedNodeAgentsOptions, simulatedNodeAgents } from '../../src/sim/simulated-node-agents.ts';
import { eventually as pollUntil } from './eventually.ts';
import { type LocalApiServer, startLocalApiServer } from './local-apiserver.ts';

export const GROUP_PATH = '/apis/nodeherd.io/v1alpha1';

/** Health probes whose URL contains this fail on every simulated node (a config that breaks a service). */
export const FAILING_PROBE_MARK = 'simulate-failure';

export interface HarnessOptions {
  /** Node lease grace period of the API server (and the nodes' lease duration). */
  graceMs?: number;
  fleet?: Partial<FleetOptions>;
  agents?: Partial<SimulatedNodeAgentsOptions>;
  /** Every node its own identity (default) or one shared admin client (large fleets). */
  nodeIdentities?: boolean;
}

export class ClusterHarness {
  readonly local: LocalApiServer;
  readonly admin: KubeClient;
  readonly light: LightKubeClient;
  readonly fleet: Fleet;
  readonly controllerKubeconfig: string;
  private readonly stateRoot: string;
  private readonly controllers = new Set<RolloutController>();

  private constructor(
    local: LocalApiServer,
    fleet: Fleet,
    light: LightKubeClient,
    controllerKubeconfig: string,
    stateRoot: string,
  ) {
    this.local = local;
    this.fleet = fleet;
    this.light = light;
    this.admin = new KubeClient(loadKubeConfig({ kubeconfig: local.kubeconfigPath }));
    this.controllerKubeconfig = controllerKubeconfig;
    this.stateRoot = stateRoot;
  }

  static async start(options: HarnessOptions = {}): Promise<ClusterHarness> {
    const graceMs = options.graceMs ?? 2_000;
    const local = await startLocalApiServer({ nodeMonitorGracePeriodMs: graceMs });
    const controllerKubeconfig = join(local.dataDir, 'controller.kubeconfig');
    await local.server.issueCredential('controller', undefined, controllerKubeconfig);
    const light = LightKubeClient.fromKubeconfig(local.kubeconfigPath);
    const stateRoot = mkdtempSync(join(tmpdir(), 'nodeherd-controller-test-'));
    const fleet = new Fleet({
      clientFor:
        options.nodeIdentities === false
          ? sharedClient(light)
          : embeddedNodeIdentities(local.server, join(local.dataDir, 'sim-nodes')),
      ...(options.nodeIdentities === false
        ? {}
        : { kubeletClientFor: embeddedKubeletIdentities(local.server, join(local.dataDir, 'sim-nodes')) }),
      adminClient: light,
      leaseDurationSeconds: Math.max(1, Math.round(graceMs / 1000)),
      renewIntervalMs: graceMs / 4,
      startupNotReadyMs: 200,
      agent: simulatedNodeAgents({
        stateRoot,
        probeRule: (probe) =>
          probe.http?.url.includes(FAILING_PROBE_MARK)
            ? { ok: false, detail: 'HTTP 503 (simulated failure)' }
            : undefined,
        ...options.agents,
        agent: { unitTimeoutMs: 2_000, ...options.agents?.agent },
      }),
      systemd: { targetDurations: { 'kubelet.service': { restart: 50 } } },
      ...options.fleet,
    });
    return new ClusterHarness(local, fleet, light, controllerKubeconfig, stateRoot);
  }

  /** The admin's KubeConfig (the local API server's kubeconfig). */
  adminConfig(): KubeConfig {
    return loadKubeConfig({ kubeconfig: this.local.kubeconfigPath });
  }

  controllerConfig(): KubeConfig {
    return loadKubeConfig({ kubeconfig: this.controllerKubeconfig });
  }

  /** Starts a controller with the controller identity (several may run, e.g. across a "restart"). */
  async startController(options: Partial<RolloutControllerOptions> = {}): Promise<RolloutController> {
    const controller = new RolloutController({
      kubeConfig: this.controllerConfig(),
      logger: pino({ level: process.env.NODEHERD_TEST_LOG ?? 'silent' }),
      drainBackoff: { initialMs: 100, maxMs: 1_000 },
      ...options,
    });
    this.controllers.add(controller);
    await controller.start();
    return controller;
  }

  async stopController(controller: RolloutController): Promise<void> {
    await controller.stop();
    this.controllers.delete(controller);
  }

  async applyConfig(name: string, spec: NodeConfigSpec, labels: Record<string, string> = {}): Promise<void> {
    const body = { apiVersion: 'nodeherd.io/v1alpha1', kind: 'NodeConfig', metadata: { name, labels }, spec };
    try {
      await this.admin.create(`${GROUP_PATH}/nodeconfigs`, body);
    } catch (err) {
      if (!isKubeError(err, 409)) throw err;
      await this.admin.patch(`${GROUP_PATH}/nodeconfigs/${name}`, { metadata: { labels }, spec }, 'merge');
    }
  }

  async createPool(name: string, spec: NodeConfigPoolSpec): Promise<void> {
    await this.admin.create(`${GROUP_PATH}/nodeconfigpools`, {
      apiVersion: 'nodeherd.io/v1alpha1',
      kind: 'NodeConfigPool',
      metadata: { name },
      spec,
    });
  }

  /**
   * Creates and starts `count` simulated nodes `<prefix>-<i>` (prefix: the pool's name unless given),
   * labelled pool=`pool` and with `labels(i)`, node i in zone `zones[i]` (round robin; zone-a unless
   * given); returns their names.
   */
  async startNodes(pool: string, count: number, options: StartNodesOptions = {}): Promise<string[]> {
    const zones = options.zones ?? ['zone-a'];
    const nodes = [];
    for (let i = 0; i < count; i++)
      nodes.push(
        await this.fleet.create({
          name: `${options.prefix ?? pool}-${i}`,
          zone: zones[i % zones.length] ?? 'zone-a',
          labels: { pool, ...options.labels?.(i) },
        }),
      );
    await this.fleet.startAll(nodes);
    return nodes.map((n) => n.name);
  }

  /** Adds `count` started simulated nodes (Fleet.add, `template` over pool=`pool`); their names, sorted. */
  async addNodes(pool: string, count: number, template: NodeTemplate = {}): Promise<string[]> {
    const nodes = await this.fleet.add(count, { ...template, labels: { pool, ...template.labels } });
    return nodes.map((n) => n.name).sort();
  }

  /**
   * Applies NodeConfig `configName` (labelled pool=`pool`) and creates pool `pool` over the nodes and
   * configs so labelled (poolSelecting).
   */
  async labelledPool(
    pool: string,
    configName: string,
    config: NodeConfigSpec,
    spec: Partial<NodeConfigPoolSpec> = {},
  ): Promise<void> {
    await this.applyConfig(configName, config, { pool });
    await this.createPool(pool, poolSelecting(pool, spec));
  }

  /**
   * Applies NodeConfig `configName` (labelled pool=`pool`), creates pool `pool` over the nodes and
   * configs so labelled (poolSelecting), and waits until its first revision is complete.
   */
  async poolOnFirstRevision(
    pool: string,
    configName: string,
    config: NodeConfigSpec,
    spec: Partial<NodeConfigPoolSpec> = {},
    timeoutMs?: number,
  ): Promise<PoolObject> {
    await this.labelledPool(pool, configName, config, spec);
    return this.poolWhere(
      pool,
      'first revision',
      (p) => condition(p, 'Complete')?.status === 'True',
      timeoutMs,
    );
  }

  /** Polls pool `name` until `ok` holds of it; returns it then. */
  poolWhere(
    name: string,
    what: string,
    ok: (p: PoolObject) => boolean,
    timeoutMs = 30_000,
    intervalMs = 50,
  ): Promise<PoolObject> {
    return eventually(
      what,
      async () => {
        const p = await this.getPool(name);
        return ok(p) ? p : undefined;
      },
      timeoutMs,
      intervalMs,
    );
  }

  async patchPool(name: string, patch: unknown): Promise<void> {
    await this.admin.patch(`${GROUP_PATH}/nodeconfigpools/${name}`, patch, 'merge');
  }

  getPool(name: string): Promise<PoolObject> {
    return this.admin.get<PoolObject>(`${GROUP_PATH}/nodeconfigpools/${name}`);
  }

  async nodes(labelSelector: string): Promise<NodeObject[]> {
    return (await this.admin.list<never>('/api/v1/nodes', { labelSelector }))
      .items as unknown as NodeObject[];
  }

  /** Waits until none of the nodes `labelSelector` picks carries any of `annotations`. */
  async untilNoNodeCarries(
    labelSelector: string,
    annotations: readonly string[],
    what: string,
  ): Promise<void> {
    await eventually(
      what,
      async () =>
        (await this.nodes(labelSelector)).every((n) => annotations.every((a) => !n.metadata.annotations?.[a]))
          ? true
          : undefined,
      30_000,
    );
  }

  /** How many of the nodes `labelSelector` picks report `revision` as their current one. */
  async nodesOnRevision(labelSelector: string, revision: string): Promise<number> {
    return (await this.nodes(labelSelector)).filter(
      (n) => n.metadata.annotations?.[CURRENT_REVISION_ANNOTATION] === revision,
    ).length;
  }

  async events(
    kind: string,
    name: string,
  ): Promise<{ reason: string; message: string; type: string; count: number }[]> {
    const list = await this.admin.list<never>('/api/v1/events', {
      fieldSelector: `involvedObject.kind=${kind},involvedObject.name=${name}`,
    });
    return list.items as unknown as { reason: string; message: string; type: string; count: number }[];
  }

  async stop(): Promise<void> {
    for (const controller of this.controllers) await controller.stop();
    await this.fleet.close();
    this.admin.close();
    this.light.close();
    await this.local.stop();
    rmSync(this.stateRoot, { recursive: true, force: true });
  }
}

export interface StartNodesOptions {
  /** The nodes' name prefix; the pool's name unless given. */
  prefix?: string;
  /** Node i's zone is zones[i % zones.length]. */
  zones?: string[];
  /** Node i's labels besides pool. */
  labels?: (i: number) => Record<string, string>;
}

/** A pool spec selecting the nodes and NodeConfigs labelled pool=`pool`, with the rest of `spec`. */
export function poolSelecting(pool: string, spec: Partial<NodeConfigPoolSpec> = {}): NodeConfigPoolSpec {
  return {
    nodeSelector: { matchLabels: { pool } },
    configSelector: { matchLabels: { pool } },
    ...spec,
  };
}

/** A RollingUpdate strategy, maxUnavailable 1 unless `settings` say otherwise. */
export function rollingUpdate(settings: RollingUpdate): NonNullable<NodeConfigPoolSpec['updateStrategy']> {
  return { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, ...settings } };
}

/** The pool's Complete condition is True (on `revision`, when given). */
export const complete =
  (revision?: string) =>
  (p: PoolObject): boolean =>
    condition(p, 'Complete')?.status === 'True' &&
    (revision === undefined || p.status?.targetRevision === revision);

/** Complete on a target other than `first` (a second revision rolled out). */
export const completeAfter =
  (first: string | undefined) =>
  (p: PoolObject): boolean =>
    p.status?.targetRevision !== first && condition(p, 'Complete')?.status === 'True';

/** The revision name the controller will give these NodeConfigs (name → spec) in a pool. */
export function revisionNameFor(pool: string, configs: Record<string, NodeConfigSpec>): string {
  const result = renderConfigs(
    Object.entries(configs).map(([name, spec]) => ({
      apiVersion: 'nodeherd.io/v1alpha1' as const,
      kind: 'NodeConfig' as const,
      metadata: { name },
      spec,
    })),
  );
  if (!result.hash)
    throw new Error(`configs do not render: ${JSON.stringify(result.errors ?? result.conflicts)}`);
  return revisionName(pool, result.hash);
}

export interface NodeObject {
  metadata: {
    name: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec?: { unschedulable?: boolean };
  status?: { conditions?: { type: string; status: string; message?: string }[] };
}

export interface PoolObject {
  metadata: {
    name: string;
    resourceVersion?: string;
    generation?: number;
    annotations?: Record<string, string>;
  };
  spec: NodeConfigPoolSpec;
  status?: {
    observedGeneration?: number;
    targetRevision?: string;
    currentRevision?: string;
    nodes?: number;
    updated?: number;
    ready?: number;
    unavailable?: number;
    failed?: number;
    applying?: number;
    updateAvailable?: number;
    waiting?: number;
    nextWindowOpen?: string;
    windowClosesAt?: string;
    revisions?: { name: string; revision: number; nodes?: number; ready?: number; failed?: number }[];
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
    history?: {
      revision: number;
      name?: string;
      result: string;
      message?: string;
      startedAt?: string;
      finishedAt?: string;
    }[];
    conflicts?: unknown[];
  };
}

export function condition(
  pool: PoolObject,
  type: string,
): { status: string; reason?: string; message?: string } | undefined {
  return pool.status?.conditions?.find((c) => c.type === type);
}

/** Polls until `check` returns something other than undefined/false (controller tests wait up to 20 s). */
export function eventually<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 20_000,
  intervalMs = 50,
): Promise<T> {
  return pollUntil(what, check, timeoutMs, intervalMs);
}

/** A NodeConfig that changes a kubelet drop-in (a restart: NotReady for a moment) to `value`. */
export function kubeletConfig(value: string): NodeConfigSpec {
  return {
    files: [
      { path: '/etc/kubernetes/kubelet-extra.conf', content: { inline: { data: `value: ${value}\n` } } },
    ],
    units: [
      {
        name: 'kubelet.service',
        dropIns: [{ name: '20-nodeherd.conf', content: `[Service]\nEnvironment=NODEHERD_VALUE=${value}\n` }],
        filePaths: ['/etc/kubernetes/kubelet-extra.conf'],
        // The agent checks the restarted kubelet like the real one: its healthz answers.
        healthProbe: { http: { url: 'http://127.0.0.1:10248/healthz' }, timeoutSeconds: 1 },
      },
    ],
  };
}

/** kubeletConfig whose change of the kubelet drop-in's file needs a drain (cordon and evict first). */
export function drainingConfig(value: string): NodeConfigSpec {
  return {
    ...kubeletConfig(value),
    disruptionPolicies: { files: [{ path: '/etc/kubernetes/kubelet-extra.conf', action: 'Drain' }] },
  };
}

/** kubeletConfig plus htop at `version`, whose change drains the node (pre-staging's disruptive part). */
export function htopDrainingConfig(version: string): NodeConfigSpec {
  return {
    ...kubeletConfig('a'),
    packages: [{ name: 'htop', version }],
    disruptionPolicies: { packages: [{ name: 'htop', action: 'Drain' }] },
  } as NodeConfigSpec;
}

/**
 * Like kubeletConfig, plus a service whose health probe fails on every node: the agent reports Failed
 * and restores the previous revision locally, so the node stays Ready and can be rolled back.
 */
export function brokenConfig(value: string): NodeConfigSpec {
  const spec = kubeletConfig(value);
  spec.units!.push({
    name: 'broken-app.service',
    content: '[Service]\nExecStart=/usr/bin/broken-app\n',
    healthProbe: { http: { url: `http://127.0.0.1:8089/healthz?${FAILING_PROBE_MARK}` }, timeoutSeconds: 1 },
  });
  return spec;
}

// Keeps the fleet status current: informers on pools, revisions and nodes, and a status rebuilt from
// their caches after changes, at most once per throttle interval (a rollout of a thousand nodes sends
// thousands of events a second; nobody reads that many frames).

import type { NodeConfigPool, NodeConfigRevision } from '../../api/types.ts';
import { PATHS } from '../../controller/api-paths.ts';
import { Informer } from '../../kube/informer.ts';
import type { KubeClient } from '../../kube/kube-client.ts';
import type { Node } from '../../kube/types.ts';
import { kubeTime } from '../../util/kube-time.ts';
import { buildFleetStatus, type EtaEstimator, type FleetStatus } from './fleet-status.ts';

export interface FleetWatchOptions {
  pool?: string;
  /** Least time between two updates (default 500 ms). */
  throttleMs?: number;
}

export interface FleetWatch {
  /** Resolves once every cache is filled (the first update has been delivered). */
  readonly synced: Promise<void>;
  stop(): Promise<void>;
}

export function watchFleetStatus(
  client: KubeClient,
  onStatus: (status: FleetStatus) => void,
  options: FleetWatchOptions = {},
): FleetWatch {
  const throttleMs = options.throttleMs ?? 500;
  const pools = new Informer<NodeConfigPool>(client, { path: PATHS.nodeConfigPools });
  const revisions = new Informer<NodeConfigRevision>(client, { path: PATHS.revisions });
  const nodes = new Informer<Node>(client, { path: PATHS.nodes });
  const informers = [pools, revisions, nodes] as const;
  let ready = false;
  let timer: NodeJS.Timeout | undefined;
  let lastAt = 0;
  // Loaded here, not imported above: `nodeherd status` without --watch loads it only when needed.
  let estimate: EtaEstimator | undefined;
  const loaded = import('./status-eta.ts').then((m) => {
    estimate = m.statusEta;
  });

  const emit = () => {
    timer = undefined;
    lastAt = Date.now();
    onStatus(
      buildFleetStatus(
        { pools: pools.list(), revisions: revisions.list(), nodes: nodes.list() },
        { server: client.server.origin, observedAt: kubeTime(lastAt) },
        options.pool,
        estimate,
      ),
    );
  };
  const schedule = () => {
    if (!ready || timer) return;
    timer = setTimeout(emit, Math.max(0, lastAt + throttleMs - Date.now()));
  };
  pools.on(schedule);
  revisions.on(schedule);
  nodes.on(schedule);
  for (const informer of informers) informer.start();
  const synced = Promise.all([...informers.map((i) => i.waitForSync()), loaded]).then(() => {
    ready = true;
    emit();
  });
  synced.catch(() => {});
  return {
    synced,
    async stop() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      ready = false;
      await Promise.all(informers.map((i) => i.stop()));
    },
  };
}

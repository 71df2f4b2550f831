// What the reconcilers share: the API client, the informers' caches, and the controller's helpers.

import type { Logger } from 'pino';
import type { NodeConfig, NodeConfigPool, NodeConfigRevision } from '../api/types.ts';
import type { EventRecorder, EventSubject } from '../kube/event-recorder.ts';
import type { Informer } from '../kube/informer.ts';
import type { KubeClient } from '../kube/kube-client.ts';
import type { Lease, Node, Pod, Secret } from '../kube/types.ts';
import type { DisruptionPlanner } from './disruption-planner.ts';
import type { NodeDrainer } from './drain/node-drainer.ts';
import type { ControllerMetrics } from './metrics.ts';
import type { NodeHealthTracker } from './node-health-tracker.ts';
import type { PodIndex } from './pod-index.ts';
import type { RevisionWriter } from './revisions/revision-writer.ts';

export interface Informers {
  pools: Informer<NodeConfigPool>;
  configs: Informer<NodeConfig>;
  revisions: Informer<NodeConfigRevision>;
  nodes: Informer<Node>;
  pods: Informer<Pod>;
  secrets: Informer<Secret>;
  /** Serial slot Leases (namespace nodeherd, label nodeherd.io/serial-pool). */
  leases: Informer<Lease>;
}

export interface ControllerContext {
  client: KubeClient;
  informers: Informers;
  pods: PodIndex;
  recorder: EventRecorder;
  metrics: ControllerMetrics;
  health: NodeHealthTracker;
  planner: DisruptionPlanner;
  drainer: NodeDrainer;
  revisionWriter: RevisionWriter;
  logger: Logger;
  now(): number;
  /** Parallel node writes per reconcile. */
  writeConcurrency: number;
}

export function nodeSubject(node: Node): EventSubject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    name: node.metadata.name,
    ...(node.metadata.uid ? { uid: node.metadata.uid } : {}),
  };
}

export function poolSubject(pool: NodeConfigPool): EventSubject {
  return {
    apiVersion: pool.apiVersion,
    kind: 'NodeConfigPool',
    name: pool.metadata.name,
    ...(pool.metadata.uid ? { uid: pool.metadata.uid } : {}),
  };
}

/** Runs fn over items with at most `limit` in flight; collects failures instead of stopping. */
export async function runLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<unknown[]> {
  const errors: unknown[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      try {
        await fn(item);
      } catch (err) {
        errors.push(err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return errors;
}

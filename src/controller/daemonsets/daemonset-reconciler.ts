// One DaemonSet's reconcile: decide from the caches, then write. AdvancedRollingUpdate deletes the
// outdated pods decideDaemonSetUpdate picks (the DaemonSet controller recreates them from the current
// template); OTA only marks outdated pods with the UpdateAvailable condition and leaves the deleting
// to the node's owner. Everything it reads comes from informers; deletions are remembered by uid until
// the pod's DELETED event arrives, so a reconcile that runs before the watch catches up never counts a
// deleted pod as still available (which could overspend the budget).

import type { Logger } from 'pino';
import { kubeTime } from '../../kube/conditions.ts';
import type { EventRecorder, EventSubject } from '../../kube/event-recorder.ts';
import type { KubeClient } from '../../kube/kube-client.ts';
import { isKubeError } from '../../kube/kube-error.ts';
import type { Pod } from '../../kube/types.ts';
import { runLimited } from '../controller-context.ts';
import { plural } from '../plural.ts';
import { isNodeReady, shouldRunOn } from './daemon-nodes.ts';
import { type DaemonSetCaches, podsByNode } from './daemonset-caches.ts';
import { daemonSetManagement } from './daemonset-strategy.ts';
import {
  currentRevisionOf,
  type DaemonPod,
  type DaemonSet,
  isPodAvailable,
  msUntilAvailable,
  revisionHashOf,
} from './daemonset-types.ts';
import { type DaemonSlot, decideDaemonSetUpdate } from './decide-daemonset-update.ts';
import {
  desiredUpdateCondition,
  type UpdateAvailableCondition,
  withdrawnUpdateCondition,
} from './update-available-condition.ts';

export interface DaemonSetReconcilerContext {
  client: KubeClient;
  recorder: EventRecorder;
  caches: DaemonSetCaches;
  logger: Logger;
  now(): number;
  writeConcurrency: number;
}

export interface DaemonSetOutcome {
  /** Reconcile again after this long (minReadySeconds still running). */
  requeueAfterMs?: number;
}

/** How long a deleted pod's uid is remembered if its DELETED event never arrives (a re-list drops it). */
const DELETED_MEMORY_MS = 10 * 60_000;

function daemonSetSubject(daemonSet: DaemonSet): EventSubject {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    name: daemonSet.metadata.name,
    ...(daemonSet.metadata.namespace ? { namespace: daemonSet.metadata.namespace } : {}),
    ...(daemonSet.metadata.uid ? { uid: daemonSet.metadata.uid } : {}),
  };
}

function podPath(namespace: string, name: string, subresource?: 'status'): string {
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}${subresource ? `/${subresource}` : ''}`;
}

// lastTransitionTime moves only when the status does.
function transitionTime(pod: DaemonPod, condition: { type: string; status: string }, now: string): string {
  const existing = pod.status?.conditions?.find((c) => c.type === condition.type);
  return existing?.status === condition.status && existing.lastTransitionTime
    ? existing.lastTransitionTime
    : now;
}

export class DaemonSetReconciler {
  private readonly ctx: DaemonSetReconcilerContext;
  /** Last warning per DaemonSet (generation + reason), so an ignored DaemonSet is reported once. */
  private readonly warned = new Map<string, string>();
  /** Last list of waiting nodes reported per DaemonSet. */
  private readonly waitingReported = new Map<string, string>();
  private readonly deleted = new Map<string, number>();

  constructor(ctx: DaemonSetReconcilerContext) {
    this.ctx = ctx;
  }

  /** The pod's DELETED event arrived: no need to remember its deletion any more. */
  podGone(uid: string | undefined): void {
    if (uid !== undefined) this.deleted.delete(uid);
  }

  forget(key: string): void {
    this.warned.delete(key);
    this.waitingReported.delete(key);
  }

  async reconcile(key: string): Promise<DaemonSetOutcome> {
    const { ctx } = this;
    const daemonSet = ctx.caches.daemonSet(key);
    if (!daemonSet || daemonSet.metadata.deletionTimestamp !== undefined) {
      this.forget(key);
      return {};
    }
    const management = daemonSetManagement(daemonSet);
    this.pruneDeleted();
    const pods = ctx.caches
      .controlledPods(key, daemonSet)
      .filter((pod) => !this.deleted.has(pod.metadata.uid ?? ''));
    if (management.kind !== 'managed' || management.strategy !== 'OTA') {
      await this.writeConditions(pods, (pod) => withdrawnUpdateCondition(pod, key));
    }
    if (management.kind === 'unmanaged') {
      this.forget(key);
      return {};
    }
    if (management.kind === 'ignored') {
      this.warnOnce(key, daemonSet, management.reason);
      return {};
    }
    this.warned.delete(key);
    const current = currentRevisionOf(daemonSet, ctx.caches.revisionIndex.of(key));
    // No ControllerRevision yet: the DaemonSet controller has not seen this template; its event requeues.
    if (!current) return {};
    const target = revisionHashOf(current) ?? current.metadata.name.slice(daemonSet.metadata.name.length + 1);
    if (management.strategy === 'OTA') {
      await this.writeConditions(pods, (pod) =>
        desiredUpdateCondition(pod, revisionHashOf(pod) !== target, key, target),
      );
      return {};
    }
    return this.rollPods(key, daemonSet, pods, target, management.maxUnavailable);
  }

  private async rollPods(
    key: string,
    daemonSet: DaemonSet,
    pods: DaemonPod[],
    target: string,
    maxUnavailable: number | string,
  ): Promise<DaemonSetOutcome> {
    const { ctx } = this;
    const now = ctx.now();
    const minReadySeconds = daemonSet.spec?.minReadySeconds ?? 0;
    const byNode = podsByNode(pods);
    let requeueAfterMs: number | undefined;
    const slots: DaemonSlot[] = [];
    for (const node of ctx.caches.nodes.list()) {
      if (!shouldRunOn(daemonSet, node)) continue;
      const onNode = byNode.get(node.metadata.name) ?? [];
      const pod = onNode.find((p) => p.metadata.deletionTimestamp === undefined) ?? onNode[0];
      const slot: DaemonSlot = { node: node.metadata.name, nodeReady: isNodeReady(node) };
      if (pod) {
        const available = isPodAvailable(pod, minReadySeconds, now);
        const wait = msUntilAvailable(pod, minReadySeconds, now);
        if (wait !== undefined) requeueAfterMs = Math.min(requeueAfterMs ?? wait, wait);
        slot.pod = {
          namespace: pod.metadata.namespace ?? '',
          name: pod.metadata.name,
          ...(pod.metadata.uid !== undefined ? { uid: pod.metadata.uid } : {}),
          outdated: revisionHashOf(pod) !== target,
          available,
          deleting: pod.metadata.deletionTimestamp !== undefined,
        };
      }
      slots.push(slot);
    }
    const decision = decideDaemonSetUpdate({ slots, maxUnavailable });
    this.reportWaiting(key, daemonSet, decision.waiting);
    if (decision.delete.length > 0) {
      ctx.logger.info(
        {
          daemonSet: key,
          target,
          deleting: decision.delete.map((d) => d.name),
          unavailable: decision.unavailable,
          maxUnavailable: decision.maxUnavailable,
          waiting: decision.waiting.length,
        },
        'updating daemon pods',
      );
    }
    const errors = await runLimited(decision.delete, ctx.writeConcurrency, async (pod) => {
      if (pod.uid !== undefined) this.deleted.set(pod.uid, now);
      try {
        await ctx.client.delete(podPath(pod.namespace, pod.name), {
          apiVersion: 'v1',
          kind: 'DeleteOptions',
          ...(pod.uid !== undefined ? { preconditions: { uid: pod.uid } } : {}),
        });
      } catch (err) {
        // Gone already, or replaced by another pod of that name: nothing of ours to delete.
        if (isKubeError(err, 404) || isKubeError(err, 409)) return;
        if (pod.uid !== undefined) this.deleted.delete(pod.uid);
        throw err;
      }
      ctx.recorder.normal(
        daemonSetSubject(daemonSet),
        'UpdatingPod',
        `deleted outdated pod ${pod.name} on node ${pod.node} so that it is recreated at revision ${target}`,
      );
    });
    if (errors.length > 0) throw errors[0];
    return requeueAfterMs !== undefined ? { requeueAfterMs } : {};
  }

  /** Writes the UpdateAvailable condition `wanted` returns (undefined: leave the pod as it is). */
  private async writeConditions(
    pods: DaemonPod[],
    wanted: (pod: DaemonPod) => UpdateAvailableCondition | undefined,
  ): Promise<void> {
    const { ctx } = this;
    const writes: { pod: DaemonPod; condition: UpdateAvailableCondition }[] = [];
    for (const pod of pods) {
      if (pod.metadata.deletionTimestamp !== undefined) continue;
      const condition = wanted(pod);
      if (condition) writes.push({ pod, condition });
    }
    if (writes.length === 0) return;
    const time = kubeTime(ctx.now());
    const errors = await runLimited(writes, ctx.writeConcurrency, async ({ pod, condition }) => {
      try {
        const written = await ctx.client.patch<Pod>(
          podPath(pod.metadata.namespace ?? '', pod.metadata.name, 'status'),
          {
            status: {
              conditions: [{ ...condition, lastTransitionTime: transitionTime(pod, condition, time) }],
            },
          },
          'strategic',
        );
        ctx.caches.pods.upsert(written);
      } catch (err) {
        if (isKubeError(err, 404) || isKubeError(err, 409)) return;
        throw err;
      }
    });
    if (errors.length > 0) throw errors[0];
  }

  private warnOnce(key: string, daemonSet: DaemonSet, reason: string): void {
    const mark = `${daemonSet.metadata.generation ?? 0}\u0000${reason}`;
    if (this.warned.get(key) === mark) return;
    this.warned.set(key, mark);
    this.ctx.logger.warn({ daemonSet: key, reason }, 'DaemonSet ignored');
    this.ctx.recorder.warning(daemonSetSubject(daemonSet), 'UpdateStrategyIgnored', reason);
  }

  private reportWaiting(key: string, daemonSet: DaemonSet, waiting: readonly string[]): void {
    const mark = waiting.join(',');
    if ((this.waitingReported.get(key) ?? '') === mark) return;
    this.waitingReported.set(key, mark);
    if (waiting.length === 0) return;
    const shown = waiting.slice(0, 10).join(', ');
    const more = waiting.length > 10 ? ` and ${waiting.length - 10} more` : '';
    this.ctx.recorder.normal(
      daemonSetSubject(daemonSet),
      'WaitingForNodes',
      `${plural(waiting.length, 'outdated pod')} ${waiting.length === 1 ? 'waits for its' : 'wait for their'} node to be Ready: ${shown}${more}`,
    );
  }

  private pruneDeleted(): void {
    const cutoff = this.ctx.now() - DELETED_MEMORY_MS;
    for (const [uid, at] of this.deleted) if (at < cutoff) this.deleted.delete(uid);
  }
}

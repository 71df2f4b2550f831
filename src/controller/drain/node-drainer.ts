// Drains cordoned nodes through the Eviction API, one background task per node. An eviction refused
// with 429 (a PodDisruptionBudget would be violated) is retried with exponential backoff, sooner when a
// pod changes; the reason (every refused pod, grouped by the budget that refuses it:
// eviction-refusal.ts) is kept so the pool's status can say what the drain waits for. The deadline
// is not the drainer's business: the rollout decision fails a node whose update (drain included) runs
// past progressDeadlineSeconds, and then stops its drain.

import type { Logger } from 'pino';
import { Backoff } from '../../kube/backoff.ts';
import type { KubeClient } from '../../kube/kube-client.ts';
import { isKubeError } from '../../kube/kube-error.ts';
import type { Pod } from '../../kube/types.ts';
import { evictionPath, podPath } from '../api-paths.ts';
import { DEFAULT_DRAIN_SETTINGS, type DrainSettings } from './drain-settings.ts';
import { drainWork } from './evictable-pods.ts';
import { describeRefusals, type Refusal, refusalOf } from './eviction-refusal.ts';

export interface NodeDrainerOptions {
  client: KubeClient;
  /** Pods currently bound to the node. */
  podsOn(node: string): Pod[];
  nodeReady(node: string): boolean;
  /** The node has no pods left to evict: give it its revision. */
  onDrained(node: string, revision: string): Promise<void>;
  /** A pod was evicted (for Events). */
  onEvicted?(node: string, pod: Pod): void;
  /** A pod was deleted after the drain's timeout (spec.drain.onTimeout Force), for Events. */
  onForced?(node: string, pod: Pod): void;
  /** The drain settings of the node's pool (spec.drain); default: today's behaviour. */
  settingsFor?(node: string): DrainSettings;
  /** Something changed that the pool's status should show. */
  onProgress(node: string): void;
  /** The drain is blocked for a new reason (undefined: no longer blocked), for notifications. */
  onBlocked?(node: string, reason: string | undefined): void;
  logger?: Logger;
  /** Retry delays (default 500 ms doubling to 10 s). */
  backoff?: { initialMs: number; maxMs: number };
}

interface Task {
  revision: string;
  /** When this drain began (its timeout counts from here). */
  startedAt: number;
  /** Pods (by uid) known to have, or not have, emptyDir volumes. */
  emptyDir: Map<string, boolean>;
  stopped: boolean;
  blocked?: string;
  wake?: () => void;
  done: Promise<void>;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message.replace(/^\S+ \S+: /, '') : String(err);
}

export class NodeDrainer {
  private readonly options: NodeDrainerOptions;
  private readonly tasks = new Map<string, Task>();

  constructor(options: NodeDrainerOptions) {
    this.options = options;
  }

  /** Starts draining the node for `revision` unless that drain already runs. */
  ensure(node: string, revision: string): void {
    const running = this.tasks.get(node);
    if (running && running.revision === revision && !running.stopped) return;
    if (running) this.stop(node);
    const task: Task = {
      revision,
      startedAt: Date.now(),
      emptyDir: new Map(),
      stopped: false,
      done: Promise.resolve(),
    };
    this.tasks.set(node, task);
    task.done = this.run(node, task)
      .catch((err) => this.options.logger?.error({ err, node }, 'drain task failed'))
      .finally(() => {
        if (this.tasks.get(node) === task) this.tasks.delete(node);
      });
  }

  stop(node: string): void {
    const task = this.tasks.get(node);
    if (!task) return;
    task.stopped = true;
    task.wake?.();
    this.tasks.delete(node);
  }

  /** A pod of the node changed: retry now instead of after the backoff. */
  wake(node: string): void {
    this.tasks.get(node)?.wake?.();
  }

  /** Why the node's drain is not progressing, if it is not. */
  blocked(node: string): string | undefined {
    return this.tasks.get(node)?.blocked;
  }

  get active(): number {
    return this.tasks.size;
  }

  async stopAll(): Promise<void> {
    const tasks = [...this.tasks.values()];
    for (const node of [...this.tasks.keys()]) this.stop(node);
    await Promise.all(tasks.map((t) => t.done));
  }

  private async run(node: string, task: Task): Promise<void> {
    const backoff = new Backoff({
      initialMs: this.options.backoff?.initialMs ?? 500,
      maxMs: this.options.backoff?.maxMs ?? 10_000,
    });
    while (!task.stopped) {
      const settings = this.options.settingsFor?.(node) ?? DEFAULT_DRAIN_SETTINGS;
      const work = drainWork(
        this.options.podsOn(node),
        this.options.nodeReady(node),
        settings.skipPodSelector,
      );
      if (work.evict.length === 0 && work.terminating.length === 0) {
        if (task.blocked) {
          task.blocked = undefined;
          this.options.onBlocked?.(node, undefined);
          this.options.onProgress(node);
        }
        await this.options.onDrained(node, task.revision);
        return;
      }
      const refusals: { pod: Pod; refusal: Refusal }[] = [];
      for (const pod of work.evict) {
        if (task.stopped) return;
        const namespace = pod.metadata.namespace ?? 'default';
        if (!settings.deleteEmptyDirData && (await this.hasEmptyDir(task, pod))) {
          refusals.push({
            pod,
            refusal: {
              pod: `${namespace}/${pod.metadata.name}`,
              message: 'it has emptyDir data and spec.drain.deleteEmptyDirData is false',
            },
          });
          continue;
        }
        try {
          await this.options.client.create(evictionPath(namespace, pod.metadata.name), {
            apiVersion: 'policy/v1',
            kind: 'Eviction',
            metadata: { name: pod.metadata.name, namespace: pod.metadata.namespace },
            ...(settings.gracePeriodSeconds !== undefined
              ? { deleteOptions: { gracePeriodSeconds: settings.gracePeriodSeconds } }
              : {}),
          });
          this.options.onEvicted?.(node, pod);
        } catch (err) {
          if (isKubeError(err, 404)) continue;
          refusals.push({ pod, refusal: refusalOf(namespace, pod.metadata.name, err) });
        }
      }
      const timedOut = settings.timeoutMs !== undefined && Date.now() - task.startedAt >= settings.timeoutMs;
      const left =
        timedOut && settings.onTimeout === 'Force' ? await this.force(node, settings, refusals) : refusals;
      let refused = describeRefusals(left.map((r) => r.refusal));
      if (timedOut && settings.onTimeout === 'Force' && left.some((r) => r.refusal.budget !== undefined))
        refused += `; Force does not delete pods a PodDisruptionBudget protects (spec.drain.forceDeleteBudgetedPods is false)`;
      if (refused !== task.blocked) {
        task.blocked = refused;
        this.options.onBlocked?.(node, refused);
        this.options.onProgress(node);
      }
      // Refused: back off (a PDB frees up when other pods become ready), but not past the timeout;
      // else wait for terminations.
      let wait = refused ? backoff.next() : 200;
      if (refused && !timedOut && settings.timeoutMs !== undefined)
        wait = Math.max(50, Math.min(wait, task.startedAt + settings.timeoutMs - Date.now()));
      await this.pause(task, wait);
      if (!refused) backoff.reset();
    }
  }

  /**
   * After the timeout, with onTimeout Force: deletes the refused pods, except those a
   * PodDisruptionBudget protects (unless forceDeleteBudgetedPods). Returns the refusals that stay.
   */
  private async force(
    node: string,
    settings: DrainSettings,
    refusals: readonly { pod: Pod; refusal: Refusal }[],
  ): Promise<{ pod: Pod; refusal: Refusal }[]> {
    const left: { pod: Pod; refusal: Refusal }[] = [];
    for (const r of refusals) {
      if (r.refusal.budget !== undefined && !settings.forceDeleteBudgetedPods) {
        left.push(r);
        continue;
      }
      try {
        await this.options.client.delete(
          podPath(r.pod.metadata.namespace ?? 'default', r.pod.metadata.name),
          {
            ...(settings.gracePeriodSeconds !== undefined
              ? { gracePeriodSeconds: settings.gracePeriodSeconds }
              : {}),
            ...(r.pod.metadata.uid ? { preconditions: { uid: r.pod.metadata.uid } } : {}),
          },
        );
        this.options.onForced?.(node, r.pod);
      } catch (err) {
        if (isKubeError(err, 404) || isKubeError(err, 409)) continue;
        left.push({ pod: r.pod, refusal: { pod: r.refusal.pod, message: `deleting it: ${errorText(err)}` } });
      }
    }
    return left;
  }

  /** Whether the pod has an emptyDir volume (the pod cache keeps no volumes: asked once per drain). */
  private async hasEmptyDir(task: Task, pod: Pod): Promise<boolean> {
    const uid = pod.metadata.uid ?? `${pod.metadata.namespace}/${pod.metadata.name}`;
    const known = task.emptyDir.get(uid);
    if (known !== undefined) return known;
    try {
      const full = await this.options.client.get<{ spec?: { volumes?: { emptyDir?: unknown }[] } }>(
        podPath(pod.metadata.namespace ?? 'default', pod.metadata.name),
      );
      const has = (full.spec?.volumes ?? []).some((v) => v.emptyDir !== undefined && v.emptyDir !== null);
      task.emptyDir.set(uid, has);
      return has;
    } catch (err) {
      if (isKubeError(err, 404)) return false;
      // Unknown: treated as having data, so nothing is lost by a guess.
      return true;
    }
  }

  private pause(task: Task, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        task.wake = undefined;
        resolve();
      }, ms);
      task.wake = () => {
        clearTimeout(timer);
        task.wake = undefined;
        resolve();
      };
    });
  }
}

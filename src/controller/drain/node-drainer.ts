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
import { evictionPath } from '../api-paths.ts';
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
  stopped: boolean;
  blocked?: string;
  wake?: () => void;
  done: Promise<void>;
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
    const task: Task = { revision, stopped: false, done: Promise.resolve() };
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
      const work = drainWork(this.options.podsOn(node), this.options.nodeReady(node));
      if (work.evict.length === 0 && work.terminating.length === 0) {
        if (task.blocked) {
          task.blocked = undefined;
          this.options.onBlocked?.(node, undefined);
          this.options.onProgress(node);
        }
        await this.options.onDrained(node, task.revision);
        return;
      }
      const refusals: Refusal[] = [];
      for (const pod of work.evict) {
        if (task.stopped) return;
        try {
          await this.options.client.create(
            evictionPath(pod.metadata.namespace ?? 'default', pod.metadata.name),
            {
              apiVersion: 'policy/v1',
              kind: 'Eviction',
              metadata: { name: pod.metadata.name, namespace: pod.metadata.namespace },
            },
          );
          this.options.onEvicted?.(node, pod);
        } catch (err) {
          if (isKubeError(err, 404)) continue;
          refusals.push(refusalOf(pod.metadata.namespace ?? 'default', pod.metadata.name, err));
        }
      }
      const refused = describeRefusals(refusals);
      if (refused !== task.blocked) {
        task.blocked = refused;
        this.options.onBlocked?.(node, refused);
        this.options.onProgress(node);
      }
      // Refused: back off (a PDB frees up when other pods become ready); else wait for terminations.
      await this.pause(task, refused ? backoff.next() : 200);
      if (!refused) backoff.reset();
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

// Follows the two objects the agent acts on: its own Node (field selector on its name) and the
// NodeConfigRevision the Node's desired-revision annotation names. Each is one long-lived watch
// with bookmarks (ObjectInformer), so an idle agent costs the API server a watch renewal every
// 30–60 minutes per object and nothing else. When the annotation names another revision, the
// revision watch moves to it. No polling.

import { DESIRED_REVISION_ANNOTATION } from '../../api/node-protocol.ts';
import type { LightKubeClient } from '../../kube/light/light-kube-client.ts';
import { ObjectInformer, type ObjectInformerOptions } from '../../kube/light/object-informer.ts';
import type { Logger } from '../logger.ts';
import { NODES_PATH, type NodeObject, REVISIONS_PATH, type RevisionObject } from './kube-objects.ts';

export type WatchTuning = Pick<
  ObjectInformerOptions<NodeObject>,
  | 'watchTimeoutSeconds'
  | 'bookmarkIntervalMs'
  | 'missedBookmarks'
  | 'inactivityTimeoutMs'
  | 'backoff'
  | 'random'
>;

/** What the agent knows of the cluster's wishes right now. */
export interface DesiredSnapshot {
  nodeSynced: boolean;
  node: NodeObject | undefined;
  /** The Node's desired-revision annotation. */
  revisionName: string | undefined;
  /** Whether the revision named has been listed (so `revision: undefined` means it does not exist). */
  revisionSynced: boolean;
  revision: RevisionObject | undefined;
}

export interface DesiredRevisionWatcherOptions {
  client: LightKubeClient;
  nodeName: string;
  logger: Logger;
  tuning?: WatchTuning;
  /** Something changed; read snapshot(). */
  onChange(): void;
  /** Called with every Node seen (the reporter keeps it to skip redundant writes). */
  onNode?(node: NodeObject | undefined): void;
}

export class DesiredRevisionWatcher {
  private readonly options: DesiredRevisionWatcherOptions;
  private nodeInformer: ObjectInformer<NodeObject> | undefined;
  private revisionInformer: ObjectInformer<RevisionObject> | undefined;
  private revisionInformerName: string | undefined;
  // The informers call onChange before they count as synced; having been called is what matters.
  private nodeSeen = false;
  private revisionSeen = false;
  private stopped = false;

  constructor(options: DesiredRevisionWatcherOptions) {
    this.options = options;
  }

  start(): void {
    this.nodeInformer = new ObjectInformer<NodeObject>(this.options.client, {
      ...this.options.tuning,
      collectionPath: NODES_PATH,
      name: this.options.nodeName,
      onChange: (node) => this.onNode(node),
      onError: (error, during) => this.options.logger.warn({ during, error }, 'node watch'),
    }).start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([this.nodeInformer?.stop(), this.revisionInformer?.stop()]);
  }

  snapshot(): DesiredSnapshot {
    const node = this.nodeInformer?.object;
    const revisionName = node?.metadata?.annotations?.[DESIRED_REVISION_ANNOTATION] || undefined;
    const informer =
      revisionName !== undefined && this.revisionInformerName === revisionName
        ? this.revisionInformer
        : undefined;
    return {
      nodeSynced: this.nodeSeen,
      node,
      revisionName,
      revisionSynced: informer !== undefined && this.revisionSeen,
      revision: informer?.object,
    };
  }

  /** Informer statistics, for benchmarks. */
  stats() {
    return { node: this.nodeInformer?.stats(), revision: this.revisionInformer?.stats() };
  }

  private onNode(node: NodeObject | undefined): void {
    this.nodeSeen = true;
    this.options.onNode?.(node);
    const wanted = node?.metadata?.annotations?.[DESIRED_REVISION_ANNOTATION] || undefined;
    if (wanted !== this.revisionInformerName && !this.stopped) this.follow(wanted);
    this.options.onChange();
  }

  private follow(name: string | undefined): void {
    const previous = this.revisionInformer;
    this.revisionInformer = undefined;
    this.revisionInformerName = name;
    this.revisionSeen = false;
    if (previous) {
      previous.stop().catch((error: Error) => this.options.logger.warn({ error }, 'revision watch stop'));
    }
    if (name === undefined) return;
    const informer: ObjectInformer<RevisionObject> = new ObjectInformer<RevisionObject>(this.options.client, {
      ...(this.options.tuning as ObjectInformerOptions<RevisionObject>),
      collectionPath: REVISIONS_PATH,
      name,
      onChange: () => {
        if (this.revisionInformer !== informer) return; // a stopped informer's last word
        this.revisionSeen = true;
        this.options.onChange();
      },
      onError: (error, during) =>
        this.options.logger.warn({ revision: name, during, error }, 'revision watch'),
    });
    this.revisionInformer = informer;
    informer.start();
  }
}

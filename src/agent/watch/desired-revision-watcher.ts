// Follows the two objects the agent acts on: its own Node (field selector on its name) and the
// NodeConfigRevision the Node's desired-revision annotation names. The Node is one long-lived watch
// with bookmarks (ObjectInformer), so an idle agent costs the API server a watch renewal every
// 30–60 minutes and nothing else. A revision is immutable, so it is read once with a GET when the
// annotation names it; only a revision that does not exist (yet) is watched, until it appears. A
// watch per change would cost every node a list, a watch and a new connection each time (1,000 of
// each per change at 1,000 nodes, issue 17), and an idle API server a watch per node. No polling.

import { DESIRED_REVISION_ANNOTATION } from '../../api/node-protocol.ts';
import { isKubeError } from '../../kube/kube-error.ts';
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
  /** The revision the annotation names, what is known of it, and the watch while it is missing. */
  private revisionName: string | undefined;
  private revision: RevisionObject | undefined;
  private revisionInformer: ObjectInformer<RevisionObject> | undefined;
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
    const known = revisionName !== undefined && this.revisionName === revisionName;
    return {
      nodeSynced: this.nodeSeen,
      node,
      revisionName,
      revisionSynced: known && this.revisionSeen,
      revision: known ? this.revision : undefined,
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
    if (wanted !== this.revisionName && !this.stopped) this.follow(wanted);
    this.options.onChange();
  }

  private follow(name: string | undefined): void {
    this.stopWatchingRevision();
    this.revisionName = name;
    this.revision = undefined;
    this.revisionSeen = false;
    if (name === undefined) return;
    this.read(name).catch((error: Error) =>
      this.options.logger.warn({ revision: name, error }, 'revision read'),
    );
  }

  /**
   * Reads the revision once; if it does not exist, or the read fails, watches it instead (the watch
   * retries with backoff and reports the revision missing until it appears).
   */
  private async read(name: string): Promise<void> {
    let found: RevisionObject | undefined;
    try {
      found = await this.options.client.get<RevisionObject>(`${REVISIONS_PATH}/${encodeURIComponent(name)}`);
    } catch (error) {
      if (!isKubeError(error, 404)) this.options.logger.warn({ revision: name, error }, 'revision read');
    }
    if (this.revisionName !== name || this.stopped) return; // the annotation moved on meanwhile
    if (found) this.settle(found);
    else this.watchUntilCreated(name);
  }

  private settle(revision: RevisionObject): void {
    this.stopWatchingRevision();
    this.revision = revision;
    this.revisionSeen = true;
    this.options.onChange();
  }

  private watchUntilCreated(name: string): void {
    const informer: ObjectInformer<RevisionObject> = new ObjectInformer<RevisionObject>(this.options.client, {
      ...(this.options.tuning as ObjectInformerOptions<RevisionObject>),
      collectionPath: REVISIONS_PATH,
      name,
      onChange: (revision) => {
        if (this.revisionInformer !== informer) return; // a stopped informer's last word
        if (revision) {
          this.settle(revision);
          return;
        }
        this.revisionSeen = true; // listed, and it does not exist
        this.options.onChange();
      },
      onError: (error, during) =>
        this.options.logger.warn({ revision: name, during, error }, 'revision watch'),
    });
    this.revisionInformer = informer;
    informer.start();
  }

  private stopWatchingRevision(): void {
    const informer = this.revisionInformer;
    this.revisionInformer = undefined;
    informer?.stop().catch((error: Error) => this.options.logger.warn({ error }, 'revision watch stop'));
  }
}

// Kubernetes' DaemonSet controller, as far as nodeherd's DaemonSet updates depend on it, for the
// embedded control plane (which has none): one ControllerRevision per pod template (<ds>-<hash>,
// labelled controller-revision-hash, numbered, owned by the DaemonSet; re-applying an older template
// moves its revision to the top, as kube does), one pod per node the template's nodeSelector picks
// (labels controller-revision-hash and pod-template-generation, owner reference with controller: true,
// spec.nodeName bound), pods removed from nodes that no longer qualify, and the DaemonSet's status.
// Updates follow spec.updateStrategy: OnDelete recreates a deleted pod from the CURRENT template and
// touches nothing else; RollingUpdate deletes outdated pods while fewer than maxUnavailable pods are
// unavailable (pods on NotReady nodes included, so an offline node stalls it, as it does in kube).
// Not modelled: taints and tolerations, node affinity, maxSurge, history pruning.

import { createHash } from 'node:crypto';
import pino, { type Logger } from 'pino';
import { canonicalJson } from '../api/canonical-json.ts';
import { isNodeReady, shouldRunOn } from '../controller/daemonsets/daemon-nodes.ts';
import { DaemonSetCaches, daemonSetKey, podsByNode } from '../controller/daemonsets/daemonset-caches.ts';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  type ControllerRevision,
  currentRevisionOf,
  type DaemonPod,
  type DaemonSet,
  isControlledBy,
  isPodAvailable,
  POD_TEMPLATE_GENERATION_LABEL,
  type PodTemplate,
  revisionHashOf,
} from '../controller/daemonsets/daemonset-types.ts';
import { resolveIntOrPercent } from '../controller/rollout/int-or-percent.ts';
import type { KubeClient } from '../kube/kube-client.ts';
import { isKubeError } from '../kube/kube-error.ts';
import type { Node, Pod } from '../kube/types.ts';
import { runWorker, WorkQueue } from '../kube/work-queue.ts';

export interface SimulatedDaemonSetControllerOptions {
  /** A client allowed to write pods, ControllerRevisions and DaemonSet status (the admin's). */
  client: KubeClient;
  logger?: Logger;
  /** DaemonSets reconciled in parallel; default 2. */
  workers?: number;
  now?: () => number;
}

// kube's SafeEncodeString alphabet: no vowels (no words), no look-alike characters.
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** A short, stable hash of a pod template, usable in names and label values. */
export function templateHash(template: PodTemplate | undefined): string {
  const digest = createHash('sha256')
    .update(canonicalJson(template ?? {}))
    .digest();
  let out = '';
  for (let i = 0; i < 10; i++) out += SAFE_ALPHABET[digest[i]! % SAFE_ALPHABET.length];
  return out;
}

function collection(namespace: string, resource: 'pods' | 'controllerrevisions' | 'daemonsets'): string {
  const root = resource === 'pods' ? '/api/v1' : '/apis/apps/v1';
  return `${root}/namespaces/${encodeURIComponent(namespace)}/${resource}`;
}

export class SimulatedDaemonSetController {
  private readonly client: KubeClient;
  private readonly logger: Logger;
  private readonly options: SimulatedDaemonSetControllerOptions;
  private readonly caches: DaemonSetCaches;
  private readonly queue = new WorkQueue();
  /** Pods this controller deleted whose DELETED event has not arrived yet (by uid). */
  private readonly deleted = new Set<string>();
  private workers: Promise<void>[] = [];
  private running = false;
  /** Pods created and deleted, for tests. */
  readonly stats = { created: 0, deleted: 0, revisions: 0 };

  constructor(options: SimulatedDaemonSetControllerOptions) {
    this.options = options;
    this.client = options.client;
    this.logger = options.logger ?? pino({ level: 'silent' });
    this.caches = new DaemonSetCaches({
      client: this.client,
      logger: this.logger,
      touched: (key) => this.queue.add(key),
      podDeleted: (uid) => {
        if (uid) this.deleted.delete(uid);
      },
    });
    this.wire();
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.caches.start();
    for (const ds of this.caches.daemonSets.list()) this.queue.add(daemonSetKey(ds));
    this.workers = Array.from({ length: this.options.workers ?? 2 }, () =>
      runWorker(
        this.queue,
        (key) => this.reconcile(key),
        (key, err) =>
          this.logger.warn({ err, daemonSet: key }, 'simulated DaemonSet controller: reconcile failed'),
      ),
    );
  }

  async stop(): Promise<void> {
    this.running = false;
    this.queue.shutDown();
    await Promise.all(this.workers);
    await this.caches.stop();
  }

  private wire(): void {
    const { daemonSets, nodes } = this.caches;
    daemonSets.on((_type, ds) => this.queue.add(daemonSetKey(ds)));
    nodes.on((type, node, old) => {
      // Membership changes with the node set and labels; readiness matters to RollingUpdate only.
      const changed =
        type !== 'update' ||
        JSON.stringify(node.metadata.labels) !== JSON.stringify(old?.metadata.labels) ||
        isNodeReady(node) !== isNodeReady(old) ||
        node.metadata.deletionTimestamp !== old?.metadata.deletionTimestamp;
      if (!changed) return;
      for (const ds of daemonSets.list()) this.queue.add(daemonSetKey(ds));
    });
  }

  private async reconcile(key: string): Promise<undefined> {
    const ds = this.caches.daemonSet(key);
    if (!ds || ds.metadata.deletionTimestamp !== undefined) return;
    const revision = await this.ensureRevision(key, ds);
    const hash = revisionHashOf(revision) ?? templateHash(ds.spec?.template);
    const now = this.options.now?.() ?? Date.now();
    const minReadySeconds = ds.spec?.minReadySeconds ?? 0;

    const byNode = podsByNode(
      this.caches.controlledPods(key, ds).filter((pod) => !this.deleted.has(pod.metadata.uid ?? '')),
    );
    const toCreate: string[] = [];
    const toDelete: DaemonPod[] = [];
    const eligible: { node: Node; pod: DaemonPod | undefined }[] = [];
    for (const node of this.caches.nodes.list()) {
      const pods = byNode.get(node.metadata.name) ?? [];
      byNode.delete(node.metadata.name);
      const live = pods
        .filter((p) => p.metadata.deletionTimestamp === undefined)
        .sort((a, b) =>
          (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? ''),
        );
      if (!shouldRunOn(ds, node)) {
        toDelete.push(...live);
        continue;
      }
      // A pod still terminating holds the node: kube creates the replacement once it is gone.
      if (pods.length === 0) toCreate.push(node.metadata.name);
      toDelete.push(...live.slice(1));
      eligible.push({ node, pod: live[0] ?? pods[0] });
    }
    // Pods bound to nodes that no longer exist (kube's pod GC removes these).
    for (const pods of byNode.values()) toDelete.push(...pods.filter((p) => !p.metadata.deletionTimestamp));

    if (ds.spec?.updateStrategy?.type !== 'OnDelete') {
      toDelete.push(...this.rollingUpdateVictims(ds, eligible, hash, minReadySeconds, now));
    }
    for (const pod of toDelete) await this.deletePod(pod);
    for (const node of toCreate) await this.createPod(ds, node, hash);
    await this.writeStatus(ds, eligible, hash, minReadySeconds, now);
  }

  // kube's rollingUpdate without surge: outdated pods that are unavailable anyway go at once, others
  // while fewer than maxUnavailable (rounded up) pods are unavailable, whatever the reason.
  private rollingUpdateVictims(
    ds: DaemonSet,
    eligible: { node: Node; pod: DaemonPod | undefined }[],
    hash: string,
    minReadySeconds: number,
    now: number,
  ): DaemonPod[] {
    const max = resolveIntOrPercent(
      ds.spec?.updateStrategy?.rollingUpdate?.maxUnavailable ?? 1,
      eligible.length,
      'up',
      1,
    );
    let unavailable = eligible.filter(({ pod }) => !pod || !isPodAvailable(pod, minReadySeconds, now)).length;
    const victims: DaemonPod[] = [];
    const oldAvailable: DaemonPod[] = [];
    for (const { pod } of eligible) {
      if (!pod || pod.metadata.deletionTimestamp !== undefined || revisionHashOf(pod) === hash) continue;
      if (!isPodAvailable(pod, minReadySeconds, now)) victims.push(pod);
      else oldAvailable.push(pod);
    }
    for (const pod of oldAvailable) {
      if (unavailable >= max) break;
      victims.push(pod);
      unavailable++;
    }
    return victims;
  }

  /** The ControllerRevision of the current template, created or moved to the top revision. */
  private async ensureRevision(key: string, ds: DaemonSet): Promise<ControllerRevision> {
    const namespace = ds.metadata.namespace ?? 'default';
    const hash = templateHash(ds.spec?.template);
    const owned = this.caches.revisionIndex.of(key).filter((r) => isControlledBy(r, ds));
    const top = owned.reduce((max, r) => Math.max(max, r.revision), 0);
    const existing = owned.find((r) => revisionHashOf(r) === hash);
    if (existing && existing.revision === top) return existing;
    if (existing) {
      const moved = await this.client.patch<ControllerRevision>(
        `${collection(namespace, 'controllerrevisions')}/${encodeURIComponent(existing.metadata.name)}`,
        { revision: top + 1 },
      );
      this.caches.revisions.upsert(moved);
      this.caches.revisionIndex.apply('update', moved, existing);
      return moved;
    }
    const name = `${ds.metadata.name}-${hash}`;
    const body: ControllerRevision = {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name,
        namespace,
        labels: { ...(ds.spec?.selector?.matchLabels ?? {}), [CONTROLLER_REVISION_HASH_LABEL]: hash },
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'DaemonSet',
            name: ds.metadata.name,
            uid: ds.metadata.uid ?? '',
            controller: true,
          },
        ],
      },
      data: { spec: { template: ds.spec?.template ?? {} } },
      revision: top + 1,
    };
    let created: ControllerRevision;
    try {
      created = await this.client.create<ControllerRevision>(
        collection(namespace, 'controllerrevisions'),
        body,
      );
    } catch (err) {
      if (!isKubeError(err, 409)) throw err;
      // Ours from a reconcile whose write the cache has not seen yet, or a stale one of a deleted owner.
      created = await this.client.get<ControllerRevision>(
        `${collection(namespace, 'controllerrevisions')}/${encodeURIComponent(name)}`,
      );
      if (!isControlledBy(created, ds)) {
        throw new Error(`ControllerRevision ${namespace}/${name} exists and belongs to another owner`);
      }
    }
    this.stats.revisions++;
    this.caches.revisions.upsert(created);
    this.caches.revisionIndex.apply('add', created, undefined);
    return currentRevisionOf(ds, this.caches.revisionIndex.of(key)) ?? created;
  }

  private async createPod(ds: DaemonSet, node: string, hash: string): Promise<void> {
    const namespace = ds.metadata.namespace ?? 'default';
    const template = ds.spec?.template ?? {};
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        generateName: `${ds.metadata.name}-`,
        namespace,
        labels: {
          ...(template.metadata?.labels ?? {}),
          [CONTROLLER_REVISION_HASH_LABEL]: hash,
          [POD_TEMPLATE_GENERATION_LABEL]: String(ds.metadata.generation ?? 1),
        },
        ...(template.metadata?.annotations ? { annotations: template.metadata.annotations } : {}),
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'DaemonSet',
            name: ds.metadata.name,
            uid: ds.metadata.uid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: { ...(template.spec ?? {}), nodeName: node },
      status: { phase: 'Pending' },
    };
    const created = await this.client.create<Pod>(collection(namespace, 'pods'), pod);
    this.stats.created++;
    this.caches.pods.upsert(created);
  }

  private async deletePod(pod: DaemonPod): Promise<void> {
    const uid = pod.metadata.uid;
    if (uid) this.deleted.add(uid);
    try {
      await this.client.delete(
        `${collection(pod.metadata.namespace ?? 'default', 'pods')}/${encodeURIComponent(pod.metadata.name)}`,
        { apiVersion: 'v1', kind: 'DeleteOptions', ...(uid ? { preconditions: { uid } } : {}) },
      );
      this.stats.deleted++;
    } catch (err) {
      if (uid) this.deleted.delete(uid);
      if (!isKubeError(err, 404) && !isKubeError(err, 409)) throw err;
    }
  }

  private async writeStatus(
    ds: DaemonSet,
    eligible: { node: Node; pod: DaemonPod | undefined }[],
    hash: string,
    minReadySeconds: number,
    now: number,
  ): Promise<void> {
    let current = 0;
    let ready = 0;
    let available = 0;
    let updated = 0;
    for (const { pod } of eligible) {
      if (!pod) continue;
      current++;
      if (isPodAvailable(pod, 0, now)) ready++;
      if (isPodAvailable(pod, minReadySeconds, now)) available++;
      if (revisionHashOf(pod) === hash && pod.metadata.deletionTimestamp === undefined) updated++;
    }
    const desired = eligible.length;
    const status = {
      desiredNumberScheduled: desired,
      currentNumberScheduled: current,
      numberMisscheduled: 0,
      numberReady: ready,
      numberAvailable: available,
      numberUnavailable: desired - available,
      updatedNumberScheduled: updated,
      observedGeneration: ds.metadata.generation ?? 0,
    };
    const old = ds.status ?? {};
    if (Object.entries(status).every(([k, v]) => (old as Record<string, unknown>)[k] === v)) return;
    const written = await this.client.patch<DaemonSet>(
      `${collection(ds.metadata.namespace ?? 'default', 'daemonsets')}/${encodeURIComponent(ds.metadata.name)}/status`,
      { status },
    );
    this.caches.daemonSets.upsert(written);
  }
}

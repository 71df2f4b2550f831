// Test helpers for gated strategies: set the gates on a Node as the controller would, and record every
// version of the Nodes and slot Leases the API server hands out, to check invariants at each step.

import type { NodeObject } from '../../src/agent/watch/kube-objects.ts';
import {
  DESIRED_REVISION_ANNOTATION,
  SERIAL_GATE_ANNOTATION,
  SERIAL_LEASE_NAMESPACE,
  SERIAL_POOL_LABEL,
  type SerialGate,
  STATE_ANNOTATION,
} from '../../src/api/node-protocol.ts';
import type { WatchHandle } from '../../src/kube/kube-watch.ts';
import type { LightKubeClient } from '../../src/kube/light/light-kube-client.ts';
import type { KubeObject } from '../../src/kube/light/types.ts';
import type { Cluster } from './agent-harness.ts';

export const LEASES = `/apis/coordination.k8s.io/v1/namespaces/${SERIAL_LEASE_NAMESPACE}/leases`;

/** What the controller does for Serial: desired revision and the gate, on one Node. */
export async function gateSerial(cluster: Cluster, node: string, revision: string, gate: SerialGate) {
  await cluster.admin.patch(`/api/v1/nodes/${node}`, {
    metadata: {
      annotations: {
        [DESIRED_REVISION_ANNOTATION]: revision,
        [SERIAL_GATE_ANNOTATION]: JSON.stringify(gate),
      },
    },
  });
}

/**
 * The kubelet's part: the Node's Ready condition, True or False (a strategic merge by type, so the
 * agent's own conditions stay). The controller hands slots to Ready nodes only.
 */
export async function setReady(cluster: Cluster, node: string, ready: boolean): Promise<void> {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  await cluster.admin.patch(
    `/api/v1/nodes/${node}/status`,
    {
      status: {
        conditions: [
          {
            type: 'Ready',
            status: ready ? 'True' : 'False',
            reason: ready ? 'KubeletReady' : 'KubeletNotReady',
            message: ready ? 'kubelet is posting ready status' : 'container runtime is starting',
            lastHeartbeatTime: now,
            lastTransitionTime: now,
          },
        ],
      },
    },
    'strategic',
  );
}

export interface LeaseVersion {
  name: string;
  resourceVersion: string;
  holder: string | undefined;
  at: number;
}

/** Every version of the pool's slot Leases, in the order the API server made them. */
export class LeaseHistory {
  readonly versions: LeaseVersion[] = [];
  private handle: WatchHandle | undefined;

  static async start(client: LightKubeClient, pool: string): Promise<LeaseHistory> {
    const history = new LeaseHistory();
    const selector = `${SERIAL_POOL_LABEL}=${pool}`;
    const list = await client.list(LEASES, { labelSelector: selector });
    history.handle = client.watch(
      LEASES,
      { labelSelector: selector, resourceVersion: list.metadata.resourceVersion },
      {
        onEvent: (event) => {
          const spec = (event.object as { spec?: { holderIdentity?: string } }).spec;
          history.versions.push({
            name: event.object.metadata?.name ?? '',
            resourceVersion: event.object.metadata?.resourceVersion ?? '',
            holder: event.type === 'DELETED' ? undefined : spec?.holderIdentity || undefined,
            at: performance.now(),
          });
        },
      },
    );
    return history;
  }

  /** Holder changes of one Lease that went from one holder straight to another (a takeover). */
  takeovers(): { name: string; from: string; to: string; afterMs: number }[] {
    const last = new Map<string, LeaseVersion>();
    const lastChange = new Map<string, number>();
    const found: { name: string; from: string; to: string; afterMs: number }[] = [];
    for (const version of this.versions) {
      const previous = last.get(version.name);
      if (previous?.holder && version.holder && previous.holder !== version.holder)
        found.push({
          name: version.name,
          from: previous.holder,
          to: version.holder,
          afterMs: version.at - (lastChange.get(version.name) ?? version.at),
        });
      last.set(version.name, version);
      lastChange.set(version.name, version.at);
    }
    return found;
  }

  stop(): void {
    this.handle?.abort();
  }
}

/** The states of a set of Nodes at every version, and the most applying at once. */
export class NodeStateHistory {
  readonly states = new Map<string, string>();
  readonly messages: { node: string; state: string; message: string }[] = [];
  /** Nodes seen Applying or Verifying at least once. */
  readonly everApplying = new Set<string>();
  maxApplying = 0;
  private handle: WatchHandle | undefined;

  static async start(client: LightKubeClient, names: readonly string[]): Promise<NodeStateHistory> {
    const history = new NodeStateHistory();
    const list = await client.list<NodeObject>('/api/v1/nodes');
    history.handle = client.watch<NodeObject>(
      '/api/v1/nodes',
      { resourceVersion: list.metadata.resourceVersion },
      {
        onEvent: (event: { object: KubeObject }) => {
          const name = event.object.metadata?.name ?? '';
          if (!names.includes(name)) return;
          const annotations = event.object.metadata?.annotations ?? {};
          const state = annotations[STATE_ANNOTATION] ?? '';
          history.states.set(name, state);
          if (state === 'Applying' || state === 'Verifying') history.everApplying.add(name);
          history.messages.push({ node: name, state, message: annotations['nodeherd.io/message'] ?? '' });
          const applying = [...history.states.values()].filter((s) => s === 'Applying' || s === 'Verifying');
          history.maxApplying = Math.max(history.maxApplying, applying.length);
        },
      },
    );
    return history;
  }

  stop(): void {
    this.handle?.abort();
  }
}

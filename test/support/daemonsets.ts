// DaemonSets for the DaemonSet tests: create one, change its template, read its pods and revisions
// through the admin client, and run the simulated DaemonSet controller and pod status writer that
// stand in for kube-controller-manager and kubelets on the embedded control plane.

import type {
  ControllerRevision,
  DaemonPod,
  DaemonSet,
} from '../../src/controller/daemonsets/daemonset-types.ts';
import type { KubeClient } from '../../src/kube/kube-client.ts';
import { SimulatedDaemonSetController } from '../../src/sim/simulated-daemonset-controller.ts';
import { SimulatedPodStatus } from '../../src/sim/simulated-pod-status.ts';

export const NAMESPACE = 'default';
const DAEMONSETS = `/apis/apps/v1/namespaces/${NAMESPACE}/daemonsets`;

export interface DaemonSetSpecOptions {
  image?: string;
  updateStrategy?: 'OnDelete' | 'RollingUpdate';
  annotations?: Record<string, string>;
  nodeSelector?: Record<string, string>;
}

export async function createDaemonSet(
  admin: KubeClient,
  name: string,
  options: DaemonSetSpecOptions = {},
): Promise<DaemonSet> {
  return admin.create<DaemonSet>(DAEMONSETS, {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace: NAMESPACE, annotations: options.annotations ?? {} },
    spec: {
      selector: { matchLabels: { app: name } },
      updateStrategy: { type: options.updateStrategy ?? 'OnDelete' },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          ...(options.nodeSelector ? { nodeSelector: options.nodeSelector } : {}),
          containers: [{ name: 'main', image: options.image ?? 'registry.example/agent:1' }],
        },
      },
    },
  });
}

/** A new template (new image): a new ControllerRevision, every existing pod outdated. */
export function setImage(admin: KubeClient, name: string, image: string): Promise<DaemonSet> {
  return admin.patch<DaemonSet>(
    `${DAEMONSETS}/${name}`,
    { spec: { template: { spec: { containers: [{ name: 'main', image }] } } } },
    'strategic',
  );
}

export function getDaemonSet(admin: KubeClient, name: string): Promise<DaemonSet> {
  return admin.get<DaemonSet>(`${DAEMONSETS}/${name}`);
}

export async function daemonPods(admin: KubeClient, name: string): Promise<DaemonPod[]> {
  const list = await admin.list<DaemonPod>(`/api/v1/namespaces/${NAMESPACE}/pods`, {
    labelSelector: `app=${name}`,
  });
  return list.items;
}

export async function revisionsOf(admin: KubeClient, name: string): Promise<ControllerRevision[]> {
  const list = await admin.list<ControllerRevision>(
    `/apis/apps/v1/namespaces/${NAMESPACE}/controllerrevisions`,
    {
      labelSelector: `app=${name}`,
    },
  );
  return list.items.sort((a, b) => a.revision - b.revision);
}

export function podReady(pod: DaemonPod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
}

/** The simulated DaemonSet controller and pod status writer, running as the admin. */
export async function startSimulatedWorkloads(admin: KubeClient): Promise<{
  daemonSets: SimulatedDaemonSetController;
  podStatus: SimulatedPodStatus;
  stop(): Promise<void>;
}> {
  const daemonSets = new SimulatedDaemonSetController({ client: admin });
  const podStatus = new SimulatedPodStatus({ client: admin });
  await Promise.all([daemonSets.start(), podStatus.start()]);
  return {
    daemonSets,
    podStatus,
    async stop() {
      await Promise.all([daemonSets.stop(), podStatus.stop()]);
    },
  };
}

// The Node object a simulated kubelet registers and the status it posts, shaped like a real kubelet's:
// well-known labels, addresses, nodeInfo, capacity/allocatable and the four conditions kubelet
// reports. Pure functions of a description and a clock, so tests can compare what was sent.

import { createHash } from 'node:crypto';
import type { KubeObject } from '../kube/light/types.ts';
import { kubeTime } from '../util/kube-time.ts';
import { BASE_KUBELET_VERSION } from './kubernetes-repositories.ts';

export const HOSTNAME_LABEL = 'kubernetes.io/hostname';
export const OS_LABEL = 'kubernetes.io/os';
export const ARCH_LABEL = 'kubernetes.io/arch';
export const ZONE_LABEL = 'topology.kubernetes.io/zone';
export const REGION_LABEL = 'topology.kubernetes.io/region';
export const ROLE_LABEL_PREFIX = 'node-role.kubernetes.io/';
/** Marks Nodes registered by the simulator, so tools can tell them from real ones. */
export const SIMULATED_LABEL = 'nodeherd.io/simulated';

export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

/** What a simulated node looks like; everything but the name has a kubelet-like default. */
export interface NodeDescription {
  name: string;
  /** Extra labels (pool labels and the like); they win over the defaults. */
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  zone?: string;
  region?: string;
  /** Each becomes a `node-role.kubernetes.io/<role>: ""` label. */
  roles?: string[];
  taints?: Taint[];
  /** Default BASE_KUBELET_VERSION (v1.31.4); a simulated node reports its kubelet package's version. */
  kubeletVersion?: string;
  /** Default amd64. */
  architecture?: string;
  osImage?: string;
  kernelVersion?: string;
  containerRuntimeVersion?: string;
  /** Default: 10.x.y.z derived from the name, stable across restarts. */
  internalIP?: string;
  /** Default 4 CPUs, 16 GiB, 110 pods, 100 GiB ephemeral storage. */
  capacity?: Record<string, string>;
  /** Default: capacity less kubelet-like reservations. */
  allocatable?: Record<string, string>;
}

/** The Ready condition as the kubelet sees it. */
export interface ReadyState {
  ready: boolean;
  reason: string;
  message: string;
}

export const READY: ReadyState = {
  ready: true,
  reason: 'KubeletReady',
  message: 'kubelet is posting ready status',
};

const DEFAULT_CAPACITY: Record<string, string> = {
  cpu: '4',
  memory: '16393248Ki',
  pods: '110',
  'ephemeral-storage': '102350Mi',
};

const DEFAULT_ALLOCATABLE: Record<string, string> = {
  cpu: '3900m',
  memory: '15880224Ki',
  pods: '110',
  'ephemeral-storage': '94319Mi',
};

/** kube's metav1.Time: RFC 3339 with whole seconds. */
export { kubeTime };

/** kube's metav1.MicroTime, as Lease renewTime uses it. */
export function kubeMicroTime(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/\.(\d+)Z$/, (_, fraction: string) => `.${fraction.padEnd(6, '0')}Z`);
}

export function nodeLabels(node: NodeDescription): Record<string, string> {
  const labels: Record<string, string> = {
    [HOSTNAME_LABEL]: node.name,
    [OS_LABEL]: 'linux',
    [ARCH_LABEL]: node.architecture ?? 'amd64',
    [SIMULATED_LABEL]: 'true',
  };
  if (node.zone !== undefined) labels[ZONE_LABEL] = node.zone;
  if (node.region !== undefined) labels[REGION_LABEL] = node.region;
  for (const role of node.roles ?? []) labels[`${ROLE_LABEL_PREFIX}${role}`] = '';
  return { ...labels, ...node.labels };
}

/** A private address derived from the name, so a restarted node keeps its address. */
export function internalAddress(name: string): string {
  const digest = createHash('sha256').update(name).digest();
  return `10.${digest[0]}.${digest[1]}.${Math.max(1, Math.min(254, digest[2]!))}`;
}

/** Ready plus the pressure conditions kubelet always reports, all with this heartbeat. */
export function nodeConditions(ready: ReadyState, heartbeatMs: number, readySinceMs: number): KubeObject[] {
  const heartbeat = kubeTime(heartbeatMs);
  const healthy = (type: string, reason: string, message: string) => ({
    type,
    status: 'False',
    reason,
    message,
    lastHeartbeatTime: heartbeat,
    // Pressure never changes in the simulation: it has been false since the node registered.
    lastTransitionTime: kubeTime(Math.min(readySinceMs, heartbeatMs)),
  });
  return [
    healthy('MemoryPressure', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
    healthy('DiskPressure', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
    healthy('PIDPressure', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
    {
      type: 'Ready',
      status: ready.ready ? 'True' : 'False',
      reason: ready.reason,
      message: ready.message,
      lastHeartbeatTime: heartbeat,
      lastTransitionTime: kubeTime(readySinceMs),
    },
  ];
}

/** The full status a kubelet posts at registration. */
export function nodeStatus(
  node: NodeDescription,
  ready: ReadyState,
  heartbeatMs: number,
  readySinceMs: number,
  bootId = uuidOf(`boot:${node.name}`),
): KubeObject {
  const capacity = node.capacity ?? DEFAULT_CAPACITY;
  return {
    capacity,
    allocatable: node.allocatable ?? (node.capacity ? capacity : DEFAULT_ALLOCATABLE),
    conditions: nodeConditions(ready, heartbeatMs, readySinceMs),
    addresses: [
      { type: 'InternalIP', address: node.internalIP ?? internalAddress(node.name) },
      { type: 'Hostname', address: node.name },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      machineID: digestOf(`machine:${node.name}`),
      systemUUID: uuidOf(node.name),
      bootID: bootId,
      kernelVersion: node.kernelVersion ?? '6.1.0-28-amd64',
      osImage: node.osImage ?? 'Debian GNU/Linux 12 (bookworm)',
      containerRuntimeVersion: node.containerRuntimeVersion ?? 'containerd://1.7.24',
      kubeletVersion: node.kubeletVersion ?? BASE_KUBELET_VERSION,
      kubeProxyVersion: '',
      operatingSystem: 'linux',
      architecture: node.architecture ?? 'amd64',
    },
  };
}

/** The Node a kubelet creates when it registers. */
export function nodeObject(
  node: NodeDescription,
  ready: ReadyState,
  heartbeatMs: number,
  readySinceMs: number,
  bootId?: string,
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: node.name,
      labels: nodeLabels(node),
      annotations: {
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
        ...node.annotations,
      },
    },
    spec: node.taints && node.taints.length > 0 ? { taints: node.taints } : {},
    status: nodeStatus(node, ready, heartbeatMs, readySinceMs, bootId),
  };
}

/** The Ready condition of a Node object as the server holds it. */
export function readyConditionOf(node: KubeObject | undefined): KubeObject | undefined {
  const conditions = (node?.status as { conditions?: KubeObject[] } | undefined)?.conditions;
  return conditions?.find((condition) => condition.type === 'Ready');
}

function digestOf(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

function uuidOf(text: string): string {
  const hex = digestOf(text);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

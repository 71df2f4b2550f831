// The wire shapes of the Kubernetes objects the controller reads. Objects stay plain JSON exactly as
// the API server sends them (timestamps are strings), in lists, watch events and write responses alike.

import type { ObjectMeta } from '../util/kube-api-types.ts';
import type { KubeList as WireList } from './light/types.ts';

export type { ObjectMeta };

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
}

export type KubeList<T extends KubeObject = KubeObject> = WireList<T>;

export interface NodeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastHeartbeatTime?: string;
}

export interface Node extends KubeObject {
  spec?: { unschedulable?: boolean; taints?: { key: string; value?: string; effect: string }[] };
  status?: { conditions?: NodeCondition[]; nodeInfo?: { kubeletVersion?: string } };
}

export interface PodCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
}

export interface Pod extends KubeObject {
  spec?: { nodeName?: string };
  status?: { phase?: string; conditions?: PodCondition[] };
}

export interface Secret extends KubeObject {
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

export interface Lease extends KubeObject {
  spec?: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number;
    acquireTime?: string | null;
    renewTime?: string | null;
    leaseTransitions?: number;
  };
}

export type { WatchEventType } from './light/types.ts';

// Node (core/v1): its definition with kubectl's node columns (STATUS with SchedulingDisabled, ROLES from
// node-role labels, addresses), its field selector spec.unschedulable, and its time fields.

import { builtinPatchMeta } from '../../patch/builtin-patch-meta.ts';
import { CONDITION_TIMES, t } from '../../schema/builtin-decoding.ts';
import type { KubeObject } from '../../storage/types.ts';
import type { BuiltinKind } from '../builtin-kind.ts';
import { conditionMessageCauses } from '../shared/message-limits.ts';
import { age } from '../shared/printing.ts';
import { NONE } from '../shared/readers.ts';
import { builtin, withStatus } from '../shared/schemas.ts';

function nodeStatus(node: KubeObject): string {
  const ready = (node.status?.conditions ?? []).find((c: KubeObject) => c?.type === 'Ready');
  const parts = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (node.spec?.unschedulable === true) parts.push('SchedulingDisabled');
  return parts.join(',');
}

function nodeRoles(node: KubeObject): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries<unknown>(node.metadata?.labels ?? {})) {
    if (key.startsWith('node-role.kubernetes.io/')) {
      const role = key.slice('node-role.kubernetes.io/'.length);
      if (role) roles.add(role);
    } else if (key === 'kubernetes.io/role' && typeof value === 'string' && value) {
      roles.add(value);
    }
  }
  return roles.size === 0 ? NONE : [...roles].sort().join(',');
}

function nodeAddress(type: string): (node: KubeObject) => string {
  return (node) => {
    const address = (node.status?.addresses ?? []).find((a: KubeObject) => a?.type === type);
    return address?.address ? String(address.address) : NONE;
  };
}

export const nodeKind: BuiltinKind = {
  definitions: () => [
    builtin({
      group: '',
      version: 'v1',
      resource: 'nodes',
      kind: 'Node',
      namespaced: false,
      shortNames: ['no'],
      ...withStatus('Node is a worker node in Kubernetes.', 'node'),
      printerColumns: [
        {
          name: 'Status',
          type: 'string',
          jsonPath: '.status.conditions[?(@.type=="Ready")].status',
          description: 'Ready condition, and SchedulingDisabled when cordoned.',
          compute: nodeStatus,
        },
        {
          name: 'Roles',
          type: 'string',
          jsonPath: '.metadata.labels',
          description: 'Roles from node-role.kubernetes.io/<role> labels.',
          compute: nodeRoles,
        },
        age,
        {
          name: 'Version',
          type: 'string',
          jsonPath: '.status.nodeInfo.kubeletVersion',
          description: 'Kubelet version.',
        },
        {
          name: 'Internal-IP',
          type: 'string',
          priority: 1,
          jsonPath: '.status.addresses[?(@.type=="InternalIP")].address',
          description: 'First InternalIP address.',
          compute: nodeAddress('InternalIP'),
        },
        {
          name: 'External-IP',
          type: 'string',
          priority: 1,
          jsonPath: '.status.addresses[?(@.type=="ExternalIP")].address',
          description: 'First ExternalIP address.',
          compute: nodeAddress('ExternalIP'),
        },
        {
          name: 'OS-Image',
          type: 'string',
          priority: 1,
          jsonPath: '.status.nodeInfo.osImage',
          description: 'OS image.',
        },
        {
          name: 'Kernel-Version',
          type: 'string',
          priority: 1,
          jsonPath: '.status.nodeInfo.kernelVersion',
          description: 'Kernel version.',
        },
        {
          name: 'Container-Runtime',
          type: 'string',
          priority: 1,
          jsonPath: '.status.nodeInfo.containerRuntimeVersion',
          description: 'Container runtime version.',
        },
      ],
      selectableFields: { 'spec.unschedulable': (n) => String(n.spec?.unschedulable === true) },
      patchMeta: builtinPatchMeta('Node'),
    }),
  ],
  decoding: {
    times: [t('status.conditions.*.lastHeartbeatTime'), ...CONDITION_TIMES, t('spec.taints.*.timeAdded')],
  },
  strategies: () => [
    {
      validate: (node, old) =>
        conditionMessageCauses(node.status?.conditions, old?.status?.conditions, 'status.conditions'),
    },
  ],
};

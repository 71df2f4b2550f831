// Deployment (apps/v1): stored, with kubectl's columns and generation tracking, so deploy/'s controller
// Deployment applies to the embedded server. Nothing here runs its pods (there is no kubelet); its
// status is what a writer of /status says.

import { builtinPatchMeta } from '../../patch/builtin-patch-meta.ts';
import { CONDITION_TIMES } from '../../schema/builtin-decoding.ts';
import type { BuiltinKind } from '../builtin-kind.ts';
import { age, podTemplateColumns, statusCount } from '../shared/printing.ts';
import { builtin, withStatus } from '../shared/schemas.ts';

export const deploymentKind: BuiltinKind = {
  definitions: () => [
    builtin({
      group: 'apps',
      version: 'v1',
      resource: 'deployments',
      kind: 'Deployment',
      namespaced: true,
      shortNames: ['deploy'],
      categories: ['all'],
      ...withStatus('Deployment enables declarative updates for Pods and ReplicaSets.', 'Deployment'),
      printerColumns: [
        {
          name: 'Ready',
          type: 'string',
          jsonPath: '.status.readyReplicas',
          description: 'Ready replicas of the desired ones.',
          compute: (d) => `${d.status?.readyReplicas ?? 0}/${d.spec?.replicas ?? 1}`,
        },
        statusCount('Up-to-date', 'updatedReplicas', 'Replicas updated to the template.'),
        statusCount('Available', 'availableReplicas', 'Available replicas.'),
        age,
        ...podTemplateColumns,
      ],
      patchMeta: builtinPatchMeta('Deployment'),
      tracksGeneration: true,
    }),
  ],
  decoding: { times: [...CONDITION_TIMES] },
};

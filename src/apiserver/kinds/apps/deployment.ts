// Deployment (apps/v1): stored, with kubectl's columns and generation tracking, so deploy/'s controller
// Deployment applies to the embedded server. Nothing here runs its pods (there is no kubelet); its
// status is what a writer of /status says.

import { builtinPatchMeta } from '../../patch/builtin-patch-meta.ts';
import { CONDITION_TIMES } from '../../schema/builtin-decoding.ts';
import type { BuiltinKind } from '../builtin-kind.ts';
import { age, labelSelectorText, templateContainers } from '../shared/printing.ts';
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
        {
          name: 'Up-to-date',
          type: 'integer',
          jsonPath: '.status.updatedReplicas',
          description: 'Replicas updated to the template.',
          compute: (d) => d.status?.updatedReplicas ?? 0,
        },
        {
          name: 'Available',
          type: 'integer',
          jsonPath: '.status.availableReplicas',
          description: 'Available replicas.',
          compute: (d) => d.status?.availableReplicas ?? 0,
        },
        age,
        {
          name: 'Containers',
          type: 'string',
          priority: 1,
          jsonPath: '.spec.template.spec.containers[*].name',
          description: 'Container names.',
          compute: templateContainers('name'),
        },
        {
          name: 'Images',
          type: 'string',
          priority: 1,
          jsonPath: '.spec.template.spec.containers[*].image',
          description: 'Container images.',
          compute: templateContainers('image'),
        },
        {
          name: 'Selector',
          type: 'string',
          priority: 1,
          jsonPath: '.spec.selector',
          description: 'The pod label selector.',
          compute: (d) => labelSelectorText(d.spec?.selector),
        },
      ],
      patchMeta: builtinPatchMeta('Deployment'),
      tracksGeneration: true,
    }),
  ],
  decoding: { times: [...CONDITION_TIMES] },
};

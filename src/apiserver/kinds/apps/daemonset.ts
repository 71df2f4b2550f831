// DaemonSet (apps/v1): its definition with kubectl's columns, generation tracking (spec/status split)
// and condition times.

import { builtinPatchMeta } from '../../patch/builtin-patch-meta.ts';
import { CONDITION_TIMES } from '../../schema/builtin-decoding.ts';
import type { BuiltinKind } from '../builtin-kind.ts';
import { age, labelSelectorText, selectorText, templateContainers } from '../shared/printing.ts';
import { builtin, withStatus } from '../shared/schemas.ts';

export const daemonSetKind: BuiltinKind = {
  definitions: () => [
    builtin({
      group: 'apps',
      version: 'v1',
      resource: 'daemonsets',
      kind: 'DaemonSet',
      namespaced: true,
      shortNames: ['ds'],
      categories: ['all'],
      ...withStatus('DaemonSet represents the configuration of a daemon set.', 'daemon set'),
      printerColumns: [
        {
          name: 'Desired',
          type: 'integer',
          jsonPath: '.status.desiredNumberScheduled',
          description: 'Nodes that should run the daemon pod.',
          compute: (d) => d.status?.desiredNumberScheduled ?? 0,
        },
        {
          name: 'Current',
          type: 'integer',
          jsonPath: '.status.currentNumberScheduled',
          description: 'Nodes running at least one daemon pod.',
          compute: (d) => d.status?.currentNumberScheduled ?? 0,
        },
        {
          name: 'Ready',
          type: 'integer',
          jsonPath: '.status.numberReady',
          description: 'Nodes with a ready daemon pod.',
          compute: (d) => d.status?.numberReady ?? 0,
        },
        {
          name: 'Up-to-date',
          type: 'integer',
          jsonPath: '.status.updatedNumberScheduled',
          description: 'Nodes running the updated daemon pod.',
          compute: (d) => d.status?.updatedNumberScheduled ?? 0,
        },
        {
          name: 'Available',
          type: 'integer',
          jsonPath: '.status.numberAvailable',
          description: 'Nodes with an available daemon pod.',
          compute: (d) => d.status?.numberAvailable ?? 0,
        },
        {
          name: 'Node Selector',
          type: 'string',
          jsonPath: '.spec.template.spec.nodeSelector',
          description: 'The pod template node selector.',
          compute: (d) => selectorText(d.spec?.template?.spec?.nodeSelector),
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
      patchMeta: builtinPatchMeta('DaemonSet'),
      tracksGeneration: true,
    }),
  ],
  decoding: { times: CONDITION_TIMES },
};

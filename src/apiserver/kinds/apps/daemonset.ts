// DaemonSet (apps/v1): its definition with kubectl's columns, generation tracking (spec/status split)
// and condition times.

import { builtinPatchMeta } from '../../patch/builtin-patch-meta.ts';
import { CONDITION_TIMES } from '../../schema/builtin-decoding.ts';
import type { BuiltinKind } from '../builtin-kind.ts';
import { age, podTemplateColumns, selectorText, statusCount } from '../shared/printing.ts';
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
        statusCount('Desired', 'desiredNumberScheduled', 'Nodes that should run the daemon pod.'),
        statusCount('Current', 'currentNumberScheduled', 'Nodes running at least one daemon pod.'),
        statusCount('Ready', 'numberReady', 'Nodes with a ready daemon pod.'),
        statusCount('Up-to-date', 'updatedNumberScheduled', 'Nodes running the updated daemon pod.'),
        statusCount('Available', 'numberAvailable', 'Nodes with an available daemon pod.'),
        {
          name: 'Node Selector',
          type: 'string',
          jsonPath: '.spec.template.spec.nodeSelector',
          description: 'The pod template node selector.',
          compute: (d) => selectorText(d.spec?.template?.spec?.nodeSelector),
        },
        age,
        ...podTemplateColumns,
      ],
      patchMeta: builtinPatchMeta('DaemonSet'),
      tracksGeneration: true,
    }),
  ],
  decoding: { times: CONDITION_TIMES },
};

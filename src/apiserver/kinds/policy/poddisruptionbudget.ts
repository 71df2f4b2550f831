// PodDisruptionBudget (policy/v1): its definition with kubectl's columns, generation tracking, time
// fields and protobuf message. Evictions it guards are answered by controllers/disruption.ts.

import { builtinPatchMeta } from '../../patch/builtin-patch-meta.ts';
import { PodDisruptionBudget } from '../../protobuf/groups.ts';
import { CONDITION_TIMES, t } from '../../schema/builtin-decoding.ts';
import type { BuiltinKind } from '../builtin-kind.ts';
import { age, intOrStringOrNA, statusCount } from '../shared/printing.ts';
import { builtin, withStatus } from '../shared/schemas.ts';

export const podDisruptionBudgetKind: BuiltinKind = {
  definitions: () => [
    builtin({
      group: 'policy',
      version: 'v1',
      resource: 'poddisruptionbudgets',
      kind: 'PodDisruptionBudget',
      namespaced: true,
      shortNames: ['pdb'],
      ...withStatus(
        'PodDisruptionBudget is an object to define the max disruption that can be caused to a collection of pods',
        'PodDisruptionBudget',
      ),
      printerColumns: [
        {
          name: 'Min Available',
          type: 'string',
          jsonPath: '.spec.minAvailable',
          description: 'Minimum available pods.',
          compute: (p) => intOrStringOrNA(p.spec?.minAvailable),
        },
        {
          name: 'Max Unavailable',
          type: 'string',
          jsonPath: '.spec.maxUnavailable',
          description: 'Maximum unavailable pods.',
          compute: (p) => intOrStringOrNA(p.spec?.maxUnavailable),
        },
        statusCount('Allowed Disruptions', 'disruptionsAllowed', 'Pod disruptions currently allowed.'),
        age,
      ],
      patchMeta: builtinPatchMeta('PodDisruptionBudget'),
      tracksGeneration: true,
    }),
  ],
  decoding: { times: [...CONDITION_TIMES, t('status.disruptedPods.*')] },
  protobuf: { 'policy/v1/PodDisruptionBudget': PodDisruptionBudget },
};

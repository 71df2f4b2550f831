// NetworkPolicy (networking.k8s.io/v1): stored so deploy/'s policy for the controller applies to the
// embedded server; nothing enforces it here (no pod network).

import { builtinPatchMeta } from '../../patch/builtin-patch-meta.ts';
import type { BuiltinKind } from '../builtin-kind.ts';
import { age, labelSelectorText } from '../shared/printing.ts';
import { builtin, kindSchema, open } from '../shared/schemas.ts';

export const networkPolicyKind: BuiltinKind = {
  definitions: () => [
    builtin({
      group: 'networking.k8s.io',
      version: 'v1',
      resource: 'networkpolicies',
      kind: 'NetworkPolicy',
      namespaced: true,
      shortNames: ['netpol'],
      schema: kindSchema('NetworkPolicy describes what network traffic is allowed for a set of Pods', {
        spec: open('spec represents the specification of the desired behavior for this NetworkPolicy.'),
      }),
      printerColumns: [
        {
          name: 'Pod-Selector',
          type: 'string',
          jsonPath: '.spec.podSelector',
          description: 'The pods the policy selects.',
          compute: (p) => labelSelectorText(p.spec?.podSelector) || '<none>',
        },
        age,
      ],
      patchMeta: builtinPatchMeta('NetworkPolicy'),
      tracksGeneration: true,
    }),
  ],
};

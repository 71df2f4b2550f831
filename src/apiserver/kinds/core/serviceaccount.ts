// ServiceAccount (core/v1): its definition, path-segment names, and the protobuf messages of the account
// and of its token subresource's body (TokenRequest, answered by auth/token-request.ts).

import { builtinPatchMeta } from '../../patch/builtin-patch-meta.ts';
import { ServiceAccount } from '../../protobuf/core-v1.ts';
import { TokenRequest } from '../../protobuf/groups.ts';
import { validatePathSegmentName } from '../../schema/names.ts';
import type { BuiltinKind } from '../builtin-kind.ts';
import { age } from '../shared/printing.ts';
import { count } from '../shared/readers.ts';
import { builtin, kindSchema, open } from '../shared/schemas.ts';

export const serviceAccountKind: BuiltinKind = {
  definitions: () => [
    builtin({
      group: '',
      version: 'v1',
      resource: 'serviceaccounts',
      kind: 'ServiceAccount',
      namespaced: true,
      shortNames: ['sa'],
      subresources: { token: true },
      schema: kindSchema('ServiceAccount binds together a name, a principal and a set of secrets.', {
        automountServiceAccountToken: {
          type: 'boolean',
          description:
            'Whether pods running as this service account should have an API token automatically mounted.',
        },
        imagePullSecrets: {
          type: 'array',
          description: 'References to secrets for pulling images.',
          items: open('LocalObjectReference.'),
        },
        secrets: {
          type: 'array',
          description: 'Secrets allowed to be used by pods running using this ServiceAccount.',
          items: open('ObjectReference.'),
        },
      }),
      printerColumns: [
        {
          name: 'Secrets',
          type: 'integer',
          jsonPath: '.secrets',
          description: 'Number of secrets.',
          compute: (sa) => count(sa.secrets),
        },
        age,
      ],
      patchMeta: builtinPatchMeta('ServiceAccount'),
    }),
  ],
  validateName: validatePathSegmentName,
  protobuf: { 'v1/ServiceAccount': ServiceAccount, 'authentication.k8s.io/v1/TokenRequest': TokenRequest },
};

// Lease (coordination.k8s.io/v1): node heartbeats and leader election; its MicroTime fields and protobuf
// message (v1beta1 bodies decode with the same table).

import { builtinPatchMeta } from '../../patch/builtin-patch-meta.ts';
import { Lease } from '../../protobuf/groups.ts';
import { t } from '../../schema/builtin-decoding.ts';
import type { BuiltinKind } from '../builtin-kind.ts';
import { age } from '../shared/printing.ts';
import { builtin, kindSchema, open } from '../shared/schemas.ts';

export const leaseKind: BuiltinKind = {
  definitions: () => [
    builtin({
      group: 'coordination.k8s.io',
      version: 'v1',
      resource: 'leases',
      kind: 'Lease',
      namespaced: true,
      schema: kindSchema('Lease defines a lease concept.', {
        spec: open('spec contains the specification of the Lease.'),
      }),
      printerColumns: [
        {
          name: 'Holder',
          type: 'string',
          jsonPath: '.spec.holderIdentity',
          description: 'The current holder.',
        },
        age,
      ],
      patchMeta: builtinPatchMeta('Lease'),
    }),
  ],
  decoding: { times: [t('spec.acquireTime', 'MicroTime'), t('spec.renewTime', 'MicroTime')] },
  protobuf: { 'coordination.k8s.io/v1/Lease': Lease, 'coordination.k8s.io/v1beta1/Lease': Lease },
};

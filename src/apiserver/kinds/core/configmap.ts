// ConfigMap (core/v1): its definition, kube's decoding of data (strings) and binaryData (base64), and
// kube's ConfigMap validation (keys, size, immutability).

import { builtinPatchMeta } from '../../patch/builtin-patch-meta.ts';
import { ConfigMap } from '../../protobuf/core-v1.ts';
import { checkStringMap } from '../../schema/builtin-decoding.ts';
import { validateConfigMap } from '../../schema/config-data-validation.ts';
import type { BuiltinKind } from '../builtin-kind.ts';
import { age } from '../shared/printing.ts';
import { count } from '../shared/readers.ts';
import { builtin, kindSchema } from '../shared/schemas.ts';

export const configMapKind: BuiltinKind = {
  definitions: () => [
    builtin({
      group: '',
      version: 'v1',
      resource: 'configmaps',
      kind: 'ConfigMap',
      namespaced: true,
      shortNames: ['cm'],
      schema: kindSchema('ConfigMap holds configuration data for pods to consume.', {
        binaryData: {
          type: 'object',
          description: 'BinaryData contains the binary data.',
          additionalProperties: { type: 'string', format: 'byte' },
        },
        data: {
          type: 'object',
          description: 'Data contains the configuration data.',
          additionalProperties: { type: 'string' },
        },
        immutable: {
          type: 'boolean',
          description:
            'Immutable, if set to true, ensures that data stored in the ConfigMap cannot be updated.',
        },
      }),
      printerColumns: [
        {
          name: 'Data',
          type: 'integer',
          jsonPath: '.data',
          description: 'Number of keys in data and binaryData.',
          compute: (cm) => count(cm.data) + count(cm.binaryData),
        },
        age,
      ],
      patchMeta: builtinPatchMeta('ConfigMap'),
    }),
  ],
  decoding: {
    values(obj) {
      checkStringMap(obj, 'data', 'ConfigMap', false);
      checkStringMap(obj, 'binaryData', 'ConfigMap', true);
    },
  },
  strategies: () => [{ validate: (obj, old) => validateConfigMap(obj, old) }],
  protobuf: { 'v1/ConfigMap': ConfigMap },
};

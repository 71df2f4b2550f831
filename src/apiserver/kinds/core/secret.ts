// Secret (core/v1): its definition, kube's decoding (data base64, stringData merged into data and
// dropped: it is write-only), the Opaque default type and kube's Secret validation.

import { builtinPatchMeta } from '../../patch/builtin-patch-meta.ts';
import { Secret } from '../../protobuf/core-v1.ts';
import { checkStringMap } from '../../schema/builtin-decoding.ts';
import { validateSecret } from '../../schema/config-data-validation.ts';
import type { BuiltinKind } from '../builtin-kind.ts';
import { age } from '../shared/printing.ts';
import { at, count } from '../shared/readers.ts';
import { builtin, kindSchema, str } from '../shared/schemas.ts';

export const secretKind: BuiltinKind = {
  definitions: () => [
    builtin({
      group: '',
      version: 'v1',
      resource: 'secrets',
      kind: 'Secret',
      namespaced: true,
      schema: kindSchema('Secret holds secret data of a certain type.', {
        data: {
          type: 'object',
          description: 'Data contains the secret data, base64 encoded.',
          additionalProperties: { type: 'string', format: 'byte' },
        },
        immutable: {
          type: 'boolean',
          description: 'Immutable, if set to true, ensures that data stored in the Secret cannot be updated.',
        },
        stringData: {
          type: 'object',
          description: 'stringData allows specifying non-binary secret data in string form.',
          additionalProperties: { type: 'string' },
        },
        type: str('Used to facilitate programmatic handling of secret data.'),
      }),
      printerColumns: [
        { name: 'Type', type: 'string', jsonPath: '.type', description: 'The secret type.' },
        {
          name: 'Data',
          type: 'integer',
          jsonPath: '.data',
          description: 'Number of data keys.',
          compute: (s) => count(s.data),
        },
        age,
      ],
      selectableFields: { type: at('type') },
      patchMeta: builtinPatchMeta('Secret'),
    }),
  ],
  decoding: {
    values(obj) {
      checkStringMap(obj, 'data', 'Secret', true);
      checkStringMap(obj, 'stringData', 'Secret', false);
      if (obj.stringData !== undefined) {
        const stringData: Record<string, string | null> = obj.stringData ?? {};
        if (Object.keys(stringData).length > 0) {
          obj.data = { ...(obj.data ?? {}) };
          for (const [key, text] of Object.entries(stringData)) {
            obj.data[key] = Buffer.from(text ?? '', 'utf8').toString('base64');
          }
        }
        delete obj.stringData;
      }
    },
  },
  strategies: () => [
    {
      // kube's SetDefaults_Secret.
      prepare(obj) {
        if (obj.type === undefined || obj.type === '') obj.type = 'Opaque';
      },
      validate: (obj, old) => validateSecret(obj, old),
    },
  ],
  protobuf: { 'v1/Secret': Secret },
};

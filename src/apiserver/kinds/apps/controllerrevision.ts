// ControllerRevision (apps/v1): an immutable snapshot of a controller's state (DaemonSet history).

import { builtinPatchMeta } from '../../patch/builtin-patch-meta.ts';
import type { BuiltinKind } from '../builtin-kind.ts';
import { age, controllerOf } from '../shared/printing.ts';
import { builtin, kindSchema, open } from '../shared/schemas.ts';

export const controllerRevisionKind: BuiltinKind = {
  definitions: () => [
    builtin({
      group: 'apps',
      version: 'v1',
      resource: 'controllerrevisions',
      kind: 'ControllerRevision',
      namespaced: true,
      schema: kindSchema('ControllerRevision implements an immutable snapshot of state data.', {
        data: open('Data is the serialized representation of the state.'),
        revision: {
          type: 'integer',
          format: 'int64',
          description: 'Revision indicates the revision of the state represented by Data.',
        },
      }),
      printerColumns: [
        {
          name: 'Controller',
          type: 'string',
          jsonPath: '.metadata.ownerReferences[?(@.controller==true)].name',
          description: 'The controlling owner.',
          compute: controllerOf,
        },
        { name: 'Revision', type: 'integer', jsonPath: '.revision', description: 'The revision number.' },
        age,
      ],
      patchMeta: builtinPatchMeta('ControllerRevision'),
    }),
  ],
};

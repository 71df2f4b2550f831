// Namespace (core/v1): its definition, its lifecycle (Active on create; Terminating on delete, kept by
// spec.finalizers until /finalize empties them), DNS-label names, and its protobuf message. Namespaces
// cannot be deleted as a collection in kube.

import type { KindStrategy } from '../../objects/strategy.ts';
import { builtinPatchMeta } from '../../patch/builtin-patch-meta.ts';
import { Namespace } from '../../protobuf/core-v1.ts';
import type { Verb } from '../../registry/resource-definition.ts';
import { CONDITION_TIMES } from '../../schema/builtin-decoding.ts';
import { nameIsDNSLabel } from '../../schema/names.ts';
import { cloneJson } from '../../storage/json-clone.ts';
import type { BuiltinKind } from '../builtin-kind.ts';
import { age } from '../shared/printing.ts';
import { at } from '../shared/readers.ts';
import { builtin, withStatus } from '../shared/schemas.ts';

const NAMESPACE_VERBS: Verb[] = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

/**
 * New namespaces are Active and carry the `kubernetes` lifecycle finalizer in spec.finalizers, which
 * only /finalize changes; deletion turns them Terminating, and spec.finalizers keeps them until the
 * namespace controller (controllers/namespace-controller.ts) has emptied them and finalized.
 */
export const namespaceStrategy: KindStrategy = {
  prepare(obj, old, ctx) {
    if (ctx.operation === 'create') {
      obj.spec = { ...(obj.spec ?? {}), finalizers: ['kubernetes'] };
      obj.status = { phase: 'Active' };
      obj.metadata.labels = {
        ...(obj.metadata.labels ?? {}),
        'kubernetes.io/metadata.name': obj.metadata.name,
      };
      return;
    }
    // spec.finalizers is only changed by the namespace controller (kube's /finalize); keep the stored one.
    if (old) {
      if (ctx.subresource !== 'finalize')
        obj.spec = { ...(obj.spec ?? {}), finalizers: old.spec?.finalizers ?? [] };
      if (ctx.subresource !== 'status') obj.status = old.status;
    }
  },
  // A namespace's /finalize writes spec.finalizers and nothing else.
  subresourceWrite(subresource, old, incoming) {
    if (subresource !== 'finalize') return undefined;
    const obj = cloneJson(old);
    obj.spec = { ...(obj.spec ?? {}), finalizers: incoming.spec?.finalizers ?? [] };
    return obj;
  },
  // Namespaces carry their lifecycle finalizers in spec.finalizers; they block removal like metadata ones.
  blocksRemoval(obj) {
    return Array.isArray(obj.spec?.finalizers) && obj.spec.finalizers.length > 0;
  },
  markDeleting(obj) {
    obj.status = { ...(obj.status ?? {}), phase: 'Terminating' };
  },
};

export const namespaceKind: BuiltinKind = {
  definitions: () => [
    builtin({
      group: '',
      version: 'v1',
      resource: 'namespaces',
      kind: 'Namespace',
      namespaced: false,
      shortNames: ['ns'],
      verbs: [...NAMESPACE_VERBS],
      ...withStatus('Namespace provides a scope for Names.', 'Namespace'),
      printerColumns: [
        {
          name: 'Status',
          type: 'string',
          jsonPath: '.status.phase',
          description: 'The phase of the namespace.',
        },
        age,
      ],
      selectableFields: { 'status.phase': at('status', 'phase') },
      patchMeta: builtinPatchMeta('Namespace'),
    }),
  ],
  decoding: { times: CONDITION_TIMES },
  strategies: () => [namespaceStrategy],
  validateName: nameIsDNSLabel,
  protobuf: { 'v1/Namespace': Namespace },
};

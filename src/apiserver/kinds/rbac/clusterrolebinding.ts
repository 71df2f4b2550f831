// ClusterRoleBinding (rbac.authorization.k8s.io/v1): grants a ClusterRole's rules across the cluster to
// users, groups and ServiceAccounts (which must name their namespace); its roleRef never changes.

import { builtinPatchMeta } from '../../patch/builtin-patch-meta.ts';
import { ClusterRoleBinding } from '../../protobuf/rbac-v1.ts';
import type { BuiltinKind } from '../builtin-kind.ts';
import { builtin, kindSchema } from '../shared/schemas.ts';
import { bindingSchema, createdAt, RBAC_GROUP, validateBinding } from './rbac-validation.ts';

export const clusterRoleBindingKind: BuiltinKind = {
  definitions: () => [
    builtin({
      group: RBAC_GROUP,
      version: 'v1',
      resource: 'clusterrolebindings',
      kind: 'ClusterRoleBinding',
      namespaced: false,
      schema: kindSchema(
        'ClusterRoleBinding references a ClusterRole, but not contain it. It can reference a ClusterRole in the global namespace, and adds who information via Subject.',
        bindingSchema('ClusterRoleBinding'),
      ),
      printerColumns: [createdAt],
      patchMeta: builtinPatchMeta('ClusterRoleBinding'),
    }),
  ],
  strategies: () => [{ validate: (obj, old) => validateBinding(obj, old, ['ClusterRole'], false) }],
  protobuf: { 'rbac.authorization.k8s.io/v1/ClusterRoleBinding': ClusterRoleBinding },
};

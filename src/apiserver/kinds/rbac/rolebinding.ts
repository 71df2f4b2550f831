// RoleBinding (rbac.authorization.k8s.io/v1): grants a Role of its namespace, or a ClusterRole's rules
// within its namespace, to users, groups and ServiceAccounts; its roleRef never changes.

import { builtinPatchMeta } from '../../patch/builtin-patch-meta.ts';
import { RoleBinding } from '../../protobuf/rbac-v1.ts';
import type { BuiltinKind } from '../builtin-kind.ts';
import { builtin, kindSchema } from '../shared/schemas.ts';
import { bindingSchema, createdAt, RBAC_GROUP, validateBinding } from './rbac-validation.ts';

export const roleBindingKind: BuiltinKind = {
  definitions: () => [
    builtin({
      group: RBAC_GROUP,
      version: 'v1',
      resource: 'rolebindings',
      kind: 'RoleBinding',
      namespaced: true,
      schema: kindSchema(
        'RoleBinding references a role, but does not contain it. It adds who information via Subjects and namespace information by which namespace it exists in.',
        bindingSchema('RoleBinding'),
      ),
      printerColumns: [createdAt],
      patchMeta: builtinPatchMeta('RoleBinding'),
    }),
  ],
  strategies: () => [{ validate: (obj, old) => validateBinding(obj, old, ['Role', 'ClusterRole'], true) }],
  protobuf: { 'rbac.authorization.k8s.io/v1/RoleBinding': RoleBinding },
};

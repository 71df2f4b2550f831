// Role (rbac.authorization.k8s.io/v1): namespaced rules, evaluated by the RBAC authorizer
// (auth/rbac-authorizer.ts) for the subjects of the RoleBindings that name it.

import { builtinPatchMeta } from '../../patch/builtin-patch-meta.ts';
import { Role } from '../../protobuf/rbac-v1.ts';
import type { BuiltinKind } from '../builtin-kind.ts';
import { builtin, kindSchema } from '../shared/schemas.ts';
import { createdAt, RBAC_GROUP, rulesSchema, validateRules } from './rbac-validation.ts';

export const roleKind: BuiltinKind = {
  definitions: () => [
    builtin({
      group: RBAC_GROUP,
      version: 'v1',
      resource: 'roles',
      kind: 'Role',
      namespaced: true,
      schema: kindSchema(
        'Role is a namespaced, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding.',
        { rules: rulesSchema('Role') },
      ),
      printerColumns: [createdAt],
      patchMeta: builtinPatchMeta('Role'),
    }),
  ],
  strategies: () => [{ validate: (obj) => validateRules(obj.rules, false) }],
  protobuf: { 'rbac.authorization.k8s.io/v1/Role': Role },
};

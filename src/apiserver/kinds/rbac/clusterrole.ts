// ClusterRole (rbac.authorization.k8s.io/v1): cluster-wide rules, granted cluster-wide by
// ClusterRoleBindings or in one namespace by RoleBindings; an aggregationRule makes its rules the union
// of the ClusterRoles its selectors match (kept current by controllers/clusterrole-aggregation.ts).

import { builtinPatchMeta } from '../../patch/builtin-patch-meta.ts';
import { ClusterRole } from '../../protobuf/rbac-v1.ts';
import type { BuiltinKind } from '../builtin-kind.ts';
import { builtin, kindSchema, open } from '../shared/schemas.ts';
import { createdAt, RBAC_GROUP, rulesSchema, validateRules } from './rbac-validation.ts';

export const clusterRoleKind: BuiltinKind = {
  definitions: () => [
    builtin({
      group: RBAC_GROUP,
      version: 'v1',
      resource: 'clusterroles',
      kind: 'ClusterRole',
      namespaced: false,
      schema: kindSchema(
        'ClusterRole is a cluster level, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding or ClusterRoleBinding.',
        {
          rules: rulesSchema('ClusterRole'),
          aggregationRule: open(
            'AggregationRule is an optional field that describes how to build the Rules for this ClusterRole.',
          ),
        },
      ),
      printerColumns: [createdAt],
      patchMeta: builtinPatchMeta('ClusterRole'),
    }),
  ],
  strategies: () => [{ validate: (obj) => validateRules(obj.rules, true) }],
  protobuf: { 'rbac.authorization.k8s.io/v1/ClusterRole': ClusterRole },
};

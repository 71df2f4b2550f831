// Field tables of rbac.authorization.k8s.io/v1 (k8s.io/api/rbac/v1/generated.proto): what `kubectl create
// role|clusterrole|rolebinding|clusterrolebinding` sends. Table data, reached through the RBAC kinds'
// BuiltinKind.protobuf (src/apiserver/kinds/rbac/).

import { field, list, message, msg, ptr, STRING, struct } from './message.ts';
import { LabelSelector, ObjectMeta } from './meta-v1.ts';

const RBAC = 'k8s.io.api.rbac.v1';

export const PolicyRule = message(`${RBAC}.PolicyRule`, () => [
  list(1, 'verbs', STRING),
  list(2, 'apiGroups', STRING),
  list(3, 'resources', STRING),
  list(4, 'resourceNames', STRING),
  list(5, 'nonResourceURLs', STRING),
]);

export const AggregationRule = message(`${RBAC}.AggregationRule`, () => [
  list(1, 'clusterRoleSelectors', msg(LabelSelector)),
]);

export const Subject = message(`${RBAC}.Subject`, () => [
  field(1, 'kind', STRING, 'always'),
  field(2, 'apiGroup', STRING),
  field(3, 'name', STRING, 'always'),
  field(4, 'namespace', STRING),
]);

export const RoleRef = message(`${RBAC}.RoleRef`, () => [
  field(1, 'apiGroup', STRING, 'always'),
  field(2, 'kind', STRING, 'always'),
  field(3, 'name', STRING, 'always'),
]);

export const Role = message(`${RBAC}.Role`, () => [
  struct(1, 'metadata', ObjectMeta),
  list(2, 'rules', msg(PolicyRule)),
]);

export const ClusterRole = message(`${RBAC}.ClusterRole`, () => [
  struct(1, 'metadata', ObjectMeta),
  list(2, 'rules', msg(PolicyRule)),
  ptr(3, 'aggregationRule', msg(AggregationRule)),
]);

export const RoleBinding = message(`${RBAC}.RoleBinding`, () => [
  struct(1, 'metadata', ObjectMeta),
  list(2, 'subjects', msg(Subject)),
  struct(3, 'roleRef', RoleRef),
]);

export const ClusterRoleBinding = message(`${RBAC}.ClusterRoleBinding`, () => [
  struct(1, 'metadata', ObjectMeta),
  list(2, 'subjects', msg(Subject)),
  struct(3, 'roleRef', RoleRef),
]);

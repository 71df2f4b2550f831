// Field tables for the API groups other than core/v1 whose objects typed clients send to this
// server: policy/v1 (Eviction, PodDisruptionBudget), coordination.k8s.io/v1 (Lease),
// events.k8s.io/v1 (Event), authentication.k8s.io/v1 (TokenRequest, SelfSubjectReview) and
// authorization.k8s.io/v1 (SelfSubjectAccessReview, SelfSubjectRulesReview).
// Table data, reached through each kind's BuiltinKind.protobuf (src/apiserver/kinds/).

import { EventSource, ObjectReference } from './core-v1.ts';
import {
  field,
  INT_OR_STRING,
  INT32,
  INT64,
  ignored,
  list,
  MICRO_TIME,
  map,
  message,
  msg,
  ptr,
  STRING,
  struct,
  TIME,
  unsupported,
} from './message.ts';
import { Condition, DeleteOptions, LabelSelector, ObjectMeta } from './meta-v1.ts';

// ---- policy/v1 ----

export const Eviction = message('k8s.io.api.policy.v1.Eviction', () => [
  struct(1, 'metadata', ObjectMeta),
  ptr(2, 'deleteOptions', msg(DeleteOptions)),
]);

export const PodDisruptionBudgetSpec = message('k8s.io.api.policy.v1.PodDisruptionBudgetSpec', () => [
  ptr(1, 'minAvailable', INT_OR_STRING),
  ptr(2, 'selector', msg(LabelSelector)),
  ptr(3, 'maxUnavailable', INT_OR_STRING),
  ptr(4, 'unhealthyPodEvictionPolicy', STRING),
]);

export const PodDisruptionBudgetStatus = message('k8s.io.api.policy.v1.PodDisruptionBudgetStatus', () => [
  field(1, 'observedGeneration', INT64),
  map(2, 'disruptedPods', TIME),
  field(3, 'disruptionsAllowed', INT32, 'always'),
  field(4, 'currentHealthy', INT32, 'always'),
  field(5, 'desiredHealthy', INT32, 'always'),
  field(6, 'expectedPods', INT32, 'always'),
  list(7, 'conditions', msg(Condition)),
]);

export const PodDisruptionBudget = message('k8s.io.api.policy.v1.PodDisruptionBudget', () => [
  struct(1, 'metadata', ObjectMeta),
  struct(2, 'spec', PodDisruptionBudgetSpec),
  struct(3, 'status', PodDisruptionBudgetStatus),
]);

// ---- coordination.k8s.io/v1 ----

export const LeaseSpec = message('k8s.io.api.coordination.v1.LeaseSpec', () => [
  ptr(1, 'holderIdentity', STRING),
  ptr(2, 'leaseDurationSeconds', INT32),
  ptr(3, 'acquireTime', MICRO_TIME),
  ptr(4, 'renewTime', MICRO_TIME),
  ptr(5, 'leaseTransitions', INT32),
  ptr(6, 'strategy', STRING),
  ptr(7, 'preferredHolder', STRING),
]);

export const Lease = message('k8s.io.api.coordination.v1.Lease', () => [
  struct(1, 'metadata', ObjectMeta),
  struct(2, 'spec', LeaseSpec),
]);

// ---- events.k8s.io/v1 ----

export const EventSeries = message('k8s.io.api.events.v1.EventSeries', () => [
  field(1, 'count', INT32, 'always'),
  field(2, 'lastObservedTime', MICRO_TIME, 'always'),
]);

export const Event = message('k8s.io.api.events.v1.Event', () => [
  struct(1, 'metadata', ObjectMeta),
  field(2, 'eventTime', MICRO_TIME, 'always'),
  ptr(3, 'series', msg(EventSeries)),
  field(4, 'reportingController', STRING),
  field(5, 'reportingInstance', STRING),
  field(6, 'action', STRING),
  field(7, 'reason', STRING),
  struct(8, 'regarding', ObjectReference),
  ptr(9, 'related', msg(ObjectReference)),
  field(10, 'note', STRING),
  field(11, 'type', STRING),
  struct(12, 'deprecatedSource', EventSource),
  field(13, 'deprecatedFirstTimestamp', TIME),
  field(14, 'deprecatedLastTimestamp', TIME),
  field(15, 'deprecatedCount', INT32),
]);

// ---- authentication.k8s.io/v1 ----

export const BoundObjectReference = message('k8s.io.api.authentication.v1.BoundObjectReference', () => [
  field(1, 'kind', STRING),
  field(2, 'apiVersion', STRING),
  field(3, 'name', STRING),
  field(4, 'uid', STRING),
]);

export const TokenRequestSpec = message('k8s.io.api.authentication.v1.TokenRequestSpec', () => [
  list(1, 'audiences', STRING),
  ptr(4, 'expirationSeconds', INT64),
  ptr(3, 'boundObjectRef', msg(BoundObjectReference)),
]);

export const TokenRequestStatus = message('k8s.io.api.authentication.v1.TokenRequestStatus', () => [
  field(1, 'token', STRING, 'always'),
  field(2, 'expirationTimestamp', TIME, 'always'),
]);

export const TokenRequest = message('k8s.io.api.authentication.v1.TokenRequest', () => [
  struct(1, 'metadata', ObjectMeta),
  struct(2, 'spec', TokenRequestSpec),
  struct(3, 'status', TokenRequestStatus),
]);

// ---- self reviews: kubectl auth whoami (authentication.k8s.io) and auth can-i (authorization.k8s.io) ----

export const SelfSubjectReview = message('k8s.io.api.authentication.v1.SelfSubjectReview', () => [
  struct(1, 'metadata', ObjectMeta),
  ignored(2, 'status'),
]);

export const ResourceAttributes = message('k8s.io.api.authorization.v1.ResourceAttributes', () => [
  field(1, 'namespace', STRING),
  field(2, 'verb', STRING),
  field(3, 'group', STRING),
  field(4, 'version', STRING),
  field(5, 'resource', STRING),
  field(6, 'subresource', STRING),
  field(7, 'name', STRING),
  unsupported(8, 'fieldSelector'),
  unsupported(9, 'labelSelector'),
]);

export const NonResourceAttributes = message('k8s.io.api.authorization.v1.NonResourceAttributes', () => [
  field(1, 'path', STRING),
  field(2, 'verb', STRING),
]);

export const SelfSubjectAccessReviewSpec = message(
  'k8s.io.api.authorization.v1.SelfSubjectAccessReviewSpec',
  () => [
    ptr(1, 'resourceAttributes', msg(ResourceAttributes)),
    ptr(2, 'nonResourceAttributes', msg(NonResourceAttributes)),
  ],
);

export const SelfSubjectAccessReview = message('k8s.io.api.authorization.v1.SelfSubjectAccessReview', () => [
  struct(1, 'metadata', ObjectMeta),
  struct(2, 'spec', SelfSubjectAccessReviewSpec),
  ignored(3, 'status'),
]);

export const SelfSubjectRulesReviewSpec = message(
  'k8s.io.api.authorization.v1.SelfSubjectRulesReviewSpec',
  () => [field(1, 'namespace', STRING)],
);

export const SelfSubjectRulesReview = message('k8s.io.api.authorization.v1.SelfSubjectRulesReview', () => [
  struct(1, 'metadata', ObjectMeta),
  struct(2, 'spec', SelfSubjectRulesReviewSpec),
  ignored(3, 'status'),
]);

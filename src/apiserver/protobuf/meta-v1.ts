// Field tables for k8s.io/apimachinery/pkg/apis/meta/v1 (generated.proto), with the JSON
// presence of each field taken from the Go types' json tags.

import { BOOL, field, INT64, ignored, list, map, message, msg, ptr, STRING, TIME } from './message.ts';

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

export const OwnerReference = message(`${META}.OwnerReference`, () => [
  field(5, 'apiVersion', STRING, 'always'),
  field(1, 'kind', STRING, 'always'),
  field(3, 'name', STRING, 'always'),
  field(4, 'uid', STRING, 'always'),
  ptr(6, 'controller', BOOL),
  ptr(7, 'blockOwnerDeletion', BOOL),
]);

export const ObjectMeta = message(`${META}.ObjectMeta`, () => [
  field(1, 'name', STRING),
  field(2, 'generateName', STRING),
  field(3, 'namespace', STRING),
  field(4, 'selfLink', STRING),
  field(5, 'uid', STRING),
  field(6, 'resourceVersion', STRING),
  field(7, 'generation', INT64),
  field(8, 'creationTimestamp', TIME),
  ptr(9, 'deletionTimestamp', TIME),
  ptr(10, 'deletionGracePeriodSeconds', INT64),
  map(11, 'labels', STRING),
  map(12, 'annotations', STRING),
  list(13, 'ownerReferences', msg(OwnerReference)),
  list(14, 'finalizers', STRING),
  // clusterName (15) left ObjectMeta in 1.25; Go drops it from older clients, and so does this.
  ignored(15, 'clusterName'),
  // Dropped, not refused: clients send back what they read on get-modify-update, and the server
  // records field ownership itself.
  ignored(17, 'managedFields'),
]);

export const LabelSelectorRequirement = message(`${META}.LabelSelectorRequirement`, () => [
  field(1, 'key', STRING, 'always'),
  field(2, 'operator', STRING, 'always'),
  list(3, 'values', STRING),
]);

export const LabelSelector = message(`${META}.LabelSelector`, () => [
  map(1, 'matchLabels', STRING),
  list(2, 'matchExpressions', msg(LabelSelectorRequirement)),
]);

export const Condition = message(`${META}.Condition`, () => [
  field(1, 'type', STRING, 'always'),
  field(2, 'status', STRING, 'always'),
  field(3, 'observedGeneration', INT64),
  field(4, 'lastTransitionTime', TIME, 'always'),
  field(5, 'reason', STRING, 'always'),
  field(6, 'message', STRING, 'always'),
]);

export const Preconditions = message(`${META}.Preconditions`, () => [
  ptr(1, 'uid', STRING),
  ptr(2, 'resourceVersion', STRING),
]);

export const DeleteOptions = message(`${META}.DeleteOptions`, () => [
  ptr(1, 'gracePeriodSeconds', INT64),
  ptr(2, 'preconditions', msg(Preconditions)),
  ptr(3, 'orphanDependents', BOOL),
  ptr(4, 'propagationPolicy', STRING),
  list(5, 'dryRun', STRING),
  ptr(6, 'ignoreStoreReadErrorWithClusterBreakingPotential', BOOL),
]);

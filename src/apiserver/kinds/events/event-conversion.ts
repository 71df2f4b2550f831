// core/v1 and events.k8s.io/v1 Events are one resource in kube: one store (core/v1 shape), two views.
// These are kube's conversions (pkg/apis/events/v1/conversion.go through the internal Event): fields
// with the same name pass through; the renamed ones map as below. Everything else (apiVersion, kind)
// is set by the view.

import type { KubeObject } from '../../storage/types.ts';

/** events.k8s.io/v1 name → core/v1 name, for the fields kube renames. */
const RENAMED: [v1: string, core: string][] = [
  ['note', 'message'],
  ['regarding', 'involvedObject'],
  ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];

/** Fields both versions spell alike. */
const SHARED = [
  'metadata',
  'eventTime',
  'series',
  'action',
  'reason',
  'type',
  'related',
  'reportingInstance',
];

function copyFields(from: KubeObject, to: KubeObject, pairs: [string, string][]): void {
  for (const [source, target] of pairs) {
    if (from[source] !== undefined) to[target] = structuredClone(from[source]);
  }
}

/** `event` as the view of `apiVersion` shows it: the shared fields, and the renamed ones as `renamed` maps them. */
function converted(event: KubeObject, apiVersion: string, renamed: [string, string][]): KubeObject {
  const out: KubeObject = { apiVersion, kind: 'Event' };
  copyFields(
    event,
    out,
    SHARED.map((f) => [f, f]),
  );
  copyFields(event, out, renamed);
  return out;
}

/** An events.k8s.io/v1 Event in core/v1 form (as stored). */
export function eventsV1ToCore(event: KubeObject): KubeObject {
  return converted(event, 'v1', RENAMED);
}

/** A stored core/v1 Event as events.k8s.io/v1 shows it. */
export function coreToEventsV1(event: KubeObject): KubeObject {
  return converted(
    event,
    'events.k8s.io/v1',
    RENAMED.map(([v1, core]) => [core, v1]),
  );
}

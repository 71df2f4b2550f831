// Kubernetes' metav1.Time on the wire: RFC 3339 in UTC with whole seconds ("2026-11-21T06:00:00Z"),
// and metav1.MicroTime with microseconds. Formatted without V8's Date formatters (see utc-time.ts).

import { isoTime } from './utc-time.ts';

export function kubeTime(ms: number = Date.now()): string {
  return `${isoTime(ms).slice(0, -5)}Z`;
}

/** metav1.MicroTime: RFC 3339 with microseconds. */
export function microTime(ms: number = Date.now()): string {
  return `${isoTime(ms).slice(0, -1)}000Z`;
}

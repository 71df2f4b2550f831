// metav1.Condition bookkeeping: one condition per type, and lastTransitionTime moves only when the
// status does (a changed reason or message alone is not a transition).

export interface StatusCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration: number;
}

export function findCondition<C extends { type: string }>(
  conditions: readonly C[] | undefined,
  type: string,
): C | undefined {
  return conditions?.find((c) => c.type === type);
}

interface WithConditions<C> {
  status?: { conditions?: readonly C[] | undefined } | undefined;
}

/** The Ready condition of a Node or Pod (any object whose status lists conditions). */
export function readyCondition<C extends { type: string }>(
  object: WithConditions<C> | null | undefined,
): C | undefined {
  return findCondition(object?.status?.conditions, 'Ready');
}

/** A Node or Pod whose Ready condition is True. */
export function isReady(
  object: WithConditions<{ type: string; status?: string }> | null | undefined,
): boolean {
  return readyCondition(object)?.status === 'True';
}

/** Returns the list with `next` in place of its type; `now` is used only when the status changes. */
export function setCondition(
  conditions: readonly StatusCondition[],
  next: Omit<StatusCondition, 'lastTransitionTime'>,
  now: string,
): StatusCondition[] {
  const previous = findCondition(conditions, next.type);
  const lastTransitionTime =
    previous && previous.status === next.status && previous.lastTransitionTime
      ? previous.lastTransitionTime
      : now;
  const merged: StatusCondition = { ...next, lastTransitionTime };
  return previous ? conditions.map((c) => (c.type === next.type ? merged : c)) : [...conditions, merged];
}

/** RFC 3339 with second precision, the way Kubernetes writes metav1.Time. */
export { kubeTime } from '../util/kube-time.ts';

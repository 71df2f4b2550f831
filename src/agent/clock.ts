// Time as the agent sees it, injectable so tests and simulations control it.

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** RFC 3339 with second precision, as Kubernetes writes metav1.Time. */
export { kubeTime } from '../util/kube-time.ts';

// Time as the agent sees it, injectable so tests and simulations control it.

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** RFC 3339 with second precision, as Kubernetes writes metav1.Time. */
export function kubeTime(epochMs: number): string {
  return new Date(Math.floor(epochMs / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

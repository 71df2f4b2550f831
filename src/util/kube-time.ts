// Kubernetes' metav1.Time on the wire: RFC 3339 in UTC with whole seconds ("2026-11-21T06:00:00Z").

export function kubeTime(ms: number = Date.now()): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}

// apimachinery's duration.HumanDuration: what kube puts in a Table's `date` cells (`5m30s`, `3d4h`).

/** A succinct age of ~2-3 significant figures; slightly negative ages (clock skew) read as 0s. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 365 * 2) return `${days}d`;
  if (hours < 24 * 365 * 8) {
    const dy = days % 365;
    const years = Math.trunc(days / 365);
    return dy === 0 ? `${years}y` : `${years}y${dy}d`;
  }
  return `${Math.trunc(days / 365)}y`;
}

const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A `date` cell: the age of an RFC 3339 timestamp (metav1.Time), `<unknown>` for an empty one,
 * `<invalid>` for anything unparseable.
 */
export function ageOf(timestamp: string, now: number): string {
  if (timestamp === '' || timestamp === 'null') return '<unknown>';
  const at = rfc3339.test(timestamp) ? Date.parse(timestamp) : Number.NaN;
  if (Number.isNaN(at)) return '<invalid>';
  return humanDuration(now - at);
}

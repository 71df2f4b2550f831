// What the server tells about its storage's bounds (issue 32): the verbose health answer
// (`/readyz?verbose`, also /livez and /healthz), which `nodeherd status` reads, and the Prometheus
// metrics of `/metrics`. The quota check is informational: at the quota the server stays ready, since
// reads, deletes and Lease renewals must reach it for the space to come back (etcd's own /health reports
// the NOSPACE alarm; kube-apiserver's etcd readiness check, a read, passes through it).

import type { StorageUsage } from '../storage/types.ts';

/** The name of the storage check in the verbose health answer. */
export const STORAGE_QUOTA_CHECK = 'etcd-storage-quota';

/** The one-line state of the storage quota, as the verbose health answer words it. */
export function storageQuotaLine(usage: StorageUsage): string {
  if (!usage.quotaExceeded) return `[+]${STORAGE_QUOTA_CHECK} ok`;
  return `[-]${STORAGE_QUOTA_CHECK} alarm: database space exceeded (${usage.usedBytes} of ${usage.quotaBytes} bytes in use): writes are refused, reads, deletes and Lease renewals are served`;
}

/** kube-apiserver's verbose health answer: one line per check, then the verdict. */
export function verboseHealth(kind: string, usage: StorageUsage | undefined): string {
  const lines = ['[+]ping ok', '[+]etcd ok'];
  if (usage !== undefined) lines.push(storageQuotaLine(usage));
  lines.push(`${kind} check passed`);
  return `${lines.join('\n')}\n`;
}

/** The storage gauges in Prometheus' text format (etcd's names where etcd has one). */
export function storageMetrics(usage: StorageUsage): string {
  const gauge = (name: string, help: string, value: number) =>
    `# HELP ${name} ${help}\n# TYPE ${name} gauge\n${name} ${value}\n`;
  return [
    gauge(
      'etcd_mvcc_db_total_size_in_use_in_bytes',
      'Bytes of the storage database in use (live objects and history).',
      usage.usedBytes,
    ),
    gauge(
      'etcd_server_quota_backend_bytes',
      'The storage quota (--storage-quota-bytes): at it, writes are refused.',
      usage.quotaBytes,
    ),
    gauge(
      'nodeherd_apiserver_storage_history_bytes',
      'Bytes of history (superseded revisions and tombstones) compaction has not removed yet.',
      usage.historyBytes,
    ),
    gauge(
      'nodeherd_apiserver_storage_quota_exceeded',
      '1 while the storage is at its quota and writes are refused (etcd NOSPACE alarm), else 0.',
      usage.quotaExceeded ? 1 : 0,
    ),
  ].join('');
}

// A NodeConfigPool in `nodeherd plan`'s file: the pool as applying it would leave it (its spec from the
// file; its status, rollback pin and other annotations from the server, which `kubectl apply` keeps),
// and what changes: which spec fields, which nodes join or leave it (a selector change moves nodes
// between pools, so every pool's membership is taken from the file's versions). Pure.

import { canonicalJson } from '../../api/canonical-json.ts';
import { defaultedPoolSpec } from '../../api/pool-defaults.ts';
import type { NodeConfigPool } from '../../api/types.ts';
import type { Node } from '../../kube/types.ts';
import { poolMembers } from '../pool-objects.ts';

export interface PoolChange {
  /** Line of the pool's document in the file. */
  line: number;
  /** The pool is not on the server: applying the file creates it. */
  created: boolean;
  /** Top-level spec fields that differ from the server's, e.g. "updateStrategy", "nodeSelector". */
  fields: string[];
  /** Members with the file's pools that are not members now, and the other way round. */
  joining: string[];
  leaving: string[];
}

/** The file's pool with the server's state: status, annotations (a rollback pin), uid. */
function asApplied(file: NodeConfigPool, server: NodeConfigPool | undefined): NodeConfigPool {
  if (!server) return { ...file, metadata: { ...file.metadata } };
  return {
    ...file,
    metadata: {
      ...server.metadata,
      labels: { ...server.metadata.labels, ...file.metadata.labels },
      annotations: { ...server.metadata.annotations, ...file.metadata.annotations },
    },
    ...(server.status ? { status: server.status } : {}),
  };
}

/** Every pool as it would be once the file is applied (the server's, replaced or joined by the file's). */
export function poolsAfter(
  server: readonly NodeConfigPool[],
  file: readonly NodeConfigPool[],
): NodeConfigPool[] {
  const byName = new Map(server.map((p) => [p.metadata.name, p]));
  for (const p of file) byName.set(p.metadata.name, asApplied(p, byName.get(p.metadata.name)));
  return [...byName.values()].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
}

function changedFields(file: NodeConfigPool, server: NodeConfigPool | undefined): string[] {
  if (!server) return Object.keys(file.spec ?? {}).sort();
  // Both defaulted as the API server and the controller default them: an omitted default is no change.
  const a = defaultedPoolSpec(file.spec) as unknown as Record<string, unknown>;
  const b = defaultedPoolSpec(server.spec) as unknown as Record<string, unknown>;
  return [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .filter((k) => canonicalJson(a[k] ?? null) !== canonicalJson(b[k] ?? null))
    .sort();
}

export function poolChangeOf(
  file: { pool: NodeConfigPool; line: number },
  server: readonly NodeConfigPool[],
  after: readonly NodeConfigPool[],
  nodes: readonly Node[],
): PoolChange {
  const name = file.pool.metadata.name;
  const before = server.find((p) => p.metadata.name === name);
  const now = new Set(before ? poolMembers(before, server, nodes).map((n) => n.metadata.name) : []);
  const pool = after.find((p) => p.metadata.name === name)!;
  const then = new Set(poolMembers(pool, after, nodes).map((n) => n.metadata.name));
  return {
    line: file.line,
    created: before === undefined,
    fields: changedFields(file.pool, before),
    joining: [...then].filter((n) => !now.has(n)).sort(),
    leaving: [...now].filter((n) => !then.has(n)).sort(),
  };
}

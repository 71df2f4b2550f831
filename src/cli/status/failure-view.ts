// Why nodes failed, for `nodeherd status <pool>` and `nodeherd status <pool> --node <node>` (issue 36):
// the failures the pool's status recorded (status.episodes) for the revision a rollback undid — the
// node itself is healthy again and its Events may have expired — and one node's whole story: its state,
// the agent's excerpt (the NodeConfigReady condition's message: the failed unit's journal lines), its
// recorded episodes and its latest Events.

import {
  CURRENT_REVISION_ANNOTATION,
  DESIRED_REVISION_ANNOTATION,
  MESSAGE_ANNOTATION,
  NODE_CONFIG_READY_CONDITION,
  STATE_ANNOTATION,
} from '../../api/node-protocol.ts';
import type { NodeConfigPool } from '../../api/types.ts';
import { ROLLBACK_FROM_ANNOTATION } from '../../controller/annotations.ts';
import type { Node } from '../../kube/types.ts';
import type { Palette } from '../text-table.ts';

type Episode = NonNullable<NonNullable<NodeConfigPool['status']>['episodes']>[number];

export interface RecordedFailure {
  name: string;
  revision: string;
  /** The agent's one line: the reason and the failing program's own words. */
  message: string;
}

/**
 * The failures behind the rollback that pins the pool now (its nodes may be healthy again), newest
 * first, one per node; none when the pool is not pinned.
 */
export function recordedFailures(pool: NodeConfigPool, failingNow: ReadonlySet<string>): RecordedFailure[] {
  const undone = pool.metadata.annotations?.[ROLLBACK_FROM_ANNOTATION];
  if (!undone) return [];
  const byNode = new Map<string, RecordedFailure>();
  for (const e of pool.status?.episodes ?? []) {
    if (e.kind !== 'Failed' || e.revision !== undone || failingNow.has(e.node)) continue;
    byNode.set(e.node, { name: e.node, revision: undone, message: (e.message ?? '').split('\n')[0]! });
  }
  return [...byNode.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** A failed node's story for the dashboard: the one line, and the excerpt to unfold. */
export interface FailureExcerptView {
  node: string;
  revision?: string;
  /** The agent's one line (reason and cause). */
  summary: string;
  /** The failed unit's journal lines and the probe's or command's output, as the agent sent them. */
  excerpt: string;
  /** The node is failed now (else: recorded, the rollback restored it). */
  current: boolean;
}

/** Failed members (their NodeConfigReady message) and the failures behind the rollback that pins the pool. */
export function failureExcerpts(pool: NodeConfigPool, members: readonly Node[]): FailureExcerptView[] {
  const views: FailureExcerptView[] = [];
  const failing = new Set<string>();
  for (const node of members) {
    const a = node.metadata.annotations ?? {};
    if (a[STATE_ANNOTATION] !== 'Failed') continue;
    failing.add(node.metadata.name);
    const detail = conditionOf(node, NODE_CONFIG_READY_CONDITION)?.message ?? '';
    views.push({
      node: node.metadata.name,
      ...(a[DESIRED_REVISION_ANNOTATION] ? { revision: a[DESIRED_REVISION_ANNOTATION] } : {}),
      summary: a[MESSAGE_ANNOTATION] ?? detail.split('\n')[0] ?? '',
      excerpt: detail.includes('\n') ? detail.slice(detail.indexOf('\n') + 1) : '',
      current: true,
    });
  }
  const undone = pool.metadata.annotations?.[ROLLBACK_FROM_ANNOTATION];
  const recorded = new Map<string, FailureExcerptView>();
  for (const e of pool.status?.episodes ?? []) {
    if (!undone || e.kind !== 'Failed' || e.revision !== undone || failing.has(e.node)) continue;
    const message = e.message ?? '';
    const cut = message.indexOf('\n');
    recorded.set(e.node, {
      node: e.node,
      revision: undone,
      summary: cut < 0 ? message : message.slice(0, cut),
      excerpt: cut < 0 ? '' : message.slice(cut + 1),
      current: false,
    });
  }
  return [...views, ...recorded.values()].sort((x, y) => (x.node < y.node ? -1 : 1));
}

export interface NodeEventLine {
  at: string;
  type: string;
  reason: string;
  message: string;
}

export interface NodeDetail {
  pool: string;
  node: Node;
  episodes: Episode[];
  events: NodeEventLine[];
}

function indent(text: string, prefix: string): string[] {
  return text.split('\n').map((line) => `${prefix}${line}`);
}

function conditionOf(node: Node, type: string) {
  return node.status?.conditions?.find((c) => c.type === type);
}

/** `nodeherd status <pool> --node <node>`: the node's state and the whole excerpt, its episodes, its Events. */
export function renderNodeDetail(detail: NodeDetail, p: Palette): string {
  const { node } = detail;
  const a = node.metadata.annotations ?? {};
  const lines: string[] = [];
  lines.push(`${p.bold(`node ${node.metadata.name}`)}  pool ${detail.pool}`);
  const ready = conditionOf(node, 'Ready');
  lines.push(`  Ready            ${ready?.status ?? 'unknown'}${ready?.reason ? ` (${ready.reason})` : ''}`);
  lines.push(`  agent state      ${a[STATE_ANNOTATION] ?? '-'}`);
  lines.push(`  current revision ${a[CURRENT_REVISION_ANNOTATION] ?? '-'}`);
  lines.push(`  desired revision ${a[DESIRED_REVISION_ANNOTATION] ?? '-'}`);
  if (a[MESSAGE_ANNOTATION]) lines.push(`  message          ${a[MESSAGE_ANNOTATION]}`);
  const config = conditionOf(node, NODE_CONFIG_READY_CONDITION);
  if (config) {
    lines.push(`  ${NODE_CONFIG_READY_CONDITION} ${config.status} (${config.reason ?? ''})`);
    if (config.message) lines.push(...indent(config.message, '    '));
  }
  const failures = detail.episodes.filter((e) => e.kind === 'Failed');
  const others = detail.episodes.filter((e) => e.kind !== 'Failed');
  if (failures.length > 0) {
    lines.push('', p.bold('  recorded failures (the pool’s status)'));
    for (const e of failures) {
      lines.push(`  ${p.red('failed')} ${e.revision ?? ''} ${e.from}${e.to ? ` – ${e.to}` : ' (ongoing)'}`);
      if (e.message) lines.push(...indent(e.message, '    '));
    }
  }
  if (others.length > 0) {
    lines.push('', p.bold('  episodes'));
    for (const e of others) {
      const span = e.to
        ? `${e.from} – ${e.to}`
        : e.kind === 'Updated' || e.kind === 'RolledBack'
          ? e.from
          : `${e.from} (ongoing)`;
      lines.push(
        `  ${e.kind.padEnd(10)} ${span}${e.revision ? `  ${e.revision}` : ''}${e.message ? `  ${e.message.split('\n')[0]}` : ''}`,
      );
    }
  }
  if (detail.events.length > 0) {
    lines.push('', p.bold('  events (newest first)'));
    for (const e of detail.events)
      lines.push(`  ${e.at}  ${e.type.padEnd(7)} ${e.reason.padEnd(12)} ${e.message}`);
  }
  return `${lines.join('\n')}\n`;
}

// The fleet's rollout status, read from the API server and drawn as text: `nodeherd status` and the
// live view of `nodeherd up` both use exactly these two functions.

import type { NodeConfigPool, NodeConfigRevision } from '../../api/types.ts';
import { PATHS } from '../../controller/api-paths.ts';
import type { KubeClient } from '../../kube/kube-client.ts';
import type { Node } from '../../kube/types.ts';
import { invokedCommand } from '../../util/invoked-command.ts';
import { kubeTime } from '../../util/kube-time.ts';
import { unknownPoolError } from '../pool-lookup.ts';
import { etaText } from '../rollout-eta.ts';
import { bar, type Palette, palette, table, truncate } from '../text-table.ts';
import { buildFleetStatus, type FleetStatus, mayBeRollingOut, type PoolView } from './fleet-status.ts';

export type { FleetStatus, PoolView } from './fleet-status.ts';

export interface RenderOptions {
  /** ANSI colours. */
  color: boolean;
  /** Terminal width: longer lines are cut. */
  width: number;
  /** Progress bars (the live views). */
  bars: boolean;
  /** The detailed view of one pool (`nodeherd status <pool>`): names every drifted node. */
  detail?: boolean;
}

/** Reads pools, revisions and nodes; with `pool`, only that pool (an unknown pool is a CliError). */
export async function fetchFleetStatus(client: KubeClient, pool?: string): Promise<FleetStatus> {
  const [pools, revisions, nodes, storageAlarm] = await Promise.all([
    client.list<NodeConfigPool>(PATHS.nodeConfigPools),
    client.list<NodeConfigRevision>(PATHS.revisions),
    client.list<Node>(PATHS.nodes),
    fetchStorageAlarm(client),
  ]);
  if (pool !== undefined && !pools.items.some((p) => p.metadata.name === pool)) {
    throw unknownPoolError(
      pool,
      pools.items.map((p) => p.metadata.name),
    );
  }
  const objects = { pools: pools.items, revisions: revisions.items, nodes: nodes.items };
  const now = Date.now();
  // The ETA's code (the plan, the rollout order, cron) only when a rollout may be under way.
  const estimate = mayBeRollingOut(objects, now) ? (await import('./status-eta.ts')).statusEta : undefined;
  const status = buildFleetStatus(
    objects,
    { server: client.server.origin, observedAt: kubeTime(now) },
    pool,
    estimate,
  );
  return storageAlarm === undefined ? status : { ...status, storageAlarm };
}

const STORAGE_ALARM_LINE = /^\[-\]etcd-storage-quota (.*)$/m;

/**
 * The embedded API server's storage alarm from its verbose readiness answer, or undefined: when it is
 * under its quota, or the server is another one (a cluster's kube-apiserver has no such check), or the
 * answer cannot be had (status shows the fleet all the same).
 */
export async function fetchStorageAlarm(client: KubeClient): Promise<string | undefined> {
  try {
    const text = await client.getText('/readyz?verbose');
    return STORAGE_ALARM_LINE.exec(text)?.[1];
  } catch {
    return undefined;
  }
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function conditionColour(p: Palette, type: string, status: string): (text: string) => string {
  const good =
    ((type === 'Complete' || type === 'HealthGate') && status === 'True') ||
    (['Degraded', 'Paused', 'RolledBack', 'RenderDegraded'].includes(type) && status === 'False');
  const bad =
    ((type === 'Degraded' || type === 'RenderDegraded' || type === 'RolledBack') && status === 'True') ||
    (type === 'HealthGate' && status === 'False');
  if (bad) return p.red;
  if (good) return p.green;
  return status === 'True' ? p.yellow : (text) => text;
}

function renderPool(pool: PoolView, options: RenderOptions, p: Palette): string[] {
  const lines: string[] = [];
  const detail = pool.strategyDetail ? ` (${pool.strategyDetail})` : '';
  lines.push(
    `${p.bold(`pool ${pool.name}`)}  ${pool.strategy}${detail}${pool.paused ? `  ${p.yellow('PAUSED')}` : ''}`,
  );
  const target = pool.target
    ? `${pool.target.name}${pool.target.number !== undefined ? ` (revision ${pool.target.number})` : ''}`
    : p.dim('none yet (the controller has not rendered this pool)');
  lines.push(`  target revision  ${target}`);
  if (pool.eta) {
    const eta = pool.eta;
    lines.push(
      `  ETA              ${'none' in eta ? etaText(eta) : pool.paused ? `none while paused; once resumed, ${etaText(eta)}` : etaText(eta)}`,
    );
  }
  if (pool.wave) {
    const soak = pool.wave.soakSeconds ? `, soaked ${pool.wave.soakSeconds}s` : '';
    lines.push(`  after            ${pool.wave.after.join(', ')} (completed${soak})`);
  }
  if (pool.maintenanceWindow) {
    const w = pool.maintenanceWindow;
    const now = w.closesAt ? p.green(`open until ${w.closesAt}`) : 'closed';
    const next = w.nextOpen ? `next opens ${w.nextOpen}` : p.dim('next opening not known yet');
    lines.push(`  window           ${now}; ${next}`);
  }

  const c = pool.counts;
  const count = (n: number, colour: (t: string) => string) => (n > 0 ? colour(String(n)) : String(n));
  lines.push(
    ...table(
      [
        ['NODES', 'UPDATED', 'READY', 'APPLYING', 'WAITING', 'FAILED', 'UNAVAILABLE', 'DRIFTED'],
        [
          String(pool.nodes),
          String(c.updated),
          String(c.ready),
          count(c.applying, p.yellow),
          String(c.waiting),
          count(c.failed, p.red),
          count(c.unavailable, p.yellow),
          count(c.drifted, p.yellow),
        ],
      ],
      '  ',
    ),
  );
  if (options.bars && pool.nodes > 0) {
    const width = Math.max(10, Math.min(40, options.width - 40));
    const done = c.updated === pool.nodes ? p.green : (t: string) => t;
    lines.push(`  updated  ${done(bar(c.updated, pool.nodes, width))} ${c.updated}/${pool.nodes}`);
    lines.push(`  ready    ${done(bar(c.ready, pool.nodes, width))} ${c.ready}/${pool.nodes}`);
  }

  if (pool.revisions.length > 0) {
    const rows = [['REVISION', 'NUMBER', 'NODES']];
    for (const r of pool.revisions) {
      rows.push([
        r.target ? `${r.name} (target)` : r.name,
        r.number !== undefined ? String(r.number) : '-',
        String(r.nodes),
      ]);
    }
    lines.push(...table(rows, '  '));
  }
  if (pool.conditions.length > 0) {
    const rows = [['CONDITION', 'STATUS', 'REASON', 'MESSAGE']];
    for (const cond of pool.conditions) {
      rows.push([
        cond.type,
        conditionColour(p, cond.type, cond.status)(cond.status),
        cond.reason ?? '',
        cond.message ?? '',
      ]);
    }
    lines.push(...table(rows, '  '));
  } else {
    lines.push(`  ${p.dim('no conditions yet (is the controller running?)')}`);
  }
  lines.push(...pauseLines(pool, p));
  for (const failed of pool.failedNodes.slice(0, 10)) {
    lines.push(`  ${p.red('failed')} ${failed.name}: ${failed.message || 'no message'}`);
  }
  if (pool.failedNodes.length > 10) lines.push(`  …and ${pool.failedNodes.length - 10} more failed nodes`);
  for (const failed of (pool.recordedFailures ?? []).slice(0, 10)) {
    lines.push(`  ${p.red('failed')} ${failed.name} (rolled back): ${failed.message || 'no message'}`);
  }
  if (pool.failedNodes.length + (pool.recordedFailures?.length ?? 0) > 0) {
    const node = pool.failedNodes[0]?.name ?? pool.recordedFailures[0]!.name;
    lines.push(
      `  ${p.dim(`why, in the node's own words: ${invokedCommand()} status ${pool.name} --node ${node}`)}`,
    );
  }
  if (options.detail) {
    for (const drifted of pool.driftedNodes)
      lines.push(`  ${p.yellow('drifted')} ${drifted.name}: ${drifted.message || 'no message'}`);
  } else if (pool.driftedNodes.length > 0) {
    lines.push(
      `  ${p.yellow('drifted')} ${plural(pool.driftedNodes.length, 'node')} (${invokedCommand()} status ${pool.name} names them)`,
    );
  }
  if (pool.rebootNodes.length > 0) {
    const how =
      pool.rebootPolicy === 'Reboot'
        ? 'rebooted as a rollout'
        : 'policy Report: reboot them yourself, or set reboots.osRequested.policy Reboot';
    if (options.detail)
      for (const node of pool.rebootNodes)
        lines.push(`  ${p.yellow('reboot')} ${node.name}: ${node.message || 'the OS asks for a reboot'}`);
    lines.push(
      `  ${p.yellow('reboot')} ${plural(pool.rebootNodes.length, 'node')} waiting for a reboot (${how})${options.detail ? '' : ` (${invokedCommand()} status ${pool.name} names them)`}`,
    );
  }
  lines.push(...prestageLines(pool, options.detail === true, p));
  if (pool.conflictingNodes.length > 0) {
    lines.push(
      `  ${p.red('conflict')} ${plural(pool.conflictingNodes.length, 'node')} also selected by another pool (managed by none): ${pool.conflictingNodes.slice(0, 10).join(', ')}`,
    );
  }
  return lines;
}

/** Who paused the pool and how it resumes: the failure policy's pause is no person's spec.paused. */
function pauseLines(pool: PoolView, p: Palette): string[] {
  const pause = pool.pause;
  if (!pause) return [];
  const resume = `${invokedCommand()} resume ${pool.name}`;
  if (pause.by === 'user')
    return [
      pool.strategy === 'OTA'
        ? `  ${p.yellow('paused')} by spec.paused, which changes nothing for OTA: the nodes' owners take updates`
        : `  ${p.yellow('paused')} by spec.paused: nothing starts until ${resume}`,
    ];
  const lines = [`  ${p.yellow('paused by the failure policy')}: ${pause.message}`];
  const stale = pause.earlierFailures;
  if (stale.length > 0) {
    const failedRevisions = [...new Set(stale.map((f) => f.message).filter((m) => m !== ''))];
    lines.push(
      `  ${plural(stale.length, 'node')} failed ${failedRevisions.join(', ') || 'an earlier revision'}, no longer the target (${stale.map((f) => f.name).join(', ')}): ${stale.length === 1 ? 'it runs' : 'they run'} what ${stale.length === 1 ? 'it' : 'they'} ran before`,
    );
    lines.push(`  the change was reverted: ${resume} hands every node the target again`);
  } else {
    lines.push(`  fix the cause or revert the change, then: ${resume}`);
  }
  return lines;
}

/** Draws the status; lines are cut to options.width (0: no limit). */
export function renderFleetStatus(status: FleetStatus, options: RenderOptions): string {
  const p = palette(options.color);
  const blocks: string[][] = [];
  if (status.storageAlarm !== undefined) {
    blocks.push([p.red(`the API server's storage is at its quota: ${status.storageAlarm}`)]);
  }
  if (status.pools.length === 0) {
    blocks.push([`no NodeConfigPools on ${status.server}: create one (see docs/cli.md)`]);
  }
  for (const pool of status.pools) blocks.push(renderPool(pool, options, p));
  if (status.unpooledNodes > 0) {
    blocks.push([p.dim(`${plural(status.unpooledNodes, 'node')} selected by no pool`)]);
  }
  const lines = blocks.flatMap((block, i) => (i === 0 ? block : ['', ...block]));
  return `${lines.map((line) => (options.width > 0 ? truncate(line, options.width) : line)).join('\n')}\n`;
}

/** Nodes pre-staging the target: a count per state, and with --detail (or a failure) each node. */
function prestageLines(pool: PoolView, detail: boolean, p: Palette): string[] {
  const nodes = pool.prestagedNodes ?? [];
  if (nodes.length === 0) return [];
  const count = (state: string) => nodes.filter((n) => n.state === state).length;
  const parts = (['downloaded', 'downloading', 'failed'] as const)
    .filter((state) => count(state) > 0)
    .map((state) => `${count(state)} ${state}`);
  const lines = [
    `  ${p.dim('prestage')} ${plural(nodes.length, 'node')} next in line pre-staging packages (${parts.join(', ')})`,
  ];
  for (const node of nodes)
    if (detail || node.state === 'failed')
      lines.push(
        `  ${(node.state === 'failed' ? p.red : p.dim)('prestage')} ${node.name} ${node.state}${node.message ? `: ${node.message}` : ''}`,
      );
  return lines;
}

// `nodeherd plan` as text: per pool the would-be revision, the changes from each current revision,
// and every node in rollout order with its batch (slot wave, or start offset) and action.

import { strategyDescription } from '../../controller/strategies/descriptions.ts';
import type { ChangeSet } from '../../plan/types.ts';
import { etaText } from '../rollout-eta.ts';
import { type Palette, palette, table, truncate } from '../text-table.ts';
import type { PoolChange } from './pool-change.ts';
import type { PoolOrder } from './pool-order.ts';
import type { ChangeGroup, NodeAction, PoolPlan } from './pool-plan.ts';

export interface PlanReport {
  file: string;
  configs: { name: string; line: number }[];
  /** The file's NodeConfigPools. */
  poolDocuments: { name: string; line: number }[];
  skipped: string[];
  /** Problems of the file that do not stop the plan (unknown fields). */
  warnings: string[];
  pools: PoolPlan[];
  /** Pools none of whose selection changes (only when no --pool was given). */
  unaffected: string[];
  /** The order across the changing pools, when pools wait for others (waves). */
  order?: PoolOrder;
}

function orderLines(order: PoolOrder, p: Palette): string[] {
  const lines = ['order across pools (a pool starts once those it waits for completed and soaked):'];
  order.waves.forEach((wave, i) => {
    lines.push(`  wave ${i + 1}: ${wave.pools.join(', ')}`);
  });
  if (order.blocked.length > 0)
    lines.push(
      `  ${p.red('never start')} (they wait for each other in a cycle): ${order.blocked.join(', ')}`,
    );
  for (const [pool, missing] of Object.entries(order.missing))
    lines.push(`  ${p.yellow('holds')}: ${pool} waits for ${missing.join(', ')}, which does not exist`);
  return lines;
}

const MAX_NAMES = 12;

function names(list: readonly string[]): string {
  return list.length > MAX_NAMES
    ? `${list.slice(0, MAX_NAMES).join(', ')} and ${list.length - MAX_NAMES} more`
    : list.join(', ');
}

function revisionText(name: string | undefined, number: number | undefined): string {
  if (!name) return 'no revision';
  return number !== undefined ? `revision ${number} (${name})` : name;
}

function actionColour(p: Palette, action: NodeAction): (text: string) => string {
  if (action === 'reboot' || action === 'drain') return p.red;
  if (action === 'restart') return p.yellow;
  return (text) => text;
}

function changeLines(group: ChangeGroup): string[] {
  const lines: string[] = [];
  const kinds: [string, ChangeSet][] = [
    ['files', group.changes.files],
    ['units', group.changes.units],
    ['packages', group.changes.packages],
    ['repositories', group.changes.repositories],
  ];
  for (const [kind, set] of kinds) {
    for (const verb of ['added', 'changed', 'removed'] as const) {
      if (set[verb].length > 0) lines.push(`      ${kind} ${verb}: ${names(set[verb])}`);
    }
  }
  for (const note of group.notes) lines.push(`      note: ${note}`);
  return lines;
}

/** "ETA  about 33s (…)", or what it would be once resumed. */
function etaLine(plan: PoolPlan): string {
  const eta = plan.eta!;
  if ('none' in eta) return `ETA  ${etaText(eta)}`;
  return plan.paused
    ? `ETA  none while paused; once resumed, ${etaText(eta)}`
    : `ETA  ${etaText(eta)} if applied now`;
}

function poolChangeLines(name: string, change: PoolChange): string[] {
  const lines = [
    change.created
      ? `  NodeConfigPool ${name} (line ${change.line}): a new pool`
      : `  NodeConfigPool ${name} (line ${change.line}): ${change.fields.length > 0 ? `changes spec.${change.fields.join(', spec.')}` : 'no change to its spec'}`,
  ];
  if (change.joining.length > 0) lines.push(`  nodes joining the pool: ${names(change.joining)}`);
  if (change.leaving.length > 0)
    lines.push(
      `  nodes leaving the pool (they keep what they run; no pool manages them unless another selects them): ${names(change.leaving)}`,
    );
  return lines;
}

function poolLines(plan: PoolPlan, p: Palette): string[] {
  const lines = [
    `${p.bold(`pool ${plan.pool}`)}  ${plan.strategy}${plan.paused ? `  ${p.yellow('PAUSED')}` : ''}`,
  ];
  if (plan.poolChange) lines.push(...poolChangeLines(plan.pool, plan.poolChange));
  for (const c of plan.configChanges) {
    const what = {
      added: 'added to the pool',
      replaced: 'replaces the version on the server',
      removed: 'leaves the pool (its new labels no longer match the configSelector)',
      'not selected': 'not selected by this pool',
    }[c.change];
    lines.push(`  NodeConfig ${c.name}: ${what}`);
  }
  if (plan.problems.length > 0) {
    lines.push(`  ${p.red('the pool would not render, so no node would get anything:')}`);
    for (const problem of plan.problems) lines.push(`    ${problem}`);
    return lines;
  }
  for (const warning of plan.warnings) lines.push(`  ${p.yellow('warning')}: ${warning}`);
  const revision = plan.revision!;
  if (plan.heldByPin) {
    const pin = plan.heldByPin;
    lines.push(
      `  ${p.yellow('held')}: a rollback pinned the pool to ${revisionText(pin.to, pin.toNumber)}, holding back ${revisionText(pin.from, pin.fromNumber)}; these NodeConfigs render ${revisionText(pin.from, pin.fromNumber)}, so the pin stays and no node changes (another configuration ends the pin)`,
    );
    return lines;
  }
  const joinersMove = plan.poolChange !== undefined && plan.groups.length > 0;
  if (plan.unchanged && !joinersMove) {
    if (plan.poolChange?.fields.includes('updateStrategy')) {
      lines.push(
        '  the new updateStrategy applies from the next rollout (every node runs the target already):',
      );
      const next = plan.nextRollout;
      if (next) {
        for (const note of next.notes) lines.push(`    ${note}`);
        if (next.eta && !('none' in next.eta))
          lines.push(
            `    the next rollout of every node, each restarting: ${etaText(next.eta).replace(/; done by [^)]*/, '')}`,
          );
      }
    }
    lines.push(
      `  no change: the target ${revisionText(plan.target?.name, plan.target?.number)} already has exactly this configuration${plan.endsPin ? '; the rollback pin ends' : ''}`,
    );
    return lines;
  }
  lines.push(
    plan.unchanged
      ? `  the target ${revisionText(revision.name, revision.number)} stays; the nodes joining the pool get it`
      : `  new ${revisionText(revision.name, revision.number)}${revision.existing ? ' (exists already: re-used)' : ''} from NodeConfigs ${plan.sources.join(', ')}; current target: ${revisionText(plan.target?.name, plan.target?.number)}`,
  );
  if (plan.endsPin)
    lines.push(
      `  ends the rollback pin: the pool stays on ${plan.endsPin.to} only while its NodeConfigs render ${plan.endsPin.from}`,
    );
  if (plan.groups.length > 0) lines.push('  changes:');
  for (const group of plan.groups) {
    const from = group.from
      ? `from ${revisionText(group.from, group.fromNumber)}${group.fromMissing ? ' (not found: planned as a fresh install)' : ''}`
      : 'on nodes without a revision';
    lines.push(
      `    ${from}, ${group.nodes} node${group.nodes === 1 ? '' : 's'}: ${actionColour(p, group.action)(group.action)} — ${group.summary}`,
    );
    lines.push(...changeLines(group));
  }
  for (const note of plan.strategyNotes) lines.push(`  ${note}`);
  if (plan.eta) lines.push(`  ${etaLine(plan)}`);

  const description = strategyDescription(plan.strategy);
  const column = description?.column;
  const header = ['NODE', 'ZONE', 'FROM', description?.updatesWhenAsked ? 'ACTION WHEN UPDATED' : 'ACTION'];
  if (column) header.unshift(column.header);
  const rows = [header];
  const labels = new Map(
    plan.batches.map((b) => [b.index, b.label ? `${b.index} ${b.label}` : String(b.index)]),
  );
  const ordered = [...plan.nodes].sort(
    (a, b) => (a.batch ?? Number.MAX_SAFE_INTEGER) - (b.batch ?? Number.MAX_SAFE_INTEGER),
  );
  const aside: string[] = [];
  for (const step of column?.shows === 'batch' ? ordered : plan.nodes) {
    if (step.note) {
      aside.push(`${step.name} (${step.note})`);
      continue;
    }
    const action = actionColour(p, step.action)(step.action);
    const row = [
      step.name,
      step.zone || '-',
      step.from ?? '-',
      step.prestage ? `${action} (${step.prestage})` : action,
    ];
    if (column?.shows === 'batch') row.unshift(labels.get(step.batch ?? 0) ?? '-');
    if (column?.shows === 'offset')
      row.unshift(step.offsetSeconds !== undefined ? `+${step.offsetSeconds}s` : '-');
    rows.push(row);
  }
  if (rows.length > 1) lines.push(...table(rows, '  '));
  else if (plan.nodes.length === 0) lines.push('  the pool has no nodes');
  if (aside.length > 0) lines.push(`  not in the batches: ${names(aside)}`);
  return lines;
}

export function renderPlanReport(report: PlanReport, options: { color: boolean; width: number }): string {
  const p = palette(options.color);
  const lines: string[] = [];
  lines.push(
    `${report.file}: ${[...report.configs.map((c) => `NodeConfig ${c.name} (line ${c.line})`), ...report.poolDocuments.map((c) => `NodeConfigPool ${c.name} (line ${c.line})`)].join(', ')}${report.skipped.length > 0 ? `; skipped ${report.skipped.join(', ')}` : ''}`,
  );
  for (const warning of report.warnings) lines.push(`${p.yellow('warning')}: ${warning}`);
  if (report.pools.length === 0) {
    lines.push('no NodeConfigPool selects these NodeConfigs: applying them changes no node');
  }
  if (report.order) lines.push('', ...orderLines(report.order, p));
  for (const plan of report.pools) lines.push('', ...poolLines(plan, p));
  if (report.unaffected.length > 0) lines.push('', `unaffected pools: ${report.unaffected.join(', ')}`);
  lines.push('', p.dim('nothing was written: this is a preview'));
  return `${lines.map((l) => (options.width > 0 ? truncate(l, options.width) : l)).join('\n')}\n`;
}

/** One pool's plan alone (the dashboard's "pending change"). */
export function renderPoolPlan(plan: PoolPlan, options: { color: boolean; width: number }): string {
  const lines = poolLines(plan, palette(options.color));
  return `${lines.map((l) => (options.width > 0 ? truncate(l, options.width) : l)).join('\n')}\n`;
}

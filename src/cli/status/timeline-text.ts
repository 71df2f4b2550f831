// `nodeherd status --timeline`: a pool's rollout timeline as text. One line per node, or per group of
// nodes on a large pool (dashboard/timeline.ts decides the rows), a character per time bucket for the
// state the row was in, and a legend. The dashboard draws the same rows as SVG.

import {
  currentCounts,
  dominantState,
  type GroupBy,
  intervalBuckets,
  lastState,
  type PoolTimeline,
  rowBuckets,
  STATE_LABELS,
  TIMELINE_STATES,
  type TimelineState,
  timelineRows,
} from '../dashboard/timeline.ts';
import { type Palette, palette, truncate } from '../text-table.ts';

/** Marks when the pool was paused, on a line of its own below the rows. */
const PAUSED_CHAR = '#';

export const STATE_CHARS: Record<TimelineState, string> = {
  waiting: '.',
  draining: 'd',
  applying: 'a',
  rebooting: 'b',
  notready: '!',
  soaking: 's',
  done: '=',
  failed: 'X',
  rolledback: 'r',
};

function colourOf(p: Palette, state: TimelineState): (text: string) => string {
  switch (state) {
    case 'failed':
      return p.red;
    case 'notready':
    case 'rebooting':
    case 'applying':
      return p.yellow;
    case 'done':
      return p.green;
    case 'waiting':
      return p.dim;
    default:
      return (text) => text;
  }
}

export interface TimelineTextOptions {
  color: boolean;
  /** Terminal width (0: no limit; the time axis then takes 60 characters). */
  width: number;
  groupBy?: GroupBy;
  maxRows?: number;
}

function duration(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s}s`;
  const m = Math.round(s / 60);
  return m < 120 ? `${m}m` : `${Math.round(m / 60)}h`;
}

function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

export function renderTimelineText(timeline: PoolTimeline, options: TimelineTextOptions): string {
  const p = palette(options.color);
  const rows = timelineRows(timeline.tracks, {
    ...(options.groupBy ? { groupBy: options.groupBy } : {}),
    maxRows: options.maxRows ?? 40,
  });
  const labelWidth = Math.min(28, Math.max(4, ...rows.map((r) => r.label.length)));
  const countWidth = 12;
  const axis =
    options.width > 0 ? Math.max(10, Math.min(120, options.width - labelWidth - countWidth - 4)) : 60;
  const tracks = new Map(timeline.tracks.map((t) => [t.name, t]));
  const end = Math.max(timeline.end, timeline.start + 1000);
  const lines: string[] = [];
  lines.push(
    `${p.bold(`pool ${timeline.pool}`)}  timeline of ${timeline.target ?? 'no target yet'}: ${clock(timeline.start)}–${clock(end)} UTC (${duration(end - timeline.start)}, ${duration((end - timeline.start) / axis)} a character)`,
  );
  if (rows.length === 0) lines.push(`  ${p.dim('no nodes in this pool')}`);
  for (const row of rows) {
    const cells = rowBuckets(row, tracks, timeline.start, end, axis);
    const bar = cells
      .map((cell) => {
        const state = dominantState(cell);
        return state ? colourOf(p, state)(STATE_CHARS[state]) : ' ';
      })
      .join('');
    const counts = currentCounts(row.nodes.map((n) => tracks.get(n)!).filter(Boolean));
    const done = (counts.done ?? 0) + (counts.rolledback ?? 0);
    const tail = row.group
      ? `${done}/${row.nodes.length} done${counts.failed ? `, ${counts.failed} failed` : ''}`
      : STATE_LABELS[lastState(tracks.get(row.nodes[0]!)!) ?? 'waiting'];
    lines.push(`  ${truncate(row.label, labelWidth).padEnd(labelWidth)} |${bar}| ${tail}`);
  }
  if (timeline.paused.length > 0) {
    const marks = intervalBuckets(timeline.paused, timeline.start, end, axis)
      .map((paused) => (paused ? PAUSED_CHAR : ' '))
      .join('');
    lines.push(`  ${'(pool paused)'.padEnd(labelWidth)} |${p.yellow(marks)}|`);
  }
  lines.push(
    `  legend: ${TIMELINE_STATES.map((s) => `${colourOf(p, s)(STATE_CHARS[s])} ${STATE_LABELS[s]}`).join('  ')}${timeline.paused.length > 0 ? `  ${p.yellow(PAUSED_CHAR)} pool paused` : ''}`,
  );
  return `${lines.map((line) => (options.width > 0 ? truncate(line, options.width) : line)).join('\n')}\n`;
}

// The dashboard page, in the browser: follows the server's snapshots (server-sent events), draws each
// pool (target, counts, conditions, revisions, history, Events, the plan of its pending change) and
// its rollout timeline as SVG, and sends the pause, resume and rollback buttons' requests. Plain DOM
// and SVG: the page is small enough that a framework would be most of its weight. Rows and buckets
// come from ../timeline.ts, the same model `nodeherd status --timeline` draws as text.

import type { DashboardSnapshot, PoolDashboard } from '../dashboard-model.ts';
import {
  currentCounts,
  dominantState,
  intervalBuckets,
  type NodeTrack,
  rowBuckets,
  STATE_LABELS,
  type StateCounts,
  TIMELINE_STATES,
  type TimelineState,
  timelineRows,
} from '../timeline.ts';
import { failuresBlock } from './failures.ts';

type PoolView = DashboardSnapshot['fleet']['pools'][number];

interface PoolUi {
  expanded: Set<string>;
  /** The time window shown; undefined: the whole rollout, following now. */
  zoom?: { from: number; to: number };
  plan?: { key: string; text: string };
  /** The long messages unfolded by a click (keys of message()). */
  messages: Set<string>;
}

const SVG = 'http://www.w3.org/2000/svg';
const LABEL_WIDTH = 190;
/** A node's row; a group's row is taller, so the shares of its states can be told apart. */
const ROW_HEIGHT = 16;
const GROUP_ROW_HEIGHT = 32;
const MAX_ROWS = 40;
/** Height of a node row's bar and of a group row's stack. */
const BAR = ROW_HEIGHT - 4;
const GROUP_BAR = GROUP_ROW_HEIGHT - 4;

const ui = new Map<string, PoolUi>();
let latest: DashboardSnapshot | undefined;

function uiOf(pool: string): PoolUi {
  let state = ui.get(pool);
  if (!state) {
    state = { expanded: new Set(), messages: new Set() };
    ui.set(pool, state);
  }
  return state;
}

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
}

function svg(tag: string, attrs: Record<string, string | number>): SVGElement {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

/**
 * A group's bucket as whole-pixel heights per state that fill its stack exactly (largest remainders),
 * so neighbouring buckets line up; a failed or NotReady node keeps at least one pixel.
 */
function groupShape(cell: StateCounts): number[] {
  const counts = TIMELINE_STATES.map((s) => cell[s] ?? 0);
  const total = counts.reduce((a, b) => a + b, 0);
  if (total === 0) return counts;
  const exact = counts.map((n) => (GROUP_BAR * n) / total);
  const heights = exact.map(Math.floor);
  const order = exact.map((_, i) => i).sort((a, b) => exact[b]! - heights[b]! - (exact[a]! - heights[a]!));
  for (let left = GROUP_BAR - heights.reduce((a, b) => a + b, 0), k = 0; left > 0; left--, k++) {
    heights[order[k % order.length]!]!++;
  }
  TIMELINE_STATES.forEach((s, i) => {
    if ((s === 'failed' || s === 'notready') && counts[i]! > 0 && heights[i] === 0) {
      const largest = heights.indexOf(Math.max(...heights));
      heights[largest]!--;
      heights[i] = 1;
    }
  });
  return heights;
}

function colour(state: TimelineState): string {
  return `var(--${state})`;
}

/** hh:mm:ss, with tenths when the window is short enough that seconds repeat. */
function clock(ms: number, spanMs = Number.POSITIVE_INFINITY): string {
  return new Date(ms).toISOString().slice(11, spanMs < 20_000 ? 21 : 19);
}

function notice(text: string, error = false): void {
  const box = document.getElementById('notice')!;
  box.textContent = text;
  box.className = error ? 'error' : '';
  box.style.display = 'block';
  setTimeout(() => {
    if (box.textContent === text) box.style.display = 'none';
  }, 6000);
}

async function act(pool: string, action: string): Promise<void> {
  if (action === 'rollback' && !confirm(`Roll pool ${pool} back to the revision before its target?`)) return;
  const response = await fetch(`api/pools/${encodeURIComponent(pool)}/${action}`, {
    method: 'POST',
    // The dashboard's cookie (SameSite=Strict, HttpOnly) is the credential; fetch sends it same-origin.
    headers: { 'Content-Type': 'application/json' },
    body: '{}',
  });
  const body = (await response.json().catch(() => ({}))) as { message?: string; error?: string };
  notice(body.message ?? body.error ?? `${response.status}`, !response.ok);
}

function table(head: string[], rows: (string | Node)[][]): HTMLTableElement {
  return el(
    'table',
    {},
    el('thead', {}, el('tr', {}, ...head.map((h) => el('th', {}, h)))),
    el('tbody', {}, ...rows.map((r) => el('tr', {}, ...r.map((c) => el('td', {}, c))))),
  );
}

/** A message of more lines than one, or longer than this, shows its first two lines until clicked. */
const CLIP_CHARACTERS = 160;

/**
 * A message cell: a failure's message can run to a journal excerpt of dozens of lines, which would
 * push Events and the plan off the screen. Clipped to two lines (CSS line clamp), it unfolds in place
 * on a click (or Enter) and folds again; the state survives the page's redraws. `key` names it.
 */
function message(pool: string, key: string, text: string): HTMLElement {
  if (text.length <= CLIP_CHARACTERS && !text.includes('\n')) return el('div', { class: 'message' }, text);
  const node = el('div', { role: 'button', tabindex: '0', 'data-message': key }, text);
  setFolded(node, !uiOf(pool).messages.has(key));
  return node;
}

function setFolded(node: Element, folded: boolean): void {
  node.setAttribute('class', folded ? 'message clip' : 'message');
  node.setAttribute('aria-expanded', String(!folded));
  node.setAttribute('title', folded ? 'click to show the whole message' : 'click to fold the message');
}

/** Unfolds or folds a clipped message; true when `target` is in one. */
function toggleMessage(target: Element): boolean {
  const node = target.closest('[data-message]');
  const pool = node?.closest('[data-pool]')?.getAttribute('data-pool');
  const key = node?.getAttribute('data-message');
  if (!node || !pool || !key) return false;
  const open = uiOf(pool).messages;
  if (open.has(key)) open.delete(key);
  else open.add(key);
  setFolded(node, !open.has(key));
  return true;
}

function conditionBadge(c: PoolView['conditions'][number]): HTMLElement {
  const bad =
    (['Degraded', 'RolledBack', 'RenderDegraded'].includes(c.type) && c.status === 'True') ||
    (c.type === 'HealthGate' && c.status === 'False');
  const good = (c.type === 'Complete' || c.type === 'HealthGate') && c.status === 'True';
  return el(
    'span',
    { class: `badge${bad ? ' bad' : good ? ' good' : ''}`, title: `${c.reason ?? ''} ${c.message ?? ''}` },
    `${c.type}=${c.status}`,
  );
}

function head(view: PoolView): HTMLElement {
  const target = view.target
    ? `target ${view.target.name}${view.target.number !== undefined ? ` (revision ${view.target.number})` : ''}`
    : 'no target yet';
  const button = (action: string, label: string, disabled: boolean) => {
    const b = el('button', { 'data-action': action, 'data-pool': view.name }, label);
    b.disabled = disabled;
    return b;
  };
  return el(
    'div',
    { class: 'pool-head' },
    el('h2', {}, `pool ${view.name}`),
    el('span', {}, `${view.strategy}${view.strategyDetail ? ` (${view.strategyDetail})` : ''}`),
    el('span', {}, target),
    ...(view.paused ? [el('span', { class: 'badge paused' }, 'PAUSED')] : []),
    el(
      'span',
      { class: 'actions' },
      button('pause', 'Pause', view.paused),
      button('resume', 'Resume', !view.paused),
      button('rollback', 'Roll back', false),
    ),
  );
}

function counts(view: PoolView): HTMLElement {
  const c = view.counts;
  const item = (label: string, n: number) => el('span', {}, `${label} `, el('b', {}, String(n)));
  return el(
    'div',
    { class: 'counts' },
    item('nodes', view.nodes),
    item('updated', c.updated),
    item('ready', c.ready),
    item('applying', c.applying),
    item('waiting', c.waiting),
    item('failed', c.failed),
    item('unavailable', c.unavailable),
    // Nodes whose OS asks for a reboot (rebooted as a rollout with reboots.osRequested.policy Reboot).
    ...((view.rebootNodes?.length ?? 0) > 0 ? [item('waiting for a reboot', view.rebootNodes.length)] : []),
    ...view.conditions.map(conditionBadge),
  );
}

function timeline(pool: PoolDashboard, width: number): HTMLElement {
  const state = uiOf(pool.name);
  const t = pool.timeline;
  const end = Math.max(t.end, t.start + 1000);
  const from = state.zoom?.from ?? t.start;
  const to = state.zoom?.to ?? end;
  const rows = timelineRows(t.tracks, { maxRows: MAX_ROWS, expanded: state.expanded });
  const tracks = new Map<string, NodeTrack>(t.tracks.map((track) => [track.name, track]));
  const axisWidth = Math.max(100, width - LABEL_WIDTH - 10);
  const buckets = Math.max(10, Math.floor(axisWidth / 3));
  const bucketWidth = axisWidth / buckets;
  const tops: number[] = [];
  let rowsHeight = 0;
  for (const row of rows) {
    tops.push(rowsHeight);
    rowsHeight += row.group ? GROUP_ROW_HEIGHT : ROW_HEIGHT;
  }
  const height = rowsHeight + 22;
  const root = svg('svg', {
    viewBox: `0 0 ${width} ${height}`,
    height,
    role: 'img',
    // Whole pixels: no anti-aliased seams between the runs of a row.
    'shape-rendering': 'crispEdges',
    'aria-label': `rollout timeline of pool ${pool.name}`,
  }) as SVGSVGElement;
  rows.forEach((row, r) => {
    const y = tops[r]!;
    const rowHeight = row.group ? GROUP_ROW_HEIGHT : ROW_HEIGHT;
    const label = svg('text', {
      x: 4,
      y: y + rowHeight / 2 + 4,
      class: `label${row.group ? ' group' : ''}`,
      'data-row': row.key,
    });
    const now = currentCounts(row.nodes.map((n) => tracks.get(n)!).filter(Boolean));
    label.textContent = row.group
      ? `${state.expanded.has(row.key) ? '▾' : '▸'} ${row.label}`
      : `${row.label}${now.failed ? ' ✕' : ''}`;
    if (row.group) label.setAttribute('data-group', row.key);
    root.append(label);
    const cells = rowBuckets(row, tracks, from, to, buckets);
    // Buckets that look the same are drawn as one rect: a node row by its state, a group row by the
    // whole-pixel height of each state's share (so 1,000 nodes cost a few hundred rects per row).
    const keys = cells.map((cell) => (row.group ? groupShape(cell).join(',') : (dominantState(cell) ?? '')));
    let runStart = 0;
    const drawRun = (end: number) => {
      const cell = cells[runStart]!;
      if (keys[runStart] === '' || Object.keys(cell).length === 0) return;
      const x = LABEL_WIDTH + runStart * bucketWidth;
      const w = (end - runStart) * bucketWidth;
      if (!row.group) {
        const s = dominantState(cell)!;
        const rect = svg('rect', { x, y: y + 2, width: w, height: BAR, fill: colour(s) });
        rect.append(Object.assign(svg('title', {}), { textContent: `${row.label}: ${STATE_LABELS[s]}` }));
        root.append(rect);
        return;
      }
      // A group: the share of its nodes in each state, stacked.
      let offset = 0;
      groupShape(cell).forEach((h, index) => {
        if (h === 0) return;
        const s = TIMELINE_STATES[index]!;
        const rect = svg('rect', { x, y: y + 2 + offset, width: w, height: h, fill: colour(s) });
        rect.append(
          Object.assign(svg('title', {}), {
            textContent: `${row.label}: ${cell[s] ?? 0} ${STATE_LABELS[s]}`,
          }),
        );
        root.append(rect);
        offset += h;
      });
    };
    for (let i = 1; i <= cells.length; i++) {
      if (i === cells.length || keys[i] !== keys[runStart]) {
        drawRun(i);
        runStart = i;
      }
    }
  });
  // When the pool was paused: a band over every row.
  const pausedCells = intervalBuckets(t.paused ?? [], from, to, buckets);
  for (let i = 0; i < pausedCells.length; i++) {
    if (!pausedCells[i]) continue;
    let j = i;
    while (j < pausedCells.length && pausedCells[j]) j++;
    const band = svg('rect', {
      class: 'paused',
      x: LABEL_WIDTH + i * bucketWidth,
      y: 0,
      width: (j - i) * bucketWidth,
      height: rowsHeight,
      fill: 'var(--paused)',
    });
    band.append(Object.assign(svg('title', {}), { textContent: `pool ${pool.name} paused` }));
    root.append(band);
    i = j;
  }
  const axisY = rowsHeight + 14;
  for (let k = 0; k <= 4; k++) {
    const x = LABEL_WIDTH + (axisWidth * k) / 4;
    const tick = svg('text', {
      x,
      y: axisY,
      class: 'axis',
      'text-anchor': k === 0 ? 'start' : k === 4 ? 'end' : 'middle',
    });
    tick.textContent = clock(from + ((to - from) * k) / 4, to - from);
    root.append(tick);
  }
  // Drag across the timeline to zoom into that time.
  let dragFrom: number | undefined;
  const timeAt = (event: MouseEvent) => {
    const box = root.getBoundingClientRect();
    const x = ((event.clientX - box.left) / box.width) * width - LABEL_WIDTH;
    return from + (Math.min(Math.max(x, 0), axisWidth) / axisWidth) * (to - from);
  };
  root.addEventListener('mousedown', (event) => {
    dragFrom = timeAt(event);
  });
  root.addEventListener('mouseup', (event) => {
    if (dragFrom === undefined) return;
    const at = timeAt(event);
    if (Math.abs(at - dragFrom) > (to - from) / 50) {
      state.zoom = { from: Math.min(at, dragFrom), to: Math.max(at, dragFrom) };
      render();
    }
    dragFrom = undefined;
  });
  const span = (to - from) / 1000;
  const tools = el(
    'div',
    { class: 'timeline-tools' },
    el('span', {}, `timeline ${clock(from)}–${clock(to)} UTC (${Math.round(span)}s)`),
    el('button', { 'data-zoom': 'in', 'data-pool': pool.name }, 'Zoom in'),
    el('button', { 'data-zoom': 'out', 'data-pool': pool.name }, 'Zoom out'),
    el('button', { 'data-zoom': 'all', 'data-pool': pool.name }, 'Whole rollout'),
    el(
      'span',
      {},
      rows.some((r) => r.group)
        ? 'click a group to expand it; drag to zoom'
        : 'drag across the timeline to zoom',
    ),
  );
  const legend = el(
    'div',
    { class: 'legend' },
    ...TIMELINE_STATES.map((s) =>
      el('span', {}, el('i', { style: `background:${colour(s)}` }), STATE_LABELS[s]),
    ),
    el('span', {}, el('i', { style: 'background:var(--paused)' }), 'pool paused'),
  );
  return el('div', { class: 'timeline', 'data-pool': pool.name }, tools, root as unknown as Node, legend);
}

function details(view: PoolView, pool: PoolDashboard): HTMLElement {
  const name = pool.name;
  const revisions = table(
    ['revision', 'number', 'nodes'],
    pool.revisions.map((r) => {
      const counted = view.revisions.find((c) => c.name === r.name);
      return [
        `${r.name}${counted?.target ? ' (target)' : ''}`,
        String(r.number),
        String(counted?.nodes ?? 0),
      ];
    }),
  );
  const history = table(
    ['revision', 'result', 'started', 'finished', 'message'],
    [...pool.history]
      .reverse()
      .map((h) => [
        String(h.revision),
        h.result,
        el('span', { class: 'time' }, h.startedAt),
        el('span', { class: 'time' }, h.finishedAt ?? ''),
        message(name, `history:${h.revision}:${h.startedAt}`, h.message ?? ''),
      ]),
  );
  const conditions = table(
    ['condition', 'status', 'reason', 'message'],
    view.conditions.map((c) => [
      c.type,
      c.status,
      c.reason ?? '',
      message(name, `condition:${c.type}`, c.message ?? ''),
    ]),
  );
  const events = table(
    ['time', 'node', 'reason', 'message'],
    pool.events.map((e) => [
      e.at.slice(11, 19),
      e.node,
      e.reason,
      message(name, `event:${e.at}:${e.node}:${e.reason}`, e.message),
    ]),
  );
  const plan = el('pre', { class: 'plan', 'data-plan': name }, uiOf(name).plan?.text ?? 'reading…');
  // Each list scrolls in a box of its own, so a long history (or many revisions) never pushes the
  // Events and the plan below the fold.
  const part = (section: string, title: string, body: HTMLElement, wide = false) =>
    el(
      'div',
      { 'data-section': section, ...(wide ? { class: 'wide' } : {}) },
      el('h3', {}, title),
      el('div', { class: 'scroll' }, body),
    );
  return el(
    'div',
    { class: 'cols' },
    part('revisions', 'Revisions', revisions),
    part('history', 'History', history),
    part('conditions', 'Conditions', conditions),
    part('events', 'Events', pool.events.length ? events : el('span', { class: 'muted' }, 'none'), true),
    el('div', { class: 'wide', 'data-section': 'plan' }, el('h3', {}, 'Pending change (plan)'), plan),
  );
}

/** Fetches the plan of a pool's pending change again when its target or spec changed. */
function refreshPlan(pool: PoolDashboard, view: PoolView): void {
  const state = uiOf(pool.name);
  const key = `${view.target?.name ?? ''}/${pool.generation ?? ''}/${pool.revisions.length}`;
  if (state.plan?.key === key) return;
  state.plan = { key, text: state.plan?.text ?? 'reading…' };
  fetch(`api/pools/${encodeURIComponent(pool.name)}/plan`)
    .then((r) => r.json())
    .then((body: { text?: string; error?: string; unchanged?: boolean }) => {
      const text = body.error
        ? `cannot plan: ${body.error}`
        : `${body.unchanged ? 'No pending change: the NodeConfigs render to the target revision.\n\n' : ''}${body.text ?? ''}`;
      state.plan = { key, text };
      const pre = document.querySelector(`pre[data-plan="${CSS.escape(pool.name)}"]`);
      if (pre) pre.textContent = text;
    })
    .catch((error: Error) => {
      state.plan = { key: '', text: `cannot plan: ${error.message}` };
    });
}

function render(): void {
  const snapshot = latest;
  if (!snapshot) return;
  document.getElementById('server')!.textContent = `${snapshot.server} · ${snapshot.observedAt}`;
  const main = document.getElementById('pools')!;
  const width = Math.max(500, main.clientWidth - 40);
  const sections: HTMLElement[] = [];
  for (const pool of snapshot.pools) {
    const view = snapshot.fleet.pools.find((p) => p.name === pool.name);
    if (!view) continue;
    refreshPlan(pool, view);
    sections.push(
      el(
        'section',
        { class: 'pool', 'data-pool': pool.name },
        head(view),
        counts(view),
        timeline(pool, width),
        ...[failuresBlock(pool)].filter((block): block is HTMLElement => block !== undefined),
        details(view, pool),
      ),
    );
  }
  if (sections.length === 0) sections.push(el('p', { class: 'muted' }, 'no NodeConfigPools on this cluster'));
  main.replaceChildren(...sections);
}

document.addEventListener('click', (event) => {
  const target = event.target as Element;
  if (toggleMessage(target)) return;
  const button = target.closest('button');
  const pool = button?.getAttribute('data-pool') ?? target.closest('[data-pool]')?.getAttribute('data-pool');
  if (button?.dataset.action && pool) {
    button.disabled = true;
    act(pool, button.dataset.action).catch((error: Error) => notice(error.message, true));
    return;
  }
  if (button?.dataset.zoom && pool && latest) {
    const state = uiOf(pool);
    const t = latest.pools.find((p) => p.name === pool)?.timeline;
    if (!t) return;
    const from = state.zoom?.from ?? t.start;
    const to = state.zoom?.to ?? t.end;
    const mid = (from + to) / 2;
    const half = (to - from) / 2;
    if (button.dataset.zoom === 'all') delete state.zoom;
    else if (button.dataset.zoom === 'in') state.zoom = { from: mid - half / 2, to: mid + half / 2 };
    else if (from - half <= t.start && to + half >= t.end) delete state.zoom;
    else state.zoom = { from: Math.max(t.start, from - half), to: Math.min(t.end, to + half) };
    render();
    return;
  }
  const group = target.getAttribute('data-group');
  if (group && pool) {
    const state = uiOf(pool);
    if (state.expanded.has(group)) state.expanded.delete(group);
    else state.expanded.add(group);
    render();
  }
});

document.addEventListener('keydown', (event) => {
  if ((event.key === 'Enter' || event.key === ' ') && toggleMessage(event.target as Element))
    event.preventDefault();
});

function connect(): void {
  const status = document.getElementById('connection')!;
  const source = new EventSource('api/events');
  source.addEventListener('snapshot', (event) => {
    latest = JSON.parse((event as MessageEvent<string>).data) as DashboardSnapshot;
    status.textContent = 'live';
    status.className = 'meta live';
    render();
  });
  source.addEventListener('error', () => {
    status.textContent = 'reconnecting…';
    status.className = 'meta down';
  });
}

window.addEventListener('resize', () => render());
connect();

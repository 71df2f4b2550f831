// The dashboard's "why it failed" block (issue 36): one line per failed node (the agent's reason and
// the failing program's own words), unfolding to the excerpt its agent sent (the unit's journal lines,
// the probe's or command's output; values of files from Secrets masked by the agent).

import type { PoolDashboard } from '../dashboard-model.ts';

function el(tag: string, attrs: Record<string, string>, ...children: (Node | string)[]): HTMLElement {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
}

/** The excerpts unfolded, by pool and node: the page is redrawn on every snapshot, they stay open. */
const unfolded = new Set<string>();

export function failuresBlock(pool: PoolDashboard): HTMLElement | undefined {
  if (!pool.failures || pool.failures.length === 0) return undefined;
  const items = pool.failures.map((f) => {
    const key = `${pool.name}/${f.node}`;
    const details = el(
      'details',
      { class: 'failure', 'data-node': f.node, ...(unfolded.has(key) ? { open: '' } : {}) },
      el('summary', {}, el('b', {}, f.node), f.current ? ' ' : ' (rolled back) ', f.summary),
      el('pre', { class: 'excerpt' }, f.excerpt || 'the agent sent no journal lines or output'),
    );
    details.addEventListener('toggle', () => {
      if ((details as HTMLDetailsElement).open) unfolded.add(key);
      else unfolded.delete(key);
    });
    return details;
  });
  return el('div', { class: 'failures' }, el('h3', {}, 'Why it failed'), ...items);
}

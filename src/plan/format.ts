// Multi-line rendering of a plan for people (the CLI's `plan`, the agent's log).

import type { Action, Plan } from './types.ts';

/** "install-package kubelet=1.31.2", "restart-unit kubelet.service (only if running)". */
export function describeAction(action: Action): string {
  const target = action.id.includes(':') ? action.id.slice(action.id.indexOf(':') + 1) : '';
  let text = target ? `${action.kind} ${target}` : action.kind;
  if (action.kind === 'install-package' && action.version !== undefined) text += `=${action.version}`;
  if ((action.kind === 'restart-unit' || action.kind === 'reload-unit') && action.ifRunning)
    text += ' (only if running)';
  return text;
}

export function formatPlan(plan: Plan): string {
  const lines = [plan.summary];
  const width = String(plan.actions.length).length;
  plan.actions.forEach((action, i) => {
    lines.push(`  ${String(i + 1).padStart(width)}. ${describeAction(action)} — ${action.reason}`);
  });
  for (const note of plan.notes) lines.push(`  note: ${note}`);
  return lines.join('\n');
}

// A local rollback restores the files and units of the last applied revision; plan() restarts a unit
// whose state nodeherd does not manage (kubelet, with nodeherd's drop-ins only) only if it runs
// (try-restart). But the failed apply may be what killed it: then the rollback would leave it dead and
// the node NotReady. So the units the failed apply restarted are restarted unconditionally.

import type { Action, Plan } from '../../plan/types.ts';

/** Units the plan restarts (the failed apply's plan: what it restarted or was about to). */
export function unitsRestartedBy(steps: Plan): string[] {
  return steps.actions.flatMap((a) => (a.kind === 'restart-unit' ? [a.name] : []));
}

/** The rollback plan with `units` restarted whether or not they run; missing restarts are appended. */
export function restartAfterRollback(rollback: Plan, units: readonly string[]): Plan {
  if (units.length === 0) return rollback;
  const wanted = new Set(units);
  const restarted = new Set<string>();
  const actions: Action[] = rollback.actions.map((action) => {
    if (action.kind !== 'restart-unit' || !wanted.has(action.name)) return action;
    restarted.add(action.name);
    return action.ifRunning ? { ...action, ifRunning: false } : action;
  });
  const ids = new Set(actions.map((a) => a.id));
  for (const name of units) {
    if (restarted.has(name)) continue;
    let id = `restart-unit:${name}`;
    for (let n = 2; ids.has(id); n++) id = `restart-unit:${name}#${n}`;
    ids.add(id);
    actions.push({
      kind: 'restart-unit',
      id,
      name,
      ifRunning: false,
      reason: 'restarted by the failed apply; restarted again with the restored config',
    });
  }
  return { ...rollback, actions };
}

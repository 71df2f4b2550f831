// One-line human summary of a plan, e.g.
// "2 files changed, 1 unit restarted (kubelet.service), 1 package installed (htop) — disruption: Restart".

import type { Action, ActionKind, ChangeSet, Changes, Disruption } from './types.ts';

const MAX_NAMES = 3;

function counted(n: number, noun: string, verb: string, names?: string[]): string {
  const plural = n === 1 ? noun : noun === 'repository' ? 'repositories' : `${noun}s`;
  let text = `${n} ${plural} ${verb}`;
  if (names && names.length > 0) {
    const shown = names.slice(0, MAX_NAMES).join(', ');
    text += names.length > MAX_NAMES ? ` (${shown}, +${names.length - MAX_NAMES} more)` : ` (${shown})`;
  }
  return text;
}

function changeParts(set: ChangeSet, noun: string): string[] {
  const parts: string[] = [];
  if (set.added.length > 0) parts.push(counted(set.added.length, noun, 'added'));
  if (set.changed.length > 0) parts.push(counted(set.changed.length, noun, 'changed'));
  if (set.removed.length > 0) parts.push(counted(set.removed.length, noun, 'removed'));
  return parts;
}

function namesOf(actions: Action[], kind: ActionKind): string[] {
  return actions.flatMap((a) => (a.kind === kind && 'name' in a ? [a.name] : []));
}

/** The actions counted by name, in the order the summary gives them: kind, noun, verb. */
const NAMED_ACTIONS: [ActionKind, string, string][] = [
  ['restart-unit', 'unit', 'restarted'],
  ['reload-unit', 'unit', 'reloaded'],
  ['start-unit', 'unit', 'started'],
  ['stop-unit', 'unit', 'stopped'],
  ['install-package', 'package', 'installed'],
  ['remove-package', 'package', 'removed'],
  ['release-package', 'package', 'released'],
];

export function summarize(changes: Changes, actions: Action[], disruption: Disruption): string {
  const parts = [...changeParts(changes.files, 'file'), ...changeParts(changes.units, 'unit')];
  for (const [kind, noun, verb] of NAMED_ACTIONS) {
    const names = namesOf(actions, kind);
    if (names.length > 0) parts.push(counted(names.length, noun, verb, names));
  }
  parts.push(...changeParts(changes.repositories, 'repository'));
  if (actions.some((a) => a.kind === 'reboot')) parts.push('reboot');
  return `${parts.length > 0 ? parts.join(', ') : 'no changes'} — disruption: ${disruption}`;
}

// When a pool begins a reboot round (docs/controller.md, "Reboot rounds"): its policy reboots the
// nodes whose OS asks for a reboot (spec.reboots.osRequested.policy Reboot), its last rollout is
// complete on the target, it is not paused, and some node asks. The round is a rollout of the same
// revision in status.history (message "reboot round"), so its episode, its canary, its failures, its
// completion and its duration are those of any rollout. Pure.

import type { RolloutRecord } from '../revisions/rollout-history.ts';
import { isRolloutOpen } from '../revisions/rollout-history.ts';
import { rebootPending } from '../rollout/node-verdict.ts';
import type { NodeSnapshot, NumberedRevision } from '../rollout/types.ts';

export interface RebootRoundInput {
  osReboots: boolean;
  paused: boolean;
  target: NumberedRevision;
  lastComplete?: NumberedRevision;
  history: readonly RolloutRecord[];
  nodes: readonly NodeSnapshot[];
}

/** The nodes that wait for a reboot (the OS asks, none requested yet), in name order. */
export function nodesWaitingForReboot(nodes: readonly NodeSnapshot[]): string[] {
  return nodes
    .filter((n) => n.rebootWanted === true && !rebootPending(n) && !n.deleting)
    .map((n) => n.name)
    .sort();
}

/** The nodes a reboot round begins with, or undefined when none begins now. */
export function rebootRoundToBegin(input: RebootRoundInput): string[] | undefined {
  if (!input.osReboots || input.paused) return undefined;
  if (input.lastComplete?.name !== input.target.name) return undefined;
  if (isRolloutOpen(input.history, input.target.name)) return undefined;
  const waiting = nodesWaitingForReboot(input.nodes);
  return waiting.length > 0 ? waiting : undefined;
}

export function rebootRoundMessage(waiting: readonly string[]): string {
  const shown = waiting.slice(0, 8).join(', ');
  const more = waiting.length > 8 ? ` and ${waiting.length - 8} more` : '';
  return `reboot round: the OS asks ${shown}${more} for a reboot`;
}

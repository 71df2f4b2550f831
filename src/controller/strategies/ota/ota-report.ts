// OTA's part of the report: how many nodes have the update on offer (every node with a revision but
// not the target: the controller writes the offer; those applying or failed it count as such), and
// whether any owner is pulling it. A pause stops nothing: the owners pull.

import { plural } from '../../plural.ts';
import { idleOff, type StrategyReporter } from '../strategy-status.ts';

export const otaReport: StrategyReporter = {
  ignoresPause: true,
  notes(input, report) {
    const T = input.target.name;
    const updateAvailable = input.nodes.filter((n) => n.current !== undefined && idleOff(n, T)).length;
    report.updateAvailable = updateAvailable;
    const notes = [
      `${plural(updateAvailable, 'node')} ${updateAvailable === 1 ? 'has' : 'have'} an update available`,
    ];
    if (report.applying > 0) notes.push(`${plural(report.applying, 'node')} applying`);
    else {
      report.progressing.status = 'False';
      report.progressing.reason = 'WaitingForNodeOwners';
    }
    report.complete.reason = 'UpdatesAvailable';
    return notes;
  },
};

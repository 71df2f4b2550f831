// Serial as the CLI describes it: its slots; the plan is waves of at most `slots` nodes, though which
// agent takes a free slot first is not fixed.

import { plural } from '../../plural.ts';
import type { PlannedBatch, StrategyDescription } from '../strategy-description.ts';
import { serialSettingsOf } from './serial-settings.ts';

export const serialDescription: StrategyDescription = {
  detail(strategy) {
    return plural(serialSettingsOf(strategy).slots, 'slot');
  },

  plan({ spec, moving }) {
    const { slots } = serialSettingsOf(spec.updateStrategy);
    const notes = [
      `agents take turns through ${plural(slots, 'slot')}: at most ${slots} at once, while the controller is down too; who takes a free slot first is not fixed, so the waves below show how many at once, not who goes first`,
    ];
    const batches: PlannedBatch[] = [];
    for (let i = 0; i < moving.length; i += slots) {
      const wave = moving.slice(i, i + slots);
      for (const s of wave) s.batch = batches.length + 1;
      batches.push({ index: batches.length + 1, label: '', nodes: wave.map((s) => s.name) });
    }
    return { batches, notes };
  },

  column: { header: 'WAVE', shows: 'batch' },
};

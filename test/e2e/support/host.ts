// When the end-to-end suite runs. The container machinery itself is production code (src/nspawn,
// also behind `nodeherd up --nspawn`); the helpers are re-exported for the benchmarks that import
// them from here.

import { nspawnUnavailableReason } from '../../../src/nspawn/host.ts';

export * from '../../../src/nspawn/host.ts';

/** Why the suite cannot run here, or undefined when it can. */
export function e2eSkipReason(): string | undefined {
  if (process.env.NODEHERD_E2E === '0') return 'end-to-end tests disabled (NODEHERD_E2E=0)';
  const missing = nspawnUnavailableReason();
  return missing ? `end-to-end tests need ${missing}` : undefined;
}

// Quick runs: `npm run bench -- --quick` sets BENCH_QUICK=1 and every bench that can uses smaller
// sizes and shorter windows (a smoke run of the whole set, not figures to quote).

export const QUICK_ENV = 'BENCH_QUICK';

export const quick = process.env[QUICK_ENV] === '1';

/** A number from `envName` when set, else the quick or the full default. */
export function benchNumber(envName: string, full: number, small: number): number {
  const text = process.env[envName];
  if (text !== undefined && text !== '') {
    const value = Number(text);
    if (!Number.isFinite(value))
      throw new Error(`${envName}: expected a number, got ${JSON.stringify(text)}`);
    return value;
  }
  return quick ? small : full;
}

/** A string setting from `envName` when set, else the quick or the full default. */
export function benchSetting(envName: string, full: string, small: string): string {
  const text = process.env[envName];
  return text !== undefined && text !== '' ? text : quick ? small : full;
}

// Machine-readable headline figures of a benchmark. Each bench keeps printing its figures for humans
// and also calls reportFigure for the ones that matter; bench/run-all.ts collects the BENCH_FIGURE
// lines from the children's output and writes bench/results.md from them.

/** The prefix of a figure line on stdout; the rest of the line is the figure as JSON. */
export const FIGURE_PREFIX = 'BENCH_FIGURE ';

export interface FigureTarget {
  op: '<=' | '>=';
  value: number;
}

export interface Figure {
  /** The benchmark, e.g. `apiserver` (the file name without .bench.ts). */
  bench: string;
  /** What was measured, e.g. `Node creates, 4 connections`. */
  name: string;
  value: number;
  unit: string;
  target?: FigureTarget;
  /** Conditions the figure holds under (sizes, scale), shown next to it. */
  note?: string;
}

/** Whether a figure meets its target; undefined without one (or when the value is not a number). */
export function targetMet(figure: Pick<Figure, 'value' | 'target'>): boolean | undefined {
  if (!figure.target || !Number.isFinite(figure.value)) return undefined;
  return figure.target.op === '<='
    ? figure.value <= figure.target.value
    : figure.value >= figure.target.value;
}

/** Prints one BENCH_FIGURE line. A value that is not a finite number is printed as null. */
export function reportFigure(figure: Figure): void {
  const value = Number.isFinite(figure.value) ? figure.value : null;
  process.stdout.write(`${FIGURE_PREFIX}${JSON.stringify({ ...figure, value })}\n`);
}

/** Parses one output line into a figure, or undefined if it is not a BENCH_FIGURE line. */
export function parseFigure(line: string): Figure | undefined {
  if (!line.startsWith(FIGURE_PREFIX)) return undefined;
  try {
    const parsed = JSON.parse(line.slice(FIGURE_PREFIX.length)) as Figure & { value: number | null };
    if (typeof parsed.bench !== 'string' || typeof parsed.name !== 'string') return undefined;
    return { ...parsed, value: parsed.value ?? Number.NaN };
  } catch {
    return undefined;
  }
}

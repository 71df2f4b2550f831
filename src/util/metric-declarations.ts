// What a Prometheus metric is, apart from the library that exports it: its type, name, help text,
// label names and (histograms) buckets. The agent exports through its own small registry
// (agent/metrics/prometheus-text.ts: prom-client would cost it ~14 MB of RSS) and the controller
// through prom-client; both list their metrics as a table of these declarations, keyed by the
// property that holds the metric, and build the table with their library.

export type MetricType = 'counter' | 'gauge' | 'histogram';

export interface MetricDeclaration<T extends MetricType = MetricType, L extends string = string> {
  readonly type: T;
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  /** Histograms only. */
  readonly buckets?: readonly number[];
}

/** Counters and gauges are declared alike: one value per label set, no buckets. */
function sampleDeclaration<T extends 'counter' | 'gauge'>(type: T) {
  return <L extends string = never>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
  ): MetricDeclaration<T, L> => ({ type, name, help, labelNames });
}

export const counter = sampleDeclaration('counter');
export const gauge = sampleDeclaration('gauge');

export function histogram<L extends string = never>(
  name: string,
  help: string,
  buckets: readonly number[],
  labelNames: readonly L[] = [],
): MetricDeclaration<'histogram', L> {
  return { type: 'histogram', name, help, labelNames, buckets };
}

/**
 * Builds every declaration of `table` with `build`, keyed like the table and in its order (the order
 * of the exposition). Each library's caller narrows the result to its own metric classes.
 */
export function buildAll<D extends Record<string, MetricDeclaration>, M>(
  table: D,
  build: (declaration: D[keyof D]) => M,
): { [K in keyof D]: M } {
  return Object.fromEntries(
    Object.entries(table).map(([key, declaration]) => [key, build(declaration as D[keyof D])]),
  ) as { [K in keyof D]: M };
}

/**
 * A base class whose instances carry, as their own properties, what `build` returns: a metrics class
 * declares its metrics in a table and still exposes each as a typed field (`metrics.rollbacks`).
 */
export function withProperties<P extends object>(build: () => P): new () => Readonly<P> {
  return class {
    constructor() {
      Object.assign(this, build());
    }
  } as new () => Readonly<P>;
}

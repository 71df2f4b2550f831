// A metric gate against its query's result: every sample must satisfy `value <operator> threshold`,
// or, for NoSeries, there must be no sample. A result without a usable value (no series where a value
// is required, NaN, a matrix or string) cannot be evaluated: the gate holds, it never passes. As a gate
// kind: every query of healthGate.metrics asked of the pool's Prometheus, each judged on its own.

import type { GateCheck, MetricGateSpec } from './gate-check.ts';
import { type PrometheusGateKind, prometheusUnavailable } from './gate-kind.ts';
import type { QueryResult } from './prometheus-client.ts';

const COMPARE: Record<string, (value: number, threshold: number) => boolean> = {
  '<': (v, t) => v < t,
  '<=': (v, t) => v <= t,
  '>': (v, t) => v > t,
  '>=': (v, t) => v >= t,
  '==': (v, t) => v === t,
  '!=': (v, t) => v !== t,
};

function labelText(labels: Record<string, string>): string {
  const entries = Object.entries(labels);
  return entries.length === 0 ? '' : `{${entries.map(([k, v]) => `${k}="${v}"`).join(', ')}}`;
}

function describe(gate: MetricGateSpec): string {
  return `metric gate ${gate.name} (${gate.query})`;
}

export function evaluateMetricGate(gate: MetricGateSpec, result: QueryResult): GateCheck {
  if (result.type === 'matrix' || result.type === 'string')
    return {
      state: 'unavailable',
      message: `${describe(gate)}: the query returns a ${result.type}, not an instant vector or scalar`,
    };
  const samples = result.samples;
  if (gate.operator === 'NoSeries') {
    if (result.type === 'scalar')
      return {
        state: 'unavailable',
        message: `${describe(gate)}: a scalar always has a value; NoSeries needs a vector`,
      };
    if (samples.length === 0) return { state: 'pass', message: `${gate.name}: no series, as required` };
    const shown = samples
      .slice(0, 3)
      .map((s) => `${labelText(s.labels) || '{}'} = ${s.value}`)
      .join(', ');
    return {
      state: 'fail',
      reason: 'MetricGateFailed',
      message: `${describe(gate)} returned ${samples.length} series, must return none: ${shown}${samples.length > 3 ? ', ...' : ''}`,
    };
  }
  const threshold = gate.threshold;
  const compare = COMPARE[gate.operator];
  if (threshold === undefined || compare === undefined)
    return {
      state: 'unavailable',
      message: `${describe(gate)}: operator ${gate.operator} needs a threshold`,
    };
  if (samples.length === 0)
    return {
      state: 'unavailable',
      message: `${describe(gate)} returned no series: no value to compare with ${gate.operator} ${threshold}`,
    };
  const nan = samples.find((s) => Number.isNaN(s.value));
  if (nan)
    return {
      state: 'unavailable',
      message: `${describe(gate)} = NaN${labelText(nan.labels) ? ` for ${labelText(nan.labels)}` : ''}: no value to compare with ${gate.operator} ${threshold}`,
    };
  const failing = samples.filter((s) => !compare(s.value, threshold));
  if (failing.length > 0) {
    const shown = failing
      .slice(0, 3)
      .map((s) => `${s.value}${labelText(s.labels) ? ` for ${labelText(s.labels)}` : ''}`)
      .join(', ');
    return {
      state: 'fail',
      reason: 'MetricGateFailed',
      message: `${describe(gate)} = ${shown}${failing.length > 3 ? ` and ${failing.length - 3} more` : ''}, must be ${gate.operator} ${threshold}`,
    };
  }
  const values = samples.map((s) => s.value);
  const shown = values.length === 1 ? `${values[0]}` : `${Math.min(...values)}..${Math.max(...values)}`;
  return { state: 'pass', message: `${gate.name}: ${shown} ${gate.operator} ${threshold}` };
}

export const metricGates: PrometheusGateKind<readonly MetricGateSpec[]> = {
  asks: 'prometheus',
  spec: (gate) => ((gate.metrics?.length ?? 0) > 0 ? gate.metrics : undefined),
  check: (metrics, { prometheus }) =>
    Promise.all(
      metrics.map((m) =>
        prometheus.query(m.query).then(
          (result) => evaluateMetricGate(m, result),
          (err: unknown) => prometheusUnavailable(`metric gate ${m.name} (${m.query})`, err),
        ),
      ),
    ),
};

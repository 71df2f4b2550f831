// Alert gates against the alerts Prometheus' rules hold: a firing alert that matches any gate is a
// failure (as kured's --alert-filter-match-only with --alert-firing-only); pending alerts do not count.
// As a gate kind: healthGate.alerts against the pool's Prometheus, one check for them all.

import { alertMatches } from '../../api/alert-matcher.ts';
import type { AlertGateSpec, GateCheck } from './gate-check.ts';
import { type PrometheusGateKind, prometheusUnavailable } from './gate-kind.ts';
import type { PrometheusAlert } from './prometheus-client.ts';

function alertText(alert: PrometheusAlert): string {
  const { alertname, ...rest } = alert.labels;
  const labels = Object.entries(rest)
    .map(([k, v]) => `${k}="${v}"`)
    .join(', ');
  return `${alertname ?? '(unnamed)'}${labels ? `{${labels}}` : ''}`;
}

export function evaluateAlertGates(
  gates: readonly AlertGateSpec[],
  alerts: readonly PrometheusAlert[],
): GateCheck {
  const firing = alerts.filter((a) => a.state === 'firing' && gates.some((g) => alertMatches(g, a.labels)));
  if (firing.length === 0) return { state: 'pass', message: 'no matching alert firing' };
  const shown = firing.slice(0, 3).map(alertText).join(', ');
  return {
    state: 'fail',
    reason: 'AlertFiring',
    message: `${firing.length === 1 ? 'alert' : `${firing.length} alerts`} firing: ${shown}${firing.length > 3 ? ', ...' : ''}`,
  };
}

export const alertGates: PrometheusGateKind<readonly AlertGateSpec[]> = {
  asks: 'prometheus',
  spec: (gate) => ((gate.alerts?.length ?? 0) > 0 ? gate.alerts : undefined),
  check: (alerts, { prometheus }) =>
    prometheus.alerts().then(
      (list) => [evaluateAlertGates(alerts, list)],
      (err: unknown) => [prometheusUnavailable('alert gates', err)],
    ),
};

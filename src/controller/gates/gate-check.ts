// What one gate says, and what all of them say together. A gate that cannot be evaluated holds the
// rollout and never lets it pass; a gate that is evaluated and fails is a failure for the pool's
// failure policy; a hold (blocking pods) only holds. Pure, so every combination is table-tested.

import type {
  alertGateSchema,
  metricGateSchema,
  prometheusServerSchema,
} from '../../api/node-config-pool-schema.ts';
import type { OutputOf } from '../../api/schema-builder.ts';

export type MetricGateSpec = OutputOf<typeof metricGateSchema>;
export type AlertGateSpec = OutputOf<typeof alertGateSchema>;
export type PrometheusServerSpec = OutputOf<typeof prometheusServerSchema>;

/** The reasons a gate gives (the pool's HealthGate condition and its Events). */
export type GateReason =
  | 'GatesPassed'
  | 'MetricGateFailed'
  | 'AlertFiring'
  | 'BlockingPods'
  | 'GateUnavailable';

export type GateCheck =
  | { state: 'pass'; message: string }
  | { state: 'fail'; reason: 'MetricGateFailed' | 'AlertFiring'; message: string }
  | { state: 'unavailable'; message: string }
  /** Nothing is wrong, but the batch must wait (blocking pods). */
  | { state: 'hold'; reason: 'BlockingPods'; message: string };

export type GateOutcome =
  | { verdict: 'pass'; reason: 'GatesPassed'; message: string }
  /** No batch starts; nodes in flight finish. */
  | { verdict: 'hold'; reason: 'BlockingPods' | 'GateUnavailable'; message: string }
  /** A failure for the failure policy (before anything was touched it only holds). */
  | { verdict: 'fail'; reason: 'MetricGateFailed' | 'AlertFiring'; message: string };

/**
 * All checks together: any failure fails (it is known to be bad, whatever else cannot be read), else
 * any unavailable one holds, else any hold (a blocking pod; `blockingPods` is one) holds, else the
 * gates pass.
 */
export function combineGateChecks(all: readonly GateCheck[], blockingPods?: string): GateOutcome {
  const checks: readonly GateCheck[] = blockingPods
    ? [...all, { state: 'hold', reason: 'BlockingPods', message: blockingPods }]
    : all;
  const failed = checks.filter((c): c is Extract<GateCheck, { state: 'fail' }> => c.state === 'fail');
  if (failed.length > 0)
    return { verdict: 'fail', reason: failed[0]!.reason, message: failed.map((c) => c.message).join('; ') };
  const unavailable = checks.filter((c) => c.state === 'unavailable');
  if (unavailable.length > 0)
    return {
      verdict: 'hold',
      reason: 'GateUnavailable',
      message: `${unavailable.map((c) => c.message).join('; ')}; no batch starts until the gate can be evaluated`,
    };
  const held = checks.filter((c): c is Extract<GateCheck, { state: 'hold' }> => c.state === 'hold');
  if (held.length > 0)
    return { verdict: 'hold', reason: held[0]!.reason, message: held.map((c) => c.message).join('; ') };
  return {
    verdict: 'pass',
    reason: 'GatesPassed',
    message: checks.length > 0 ? checks.map((c) => c.message).join('; ') : 'no gate blocks',
  };
}

// The series the agent exports at /metrics. Restarts per unit were what Gardener's users asked for
// and never got (anchors: "No custom Prometheus metrics (restart counts were asked for)").

import type { NodeState } from '../../api/node-protocol.ts';
import { NODE_STATES } from '../../api/node-protocol.ts';
import type { RequestCountsSnapshot } from '../../kube/request-counters.ts';
import { buildInfoLabels } from '../../util/build-info.ts';
import { counter, gauge, histogram, withProperties } from '../../util/metric-declarations.ts';
import { MetricsRegistry } from './prometheus-text.ts';

export type ApplyResult = 'success' | 'failure' | 'rollback';

/** The agent's series, in the order of the exposition: each one's whole declaration, buckets included. */
const AGENT_SERIES = {
  unitRestarts: counter('nodeherd_agent_unit_restarts_total', 'Units restarted by the agent.', ['unit']),
  unitReloads: counter('nodeherd_agent_unit_reloads_total', 'Units reloaded by the agent.', ['unit']),
  applyDuration: histogram(
    'nodeherd_agent_apply_duration_seconds',
    'Time from starting to apply a revision to its result, verification included.',
    // Seconds: a no-op apply takes milliseconds, a kubelet restart tens of seconds, a package upgrade minutes.
    [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 120, 300, 600],
    ['result'],
  ),
  applyFailures: counter(
    'nodeherd_agent_apply_failures_total',
    'Applies that failed (action or verification).',
  ),
  rollbacks: counter('nodeherd_agent_rollbacks_total', 'Local restorations of the last applied revision.'),
  actions: counter('nodeherd_agent_actions_total', 'Plan actions executed, by kind and result.', [
    'kind',
    'result',
  ]),
  actionsSkipped: counter(
    'nodeherd_agent_actions_resumed_total',
    'Plan actions skipped because the journal of an interrupted apply showed them done.',
  ),
  driftDetected: counter(
    'nodeherd_agent_drift_detected_total',
    'Drift found (each item once until repaired), by kind: file, unit, dropin, enablement, state, package.',
    ['kind'],
  ),
  driftRepaired: counter(
    'nodeherd_agent_drift_repaired_total',
    'Drift items the agent wrote back, by kind.',
    ['kind'],
  ),
  driftItems: gauge(
    'nodeherd_agent_drift_items',
    'Drift items the last check left in place (policy Report, or a repair that failed), by kind.',
    ['kind'],
  ),
  driftChecks: counter('nodeherd_agent_drift_checks_total', 'Drift checks run, by what started them.', [
    'trigger',
  ]),
  rebootRequired: gauge(
    'nodeherd_agent_reboot_required',
    'Whether the OS asks for a reboot: 1 yes, 0 no, -1 the last check failed (nodeherd.io/RebootRequired).',
  ),
  rebootChecks: counter(
    'nodeherd_agent_reboot_checks_total',
    'Checks of the reboot sentinel (file, command), by what started them.',
    ['trigger'],
  ),
  currentRevision: gauge(
    'nodeherd_agent_current_revision_info',
    'The revision last applied completely (value 1).',
    ['revision', 'hash'],
  ),
  state: gauge('nodeherd_agent_state', 'The agent state reported on its Node (1 for the current one).', [
    'state',
  ]),
  apiRequests: counter('nodeherd_agent_api_requests_total', 'Requests sent to the Kubernetes API server.', [
    'verb',
  ]),
  buildInfo: gauge('nodeherd_agent_build_info', 'The build of this agent (value 1).', [
    'version',
    'nodeversion',
  ]),
};

/** The agent's registry, and each series of AGENT_SERIES as a field of its own. */
export class AgentMetrics extends withProperties(() => {
  const registry = new MetricsRegistry();
  return { registry, ...registry.declare(AGENT_SERIES) };
}) {
  private readonly reportedRequests = new Map<string, number>();

  constructor() {
    super();
    this.buildInfo.set(buildInfoLabels, 1);
  }

  setCurrentRevision(name: string, hash: string): void {
    this.currentRevision.reset();
    this.currentRevision.set({ revision: name, hash }, 1);
  }

  setState(state: NodeState): void {
    for (const s of NODE_STATES) this.state.set({ state: s }, s === state ? 1 : 0);
  }

  /** Brings the request counter up to the client's own count (called before each scrape). */
  syncApiRequests(stats: RequestCountsSnapshot): void {
    for (const [verb, total] of Object.entries(stats.byVerb)) {
      const seen = this.reportedRequests.get(verb) ?? 0;
      if (total > seen) this.apiRequests.inc({ verb }, total - seen);
      this.reportedRequests.set(verb, total);
    }
  }

  observeApply(result: ApplyResult, seconds: number): void {
    this.applyDuration.observe({ result }, seconds);
  }

  render(): string {
    return this.registry.render();
  }
}

// nodeherd's Prometheus alerting rules, one source for both forms it ships in (generate-deploy.ts):
// deploy/prometheus/nodeherd-rules.yaml, a plain rule file for a Prometheus's rule_files, and the
// PrometheusRule of the kustomize component deploy/components/prometheus (Prometheus Operator).
// Every rule reads what Prometheus scrapes from the controller's /metrics (agents listen on loopback,
// so a node's facts come through the controller: pool status counts, conditions, and per-node and
// per-slot timestamps read from its caches at each scrape) and `up` of its scrape job. The metric
// names are checked against the controller's registry, and each alert fires and stays quiet in
// promtool unit tests (test/prometheus/).

/** The scrape job of the controller: the Service's name, which a ServiceMonitor makes the job label. */
export const CONTROLLER_JOB = 'nodeherd-controller-metrics';

export interface AlertRule {
  alert: string;
  expr: string;
  for: string;
  labels: { severity: 'critical' | 'warning' };
  annotations: { summary: string; description: string; runbook: string };
}

export interface RuleGroup {
  name: string;
  rules: AlertRule[];
}

/** Thresholds, in one place (an overlay patches the PrometheusRule's expr to change them). */
export const ALERT_THRESHOLDS = {
  /** A reboot the OS asks for has not happened within this (maintenance windows and rounds included). */
  rebootPendingSeconds: 24 * 3600,
  /** One node has held a Serial slot this long: its apply, verification and reboot take minutes. */
  serialSlotHeldSeconds: 3600,
};

const hours = (seconds: number) => `${seconds / 3600}h`;

export const ALERT_RULE_GROUPS: RuleGroup[] = [
  {
    name: 'nodeherd',
    rules: [
      {
        alert: 'NodeherdControllerDown',
        expr: `absent(up{job="${CONTROLLER_JOB}"} == 1)`,
        for: '5m',
        labels: { severity: 'critical' },
        annotations: {
          summary: 'No nodeherd controller is scraped up',
          description: `Prometheus has scraped no nodeherd controller successfully (job ${CONTROLLER_JOB}) for 5 minutes: rollouts, drains and Serial hand-overs stop (agents keep their nodes and take Serial turns by themselves).`,
          runbook:
            'kubectl -n nodeherd get pods,endpoints -l app.kubernetes.io/name=nodeherd-controller; its logs; a 401/403 on the target means the scrape token is not authorized (ClusterRole nodeherd-metrics-reader).',
        },
      },
      {
        alert: 'NodeherdControllerNoLeader',
        expr: `sum(nodeherd_controller_leader) == 0`,
        for: '5m',
        labels: { severity: 'critical' },
        annotations: {
          summary: 'nodeherd controllers run, but none leads',
          description:
            'Every scraped controller replica reports nodeherd_controller_leader 0 for 5 minutes: nobody reconciles pools.',
          runbook:
            "kubectl -n nodeherd get lease nodeherd-controller -o yaml (its holder and renewTime); the replicas' logs (leader election errors, RBAC on leases).",
        },
      },
      {
        alert: 'NodeherdRolloutStalled',
        expr: `nodeherd_pool_status_condition{condition="Stalled",status="true"} == 1`,
        for: '15m',
        labels: { severity: 'warning' },
        annotations: {
          summary: 'Pool {{ $labels.pool }}: the rollout is stalled',
          description:
            'The pool has had Stalled=True for 15 minutes: only a person moves it on (failure policy pause, a rollback pin, configs that do not render, failed nodes holding the budget past the progress deadline, or no node selected).',
          runbook:
            'nodeherd status {{ $labels.pool }} (the Stalled reason and the failed nodes); fix the config, then nodeherd resume {{ $labels.pool }} or nodeherd rollback {{ $labels.pool }}.',
        },
      },
      {
        alert: 'NodeherdNodesFailed',
        expr: `nodeherd_pool_status_failed_nodes > 0`,
        for: '5m',
        labels: { severity: 'warning' },
        annotations: {
          summary: 'Pool {{ $labels.pool }}: {{ $value }} nodes failed the target revision',
          description:
            'Nodes of the pool failed to apply or verify its target revision (status.failed) for 5 minutes.',
          runbook:
            'nodeherd status {{ $labels.pool }} (the failed nodes and why); kubectl get events --field-selector reason=UpdateFailed; fix the config, or nodeherd rollback {{ $labels.pool }}.',
        },
      },
      {
        alert: 'NodeherdNodesDrifted',
        expr: `nodeherd_pool_status_drifted_nodes > 0`,
        for: '30m',
        labels: { severity: 'warning' },
        annotations: {
          summary: 'Pool {{ $labels.pool }}: {{ $value }} nodes drifted from their revision',
          description:
            'Agents report ConfigDrift=True for 30 minutes: something other than nodeherd changed files, units or packages it manages (with spec.drift.policy Repair on the pool, the agent writes them back at its next check).',
          runbook:
            "kubectl get nodes -o custom-columns=NAME:.metadata.name,DRIFT:.status.conditions[?(@.type=='ConfigDrift')].message; find who changes them, or set the pool's spec.drift.policy to Repair.",
        },
      },
      {
        alert: 'NodeherdRebootPendingTooLong',
        expr: `time() - nodeherd_node_reboot_required_since_timestamp_seconds > ${ALERT_THRESHOLDS.rebootPendingSeconds}`,
        for: '5m',
        labels: { severity: 'warning' },
        annotations: {
          summary: `Node {{ $labels.node }} (pool {{ $labels.pool }}) has waited more than ${hours(ALERT_THRESHOLDS.rebootPendingSeconds)} for a reboot its OS asks for`,
          description:
            'Its nodeherd.io/RebootRequired condition has been True that long: the pool does not reboot it (reboots off, no maintenance window, paused, a drain blocked) or it does not come back.',
          runbook:
            'nodeherd status {{ $labels.pool }} (reboots waiting, windows, pause); kubectl describe node {{ $labels.node }} (a blocked drain).',
        },
      },
      {
        alert: 'NodeherdSerialSlotHeldTooLong',
        expr: `time() - nodeherd_serial_slot_acquired_timestamp_seconds > ${ALERT_THRESHOLDS.serialSlotHeldSeconds}`,
        for: '5m',
        labels: { severity: 'warning' },
        annotations: {
          summary: `Node {{ $labels.node }} has held Serial slot {{ $labels.lease }} of pool {{ $labels.pool }} for more than ${hours(ALERT_THRESHOLDS.serialSlotHeldSeconds)}`,
          description:
            'The other nodes of the pool wait for the slot: its holder is stuck applying, failed (a failed node keeps its slot, by design), or not Ready again.',
          runbook:
            'nodeherd status {{ $labels.pool }}; kubectl describe node {{ $labels.node }}; once the node is fixed or removed the slot moves on (the controller frees the slot of a deleted holder).',
        },
      },
    ],
  },
];

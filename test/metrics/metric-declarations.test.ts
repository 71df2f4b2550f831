// The metrics the agent and the controller declare, pinned header by header (name, type and help
// text, in the order of the exposition): dashboards and alert rules name them, so a change to their
// declarations (src/util/metric-declarations.ts, the two tables) must not rename or reword one.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AgentMetrics } from '../../src/agent/metrics/agent-metrics.ts';
import { ControllerMetrics } from '../../src/controller/metrics.ts';

const AGENT_HEADERS = [
  '# HELP nodeherd_agent_unit_restarts_total Units restarted by the agent.',
  '# TYPE nodeherd_agent_unit_restarts_total counter',
  '# HELP nodeherd_agent_unit_reloads_total Units reloaded by the agent.',
  '# TYPE nodeherd_agent_unit_reloads_total counter',
  '# HELP nodeherd_agent_apply_duration_seconds Time from starting to apply a revision to its result, verification included.',
  '# TYPE nodeherd_agent_apply_duration_seconds histogram',
  '# HELP nodeherd_agent_apply_failures_total Applies that failed (action or verification).',
  '# TYPE nodeherd_agent_apply_failures_total counter',
  '# HELP nodeherd_agent_rollbacks_total Local restorations of the last applied revision.',
  '# TYPE nodeherd_agent_rollbacks_total counter',
  '# HELP nodeherd_agent_actions_total Plan actions executed, by kind and result.',
  '# TYPE nodeherd_agent_actions_total counter',
  '# HELP nodeherd_agent_actions_resumed_total Plan actions skipped because the journal of an interrupted apply showed them done.',
  '# TYPE nodeherd_agent_actions_resumed_total counter',
  '# HELP nodeherd_agent_drift_detected_total Drift found (each item once until repaired), by kind: file, unit, dropin, enablement, state, package.',
  '# TYPE nodeherd_agent_drift_detected_total counter',
  '# HELP nodeherd_agent_drift_repaired_total Drift items the agent wrote back, by kind.',
  '# TYPE nodeherd_agent_drift_repaired_total counter',
  '# HELP nodeherd_agent_drift_items Drift items the last check left in place (policy Report, or a repair that failed), by kind.',
  '# TYPE nodeherd_agent_drift_items gauge',
  '# HELP nodeherd_agent_drift_checks_total Drift checks run, by what started them.',
  '# TYPE nodeherd_agent_drift_checks_total counter',
  '# HELP nodeherd_agent_reboot_required Whether the OS asks for a reboot: 1 yes, 0 no, -1 the last check failed (nodeherd.io/RebootRequired).',
  '# TYPE nodeherd_agent_reboot_required gauge',
  '# HELP nodeherd_agent_reboot_checks_total Checks of the reboot sentinel (file, command), by what started them.',
  '# TYPE nodeherd_agent_reboot_checks_total counter',
  '# HELP nodeherd_agent_current_revision_info The revision last applied completely (value 1).',
  '# TYPE nodeherd_agent_current_revision_info gauge',
  '# HELP nodeherd_agent_state The agent state reported on its Node (1 for the current one).',
  '# TYPE nodeherd_agent_state gauge',
  '# HELP nodeherd_agent_api_requests_total Requests sent to the Kubernetes API server.',
  '# TYPE nodeherd_agent_api_requests_total counter',
  '# HELP nodeherd_agent_build_info The build of this agent (value 1).',
  '# TYPE nodeherd_agent_build_info gauge',
];

const CONTROLLER_HEADERS = [
  '# HELP nodeherd_pool_nodes Nodes of a pool, by rollout phase.',
  '# TYPE nodeherd_pool_nodes gauge',
  '# HELP nodeherd_pool_agents Agents of a pool, by the state they report on their Node.',
  '# TYPE nodeherd_pool_agents gauge',
  '# HELP nodeherd_pool_status_nodes Nodes the pool selects (status.nodes).',
  '# TYPE nodeherd_pool_status_nodes gauge',
  '# HELP nodeherd_pool_status_updated_nodes Nodes on the target revision (status.updated).',
  '# TYPE nodeherd_pool_status_updated_nodes gauge',
  '# HELP nodeherd_pool_status_ready_nodes Nodes on the target revision and healthy (status.ready).',
  '# TYPE nodeherd_pool_status_ready_nodes gauge',
  '# HELP nodeherd_pool_status_unavailable_nodes Nodes not available: unhealthy, cordoned or being updated (status.unavailable).',
  '# TYPE nodeherd_pool_status_unavailable_nodes gauge',
  '# HELP nodeherd_pool_status_failed_nodes Nodes that failed the target revision (status.failed).',
  '# TYPE nodeherd_pool_status_failed_nodes gauge',
  '# HELP nodeherd_pool_status_applying_nodes Nodes applying a revision (status.applying).',
  '# TYPE nodeherd_pool_status_applying_nodes gauge',
  '# HELP nodeherd_pool_status_reboot_required_nodes Nodes whose OS asks for a reboot and that have not been asked to reboot yet (status.rebootRequired).',
  '# TYPE nodeherd_pool_status_reboot_required_nodes gauge',
  '# HELP nodeherd_pool_status_drifted_nodes Nodes whose agent reports drift from the applied revision (status.drifted, ConfigDrift=True).',
  '# TYPE nodeherd_pool_status_drifted_nodes gauge',
  '# HELP nodeherd_rollout_duration_seconds From the start of a rollout to its end, by result.',
  '# TYPE nodeherd_rollout_duration_seconds histogram',
  '# HELP nodeherd_batch_duration_seconds From starting a batch of nodes to the last of them being updated and soaked.',
  '# TYPE nodeherd_batch_duration_seconds histogram',
  '# HELP nodeherd_node_update_duration_seconds From starting a node (drain included) to the node being healthy on the target.',
  '# TYPE nodeherd_node_update_duration_seconds histogram',
  '# HELP nodeherd_node_failures_total Nodes that failed a rollout, by reason.',
  '# TYPE nodeherd_node_failures_total counter',
  '# HELP nodeherd_rollbacks_total Rollbacks, by reason (FailurePolicy, RollbackRequested).',
  '# TYPE nodeherd_rollbacks_total counter',
  '# HELP nodeherd_rollouts_started_total Rollouts started.',
  '# TYPE nodeherd_rollouts_started_total counter',
  '# HELP nodeherd_reconcile_duration_seconds Time of one reconcile, by kind of key.',
  '# TYPE nodeherd_reconcile_duration_seconds histogram',
  '# HELP nodeherd_reconcile_errors_total Reconciles that failed and were retried.',
  '# TYPE nodeherd_reconcile_errors_total counter',
  "# HELP nodeherd_pool_status_condition The pool's conditions (Ready, Reconciling, Stalled, Progressing, ...): 1 on the series of its status (true, false, unknown), 0 on the others.",
  '# TYPE nodeherd_pool_status_condition gauge',
  '# HELP nodeherd_node_reboot_required_since_timestamp_seconds Since when the OS of a node of the pool asks for a reboot (its nodeherd.io/RebootRequired condition turned True), while it does; the node has not rebooted since.',
  '# TYPE nodeherd_node_reboot_required_since_timestamp_seconds gauge',
  "# HELP nodeherd_serial_slot_acquired_timestamp_seconds When the node holding a Serial slot Lease took it or was handed it (the Lease's acquireTime), while it is held.",
  '# TYPE nodeherd_serial_slot_acquired_timestamp_seconds gauge',
  '# HELP nodeherd_controller_leader 1 while this replica leads.',
  '# TYPE nodeherd_controller_leader gauge',
  '# HELP nodeherd_controller_build_info The build of this controller (value 1).',
  '# TYPE nodeherd_controller_build_info gauge',
  '# HELP workqueue_depth Current depth of workqueue.',
  '# TYPE workqueue_depth gauge',
  '# HELP workqueue_adds_total Total number of adds handled by workqueue.',
  '# TYPE workqueue_adds_total counter',
  '# HELP workqueue_retries_total Total number of retries handled by workqueue.',
  '# TYPE workqueue_retries_total counter',
  '# HELP workqueue_queue_duration_seconds How long in seconds an item stays in workqueue before being requested.',
  '# TYPE workqueue_queue_duration_seconds histogram',
  '# HELP workqueue_work_duration_seconds How long in seconds processing an item from workqueue takes.',
  '# TYPE workqueue_work_duration_seconds histogram',
];

test("the agent's metrics: every HELP and TYPE line, in order", () => {
  const headers = new AgentMetrics()
    .render()
    .split('\n')
    .filter((line) => line.startsWith('# '));
  assert.deepEqual(headers, AGENT_HEADERS);
});

test("the controller's own and workqueue metrics: every HELP and TYPE line, in order", async () => {
  const headers = (await new ControllerMetrics().registry.metrics())
    .split('\n')
    .filter((line) => /^# (HELP|TYPE) (nodeherd|workqueue)_/.test(line));
  assert.deepEqual(headers, CONTROLLER_HEADERS);
});

test('label names: the agent renders them in declaration order; prom-client refuses any other', async () => {
  const agent = new AgentMetrics();
  agent.actions.inc({ result: 'ok', kind: 'file' });
  agent.observeApply('success', 1);
  assert.match(agent.render(), /^nodeherd_agent_actions_total\{kind="file",result="ok"\} 1$/m);
  assert.match(agent.render(), /^nodeherd_agent_apply_duration_seconds_count\{result="success"\} 1$/m);
  const controller = new ControllerMetrics();
  controller.rollbacks.inc({ pool: 'p', reason: 'FailurePolicy' });
  assert.throws(() => controller.rollbacks.inc({ pool: 'p', cause: 'FailurePolicy' } as never), /cause/);
  controller.poolStatus.rebootRequired.set({ pool: 'p' }, 2);
  controller.workQueue('pools').added();
  const text = await controller.registry.metrics();
  assert.match(text, /^nodeherd_rollbacks_total\{pool="p",reason="FailurePolicy"\} 1$/m);
  assert.match(text, /^nodeherd_pool_status_reboot_required_nodes\{pool="p"\} 2$/m);
  assert.match(text, /^workqueue_adds_total\{name="pools"\} 1$/m);
});

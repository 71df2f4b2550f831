// NodeConfigPool: which nodes get which NodeConfigs, and how a new revision is rolled out across them.

import { conditionsSchema, labelSelectorSchema } from './common-schemas.ts';
import { MAX_PATH_LENGTH, MAX_POOL_NAME_LENGTH } from './limits.ts';
import { secretNamespaceSchema } from './node-config-schema.ts';
import { DEFAULT_REBOOT_SENTINEL_FILE, DRIFT_POLICIES, OS_REBOOT_POLICIES } from './node-protocol.ts';
import { ABSOLUTE_PATH, DNS1123_LABEL, DNS1123_SUBDOMAIN } from './patterns.ts';
import {
  array,
  boolean,
  dateTime,
  defaulted,
  integer,
  intOrString,
  keyedBy,
  number,
  object,
  optional,
  string,
  stringEnum,
  stringMap,
} from './schema-builder.ts';

/** Bounds of spec.reboots.osRequested.sentinelCommand. */
export const MAX_SENTINEL_ARGUMENTS = 32;
export const MAX_SENTINEL_ARGUMENT_LENGTH = 4096;

export const UPDATE_STRATEGY_TYPES = ['RollingUpdate', 'Serial', 'Spread', 'OnDelete', 'OTA'] as const;

/** NodeConfigPool condition types the controller maintains. */
export const POOL_CONDITION_TYPES = [
  'Progressing',
  'Paused',
  'Degraded',
  'RolledBack',
  'Complete',
  'RenderDegraded',
  'HealthGate',
] as const;

/** How a metric gate compares each sample of its query's result with the threshold. */
export const METRIC_GATE_OPERATORS = ['<', '<=', '>', '>=', '==', '!=', 'NoSeries'] as const;

export const prometheusServerSchema = object(
  {
    url: string(
      'Base URL of the Prometheus HTTP API, e.g. http://prometheus.monitoring:9090 (no credentials in it).',
    ),
    credentialsSecretRef: optional(
      object(
        {
          namespace: secretNamespaceSchema,
          name: string('Name of the Secret.', { pattern: DNS1123_SUBDOMAIN, maxLength: 253 }),
        },
        'Secret with `token` (bearer token) or `username` and `password` (basic auth), and optionally `ca.crt` (PEM CA bundle for https).',
      ),
    ),
    timeoutSeconds: defaulted(
      integer('Seconds one request may take; a slower answer holds the rollout.', {
        minimum: 1,
        maximum: 60,
      }),
      5,
    ),
    intervalSeconds: defaulted(
      integer('Seconds between evaluations while a rollout is in progress.', { minimum: 1, maximum: 3600 }),
      10,
    ),
  },
  'The Prometheus server the metric and alert gates ask.',
);

export const metricGateSchema = object(
  {
    name: string('Name of the gate, shown in conditions and Events.', {
      pattern: DNS1123_LABEL,
      maxLength: 63,
    }),
    query: string('PromQL expression, evaluated as an instant query.', { maxLength: 4096 }),
    operator: stringEnum(
      METRIC_GATE_OPERATORS,
      'Every sample must satisfy `value <operator> threshold`; NoSeries: the query must return no series.',
    ),
    threshold: optional(number('The value compared with; required unless operator is NoSeries.')),
  },
  'A query that must hold; a result without a value (no series, NaN) holds the rollout.',
);

export const alertGateSchema = object(
  {
    alertname: optional(
      string('RE2 regular expression the alert name must match in full; absent: any name.', {
        maxLength: 1024,
      }),
    ),
    matchLabels: optional(stringMap('Labels the alert must carry with exactly these values.')),
  },
  'Firing alerts that block: an alert matching every field given.',
);

export const ROLLOUT_RESULTS = ['InProgress', 'Complete', 'RolledBack', 'Failed', 'Superseded'] as const;

export const maintenanceWindowSchema = object(
  {
    schedule: string('Cron expression (5 fields, or @daily, @weekly, ...) for when a window opens.'),
    duration: string('How long the window stays open, e.g. 4h or 90m.'),
    timeZone: defaulted(
      string(
        'IANA time zone the schedule is read in, e.g. Europe/Berlin; daylight saving time is followed (a time skipped by the spring-forward jump opens the window right after the jump; a time repeated by fall-back opens it once).',
      ),
      'UTC',
    ),
  },
  'A window in which batches may start; progress resumes in the next window. The duration is elapsed time.',
);

/** The label selector schema with a description of what this selector picks. */
function describedSelector(description: string): typeof labelSelectorSchema {
  return { ...labelSelectorSchema, json: { ...labelSelectorSchema.json, description } };
}

export const rollingUpdateSchema = object(
  {
    maxUnavailable: defaulted(
      intOrString('Nodes (or % of the pool, rounded down, at least 1) unavailable at once, for any reason.'),
      1,
    ),
    maxUnavailablePerZone: optional(intOrString('Cap of unavailable nodes per zone (number or %).')),
    zoneLabel: defaulted(string('Node label that names a node’s zone.'), 'topology.kubernetes.io/zone'),
    canary: optional(
      object(
        {
          nodes: intOrString(
            'Nodes (or %) in the first batch, which must pass the health gate alone. Spread: the first nodes of the schedule; the others get their times once these are updated.',
          ),
        },
        'A first, smaller batch.',
      ),
    ),
    minReadySeconds: defaulted(
      integer('Soak time: seconds a batch must stay healthy before the next one starts.', { minimum: 0 }),
      0,
    ),
    progressDeadlineSeconds: defaulted(
      integer('Seconds a node may take to apply and become healthy before it counts as failed.', {
        minimum: 1,
      }),
      600,
    ),
    failurePolicy: defaulted(
      object(
        {
          action: defaulted(
            stringEnum(
              ['Pause', 'Rollback'],
              'Pause the rollout, or roll the pool back to the last good revision.',
            ),
            'Pause',
          ),
          maxFailures: defaulted(
            integer('Failed nodes tolerated before the action is taken.', { minimum: 0 }),
            0,
          ),
        },
        'What happens when nodes fail.',
      ),
      {},
    ),
    healthGate: optional(
      object(
        {
          podSelector: optional(
            describedSelector('Pods that must be Ready on an updated node before it counts as healthy.'),
          ),
          blockingPodSelector: optional(
            describedSelector(
              'No batch starts while pods it selects (any phase but Succeeded and Failed) run on the nodes the batch would take (RollingUpdate only).',
            ),
          ),
          prometheus: optional(prometheusServerSchema),
          metrics: optional(
            array(
              metricGateSchema,
              'Queries checked before a batch starts and throughout each soak.',
              keyedBy('name'),
            ),
          ),
          alerts: optional(
            array(
              alertGateSchema,
              'A firing alert matching any of these is a failure (pending alerts are not).',
            ),
          ),
        },
        'Checked after every batch, besides Node readiness and the units’ health probes. Metric and alert gates (RollingUpdate only) are checked before a batch starts and throughout each soak: a failing one is a failure for failurePolicy, one that cannot be evaluated holds the rollout.',
      ),
    ),
    maintenanceWindows: optional(
      array(maintenanceWindowSchema, 'When set, batches start only inside a window.'),
    ),
  },
  'Batches chosen by the controller.',
);

/** Most pools one pool may wait for. */
export const MAX_WAVE_PREDECESSORS = 32;

export const waveSchema = object(
  {
    after: array(
      string('A NodeConfigPool name.', { maxLength: MAX_POOL_NAME_LENGTH }),
      'Pools that must have completed their current revision, and soaked, before this pool starts a new one. A paused, failed or rolled-back pool among them holds this one.',
      { maxItems: MAX_WAVE_PREDECESSORS, 'x-kubernetes-list-type': 'set' },
    ),
    soakSeconds: defaulted(
      integer('Seconds each of those pools must have been complete before this pool starts.', {
        minimum: 0,
      }),
      0,
    ),
  },
  'Waves: roll this pool after other pools (a canary pool first).',
);

export const updateStrategySchema = object(
  {
    type: defaulted(stringEnum(UPDATE_STRATEGY_TYPES, 'Who decides when a node updates.'), 'RollingUpdate'),
    wave: optional(waveSchema),
    rollingUpdate: optional(rollingUpdateSchema),
    serial: optional(
      object(
        {
          slots: defaulted(integer('Nodes updating at once.', { minimum: 1 }), 1),
          leaseDurationSeconds: defaulted(
            integer('A slot holder that stops renewing loses its slot after this long.', { minimum: 10 }),
            600,
          ),
        },
        'Agents take turns through a Lease semaphore; works while the controller is down. rollingUpdate.canary, when set, goes first: only the canary nodes are given the revision until they are updated and soaked (rollingUpdate.minReadySeconds), which needs the controller.',
      ),
    ),
    spread: optional(
      object(
        {
          windowSeconds: integer('Every node gets an evenly spaced slot in this window.', { minimum: 1 }),
          maxUnavailable: optional(
            intOrString(
              'Budget: nodes (or % of the pool, rounded down, at least 1) unavailable or given a start time and not started, at once. Times are then handed out just in time and only while the budget has room, so the controller must be running for nodes to start; unset: every node gets its time at once.',
            ),
          ),
        },
        'Deterministic, evenly spaced start times. rollingUpdate.canary, when set, goes first: the other nodes get their times once the canary nodes are updated.',
      ),
    ),
    onDelete: optional(
      object(
        {
          outdatedTaint: defaulted(
            stringEnum(['None', 'NoSchedule', 'PreferNoSchedule'], 'Taint put on nodes of older revisions.'),
            'None',
          ),
        },
        'Existing nodes keep their revision; new nodes get the newest.',
      ),
    ),
  },
  'How a new revision reaches the nodes.',
);

export const nodeConfigPoolSpecSchema = object(
  {
    nodeSelector: labelSelectorSchema,
    configSelector: labelSelectorSchema,
    updateStrategy: defaulted(updateStrategySchema, {}),
    revisionHistoryLimit: defaulted(
      integer('Old revisions kept (revisions still used by a node are always kept).', { minimum: 0 }),
      10,
    ),
    paused: defaulted(boolean('Stops the rollout; nodes in flight finish.'), false),
    drift: defaulted(
      object(
        {
          policy: defaulted(
            stringEnum(
              DRIFT_POLICIES,
              'Repair: the agent writes back what drifted (restarting only the units that depend on it); Report: it only reports.',
            ),
            'Repair',
          ),
        },
        'What the agents do when a node drifts from its applied revision (files, units, drop-ins, enablement, state, packages).',
      ),
      {},
    ),
    reboots: optional(
      object(
        {
          osRequested: optional(
            object(
              {
                policy: defaulted(
                  stringEnum(
                    OS_REBOOT_POLICIES,
                    'Report: nodes only say so (condition nodeherd.io/RebootRequired). Reboot: the controller reboots them as a rollout (budget, canary, windows, gates, drain, soak); RollingUpdate only (other strategy types are refused).',
                  ),
                  'Report',
                ),
                sentinelFile: defaulted(
                  string(
                    "A file whose existence means the OS asks for a reboot, as the agent's root sees it; a `<file>.pkgs` beside it lists the packages that asked (Debian).",
                    { pattern: ABSOLUTE_PATH, maxLength: MAX_PATH_LENGTH },
                  ),
                  DEFAULT_REBOOT_SENTINEL_FILE,
                ),
                sentinelCommand: optional(
                  array(
                    string('A program (absolute path) or one of its arguments.', {
                      maxLength: MAX_SENTINEL_ARGUMENT_LENGTH,
                    }),
                    'Also ask this command, e.g. ["/usr/bin/needs-restarting", "-r"]: exit code 1 means a reboot is needed, 0 not, anything else is a failed check. Run without a shell, with an empty environment but PATH, as root on the node (in the node’s namespaces in DaemonSet mode), with a timeout and bounded output.',
                    { minItems: 1, maxItems: MAX_SENTINEL_ARGUMENTS },
                  ),
                ),
                timeoutSeconds: defaulted(
                  integer('Seconds the sentinel command may run; a slower one is a failed check.', {
                    minimum: 1,
                    maximum: 300,
                  }),
                  30,
                ),
              },
              'Reboots the OS asks for (after a kernel or libc upgrade). The agents check the sentinel file (and command) at start, after every apply and periodically, whatever the policy.',
            ),
          ),
        },
        'Reboots that no revision asks for. Absent: agents check /var/run/reboot-required and only report.',
      ),
    ),
    rollbackTo: optional(
      object(
        { revision: integer('Revision number to roll back to.', { minimum: 1 }) },
        'Set to re-apply an older revision; the controller clears it when done.',
      ),
    ),
  },
  'Which nodes get which NodeConfigs, and how updates roll out.',
);

const count = (description: string) => optional(integer(description, { minimum: 0 }));

export const poolRevisionStatusSchema = object(
  {
    name: string('NodeConfigRevision name.'),
    revision: integer('Revision number.'),
    nodes: count('Nodes on this revision.'),
    ready: count('Of which Ready.'),
    failed: count('Of which failed applying it.'),
  },
  'Nodes per revision.',
);

export const rolloutRecordSchema = object(
  {
    revision: integer('Revision number rolled out.'),
    name: optional(string('NodeConfigRevision name.')),
    startedAt: dateTime('When the rollout started.'),
    finishedAt: optional(dateTime('When it ended.')),
    canaryPassedAt: optional(
      dateTime('Spread with a canary: when the canary nodes were updated; the other nodes’ times follow it.'),
    ),
    result: stringEnum(ROLLOUT_RESULTS, 'How it ended.'),
    message: optional(string('Details, e.g. why it was rolled back.')),
  },
  'One rollout.',
);

export const renderConflictSchema = object(
  {
    kind: string('What conflicts: file, unit, dropIn, repository, package, policy.'),
    key: string('The path or name both sources define.'),
    field: string('The field that differs.'),
    sources: array(string('A NodeConfig name.'), 'The NodeConfigs that disagree.'),
    message: string('Human-readable description.'),
  },
  'Two NodeConfigs that disagree.',
);

export const nodeConfigPoolStatusSchema = object(
  {
    observedGeneration: optional(integer('Generation the controller last acted on.')),
    targetRevision: optional(string('Revision the pool is rolling out (name).')),
    currentRevision: optional(string('Revision every node had when the last rollout completed (name).')),
    revisions: optional(array(poolRevisionStatusSchema, 'Nodes per revision.')),
    nodes: count('Nodes selected.'),
    updated: count('Nodes on the target revision.'),
    ready: count('Nodes on the target revision that are Ready and healthy.'),
    unavailable: count('Nodes unavailable for any reason.'),
    failed: count('Nodes that failed to apply the target revision.'),
    applying: count('Nodes applying right now.'),
    updateAvailable: count(
      'OTA: nodes with the target revision on offer (not on it, not applying it): they wait for their owner.',
    ),
    waiting: count(
      'Serial, Spread: nodes given the target revision that are gated (waiting for a slot, their start time, or a hold) and have not started.',
    ),
    drifted: count(
      'Nodes whose ConfigDrift condition is True: drift found and not repaired (policy Report, or the repair failed). Omitted when none.',
    ),
    rebootRequired: count(
      'Nodes waiting for a reboot: their OS asks for one (condition nodeherd.io/RebootRequired True, not Rebooting) and the controller has not asked them yet. With reboots.osRequested.policy Reboot the pool reboots them as a rollout; with Report they only wait. Omitted when none.',
    ),
    nextWindowOpen: optional(
      dateTime('When a maintenance window next opens (pools with windows; open now or not).'),
    ),
    windowClosesAt: optional(dateTime('While a maintenance window is open: when the last one open closes.')),
    conditions: optional(conditionsSchema),
    history: optional(array(rolloutRecordSchema, 'Rollouts, newest last.')),
    conflicts: optional(array(renderConflictSchema, 'Why the latest configs could not be rendered.')),
  },
  'Observed state, written by the controller.',
);

// NodeConfigPool: which nodes get which NodeConfigs, and how a new revision is rolled out across them.

import { describedSelector, labelSelectorSchema } from './common-schemas.ts';
import { MAX_PATH_LENGTH, MAX_POOL_NAME_LENGTH, MAX_URL_LENGTH } from './limits.ts';
import { secretNamespaceSchema } from './node-config-schema.ts';
import { DEFAULT_REBOOT_SENTINEL_FILE, DRIFT_POLICIES, OS_REBOOT_POLICIES } from './node-protocol.ts';
import {
  CRON,
  DNS1123_LABEL,
  DNS1123_SUBDOMAIN,
  DURATION,
  HTTP_BASE_URL,
  NO_NUL,
  NORMALISED_PATH,
  PERCENT_1_TO_100,
} from './patterns.ts';
import { DRAIN_TIMEOUT_RULE, drainSchema } from './pool-drain-schema.ts';
import { PREFER_NO_SCHEDULE_NEXT_RULE, rolloutOrderSchema } from './pool-order-schema.ts';
import { PRESTAGE_STRATEGY_RULE, prestageSchema } from './prestage-schema.ts';
import {
  array,
  boolean,
  celString,
  defaulted,
  integer,
  intOrString,
  keyedBy,
  number,
  object,
  optional,
  type Rule,
  string,
  stringEnum,
  stringMap,
  withRules,
} from './schema-builder.ts';

/** Bounds of spec.reboots.osRequested.sentinelCommand. */
export const MAX_SENTINEL_ARGUMENTS = 32;
export const MAX_SENTINEL_ARGUMENT_LENGTH = 4096;

const ASKS_PROMETHEUS =
  '(has(self.metrics) && size(self.metrics) > 0) || (has(self.alerts) && size(self.alerts) > 0) || (has(self.compare) && size(self.compare) > 0)';

/**
 * The types whose settings each field holds (validator and CRD rules). Spread takes its failure policy
 * from rollingUpdate, and OnDelete's on-demand upgrades follow the rollingUpdate rules (budget, drain,
 * health gate, policy). Serial takes its canary (and the canary's minReadySeconds) from it, as Spread
 * does; its slots are its budget.
 */
export const STRATEGY_FIELDS: Record<string, readonly (typeof UPDATE_STRATEGY_TYPES)[number][]> = {
  rollingUpdate: ['RollingUpdate', 'Spread', 'OnDelete', 'Serial'],
  serial: ['Serial'],
  spread: ['Spread'],
  onDelete: ['OnDelete'],
};

function updateStrategyRules(): Rule[] {
  const type = "(has(self.type) ? self.type : 'RollingUpdate')";
  const byType: Rule[] = Object.entries(STRATEGY_FIELDS).map(([field, owners]) => ({
    rule: `!has(self.${field}) || ${type} in [${owners.map(celString).join(', ')}]`,
    message: `may only be set when type is ${owners.join(' or ')}`,
    fieldPath: `.${field}`,
    reason: 'FieldValueForbidden',
  }));
  const gateOnlyRollingUpdate: Rule[] = [
    'blockingPodSelector',
    'prometheus',
    'metrics',
    'compare',
    'alerts',
  ].map((field) => ({
    rule: `${type} == 'RollingUpdate' || !has(self.rollingUpdate) || !has(self.rollingUpdate.healthGate) || !has(self.rollingUpdate.healthGate.${field})`,
    message: 'may only be set when type is RollingUpdate',
    fieldPath: `.rollingUpdate.healthGate.${field}`,
    reason: 'FieldValueForbidden',
  }));
  return [
    ...byType,
    {
      rule: `${type} != 'Spread' || has(self.spread)`,
      message: 'spread.windowSeconds is required when type is Spread',
      fieldPath: '.spread',
      reason: 'FieldValueRequired',
    },
    ...gateOnlyRollingUpdate,
  ];
}

/** An IntOrString allowing at least one node: an integer ≥ 1 or "1%".."100%" (minimum and pattern each
 * apply to their own type only). */
const positiveIntOrPercent = (description: string) =>
  intOrString(description, { minimum: 1, pattern: PERCENT_1_TO_100, maxLength: 8 });

export const UPDATE_STRATEGY_TYPES = ['RollingUpdate', 'Serial', 'Spread', 'OnDelete', 'OTA'] as const;

/** How a metric gate compares each sample of its query's result with the threshold. */
export const METRIC_GATE_OPERATORS = ['<', '<=', '>', '>=', '==', '!=', 'NoSeries'] as const;

export const prometheusServerSchema = object(
  {
    url: withRules(
      string(
        'Base URL of the Prometheus HTTP API, e.g. http://prometheus.monitoring:9090 (no credentials in it).',
        { pattern: HTTP_BASE_URL, maxLength: MAX_URL_LENGTH },
      ),
      // Forbidden, not Invalid: the value (a password) is never echoed.
      [
        {
          rule: "!self.matches('^[A-Za-z]+://[^/?#]*@')",
          message: 'must not contain credentials; put them in credentialsSecretRef',
          reason: 'FieldValueForbidden',
        },
      ],
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
    query: string('PromQL expression, evaluated as an instant query.', { maxLength: 4096, pattern: '\\S' }),
    operator: stringEnum(
      METRIC_GATE_OPERATORS,
      'Every sample must satisfy `value <operator> threshold`; NoSeries: the query must return no series.',
    ),
    threshold: optional(number('The value compared with; required unless operator is NoSeries.')),
  },
  'A query that must hold; a result without a value (no series, NaN) holds the rollout.',
  {
    'x-kubernetes-validations': [
      {
        rule: "self.operator != 'NoSeries' || !has(self.threshold)",
        message: 'may not be set when operator is NoSeries',
        fieldPath: '.threshold',
        reason: 'FieldValueForbidden',
      },
      {
        rule: "self.operator == 'NoSeries' || has(self.threshold)",
        message: 'required unless operator is NoSeries',
        fieldPath: '.threshold',
        reason: 'FieldValueRequired',
      },
    ],
  },
);

/** The placeholder a comparison gate's query carries where each side's node matcher goes. */
export const COMPARE_NODES_PLACEHOLDER = '$NODES';
export const COMPARE_WORSE_WHEN = ['Higher', 'Lower'] as const;
export const COMPARE_MARGIN_UNITS = ['Percent', 'Absolute'] as const;

export const compareGateSchema = object(
  {
    name: string('Name of the gate, shown in conditions and Events.', {
      pattern: DNS1123_LABEL,
      maxLength: 63,
    }),
    query: string(
      'PromQL instant vector with one series per node, with `$NODES` where the node matcher goes, e.g. `rate(http_errors_total{$NODES}[5m])`. It is asked twice, with `$NODES` replaced by `<nodeLabel>=~"<updated nodes>"` and by the same over the nodes not yet updated (sent as a POST form: the matcher may be long).',
      { maxLength: 4096 },
    ),
    nodeLabel: defaulted(
      string(
        'The series label that holds the node name (a node exporter scraped by pod usually has `node`; by host, `instance` may need relabelling to the node name).',
        {
          pattern: '^[a-zA-Z_][a-zA-Z0-9_]*$',
          maxLength: 128,
        },
      ),
      'node',
    ),
    worseWhen: defaulted(
      stringEnum(
        COMPARE_WORSE_WHEN,
        'Higher: a higher value is worse (errors, latency); Lower: a lower value is worse (throughput).',
      ),
      'Higher',
    ),
    margin: number('How much worse the updated nodes’ mean may be than the others’ before the gate fails.', {
      minimum: 0,
    }),
    marginUnit: defaulted(
      stringEnum(
        COMPARE_MARGIN_UNITS,
        'Percent: of the not-yet-updated nodes’ mean; Absolute: in the query’s unit.',
      ),
      'Percent',
    ),
    minNodes: defaulted(
      integer(
        'Nodes with a value each side needs before the gate judges; fewer: it neither passes on their word nor fails (it says “not judged” and does not hold the rollout).',
        {
          minimum: 1,
          maximum: 1000,
        },
      ),
      3,
    ),
  },
  'Updated nodes judged against the nodes not yet updated, with the same query over each set.',
);

export const alertGateSchema = object(
  {
    alertname: optional(
      withRules(
        string('RE2 regular expression the alert name must match in full; absent: any name.', {
          maxLength: 1024,
        }),
        // There is no CEL function that says whether a pattern compiles; matching it does, and an
        // error refuses the object.
        [{ rule: "''.matches(self) in [true, false]", message: 'must be an RE2 regular expression' }],
      ),
    ),
    matchLabels: optional(
      stringMap('Labels the alert must carry with exactly these values.', { maxProperties: 64 }),
    ),
  },
  'Firing alerts that block: an alert matching every field given.',
);

export const maintenanceWindowSchema = object(
  {
    schedule: string('Cron expression (5 fields, or @daily, @weekly, ...) for when a window opens.', {
      pattern: CRON,
      maxLength: 256,
    }),
    duration: withRules(
      string('How long the window stays open, e.g. 4h or 90m.', { pattern: DURATION, maxLength: 64 }),
      [{ rule: "duration(self) >= duration('1m')", message: 'must be at least 1m' }],
    ),
    timeZone: defaulted(
      withRules(
        string(
          'IANA time zone the schedule is read in, e.g. Europe/Berlin; daylight saving time is followed (a time skipped by the spring-forward jump opens the window right after the jump; a time repeated by fall-back opens it once).',
          // Not a fixed offset: offsets ignore daylight saving time.
          { pattern: '^[A-Za-z]', maxLength: 64 },
        ),
        // An unknown zone makes getHours fail, which refuses the object (Go's "Local" is no IANA zone).
        [
          {
            rule: "self != 'Local' && timestamp('2000-01-01T00:00:00Z').getHours(self) >= 0",
            message: 'must be an IANA time zone such as Europe/Berlin',
          },
        ],
      ),
      'UTC',
    ),
  },
  'A window in which batches may start; progress resumes in the next window. The duration is elapsed time.',
);

export const rollingUpdateSchema = object(
  {
    maxUnavailable: defaulted(
      positiveIntOrPercent(
        'Nodes (or % of the pool, rounded down, at least 1) unavailable at once, for any reason.',
      ),
      1,
    ),
    maxUnavailablePerZone: optional(positiveIntOrPercent('Cap of unavailable nodes per zone (number or %).')),
    zoneLabel: defaulted(
      string('Node label that names a node’s zone.', { maxLength: 317 }),
      'topology.kubernetes.io/zone',
    ),
    canary: optional(
      object(
        {
          nodes: positiveIntOrPercent(
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
            array(metricGateSchema, 'Queries checked before a batch starts and throughout each soak.', {
              ...keyedBy('name'),
              maxItems: 32,
            }),
          ),
          compare: optional(
            array(
              compareGateSchema,
              'Comparisons of updated nodes with the rest, checked before a batch starts and throughout each soak.',
              keyedBy('name'),
            ),
          ),
          alerts: optional(
            array(
              alertGateSchema,
              'A firing alert matching any of these is a failure (pending alerts are not).',
              {
                maxItems: 32,
              },
            ),
          ),
        },
        'Checked after every batch, besides Node readiness and the units’ health probes. Metric and alert gates (RollingUpdate only) are checked before a batch starts and throughout each soak: a failing one is a failure for failurePolicy, one that cannot be evaluated holds the rollout.',
        {
          'x-kubernetes-validations': [
            {
              rule: `!(${ASKS_PROMETHEUS}) || has(self.prometheus)`,
              message: 'metrics, compare and alerts need the Prometheus server to ask',
              fieldPath: '.prometheus',
              reason: 'FieldValueRequired',
            },
            {
              rule: `!has(self.prometheus) || ${ASKS_PROMETHEUS}`,
              message: 'prometheus is set, but no metrics, compare or alerts use it',
              fieldPath: '.metrics',
              reason: 'FieldValueRequired',
            },
          ],
        },
      ),
    ),
    maintenanceWindows: optional(
      array(maintenanceWindowSchema, 'When set, batches start only inside a window.', { maxItems: 16 }),
    ),
  },
  'Batches chosen by the controller.',
  {
    'x-kubernetes-validations': [
      {
        rule: '!has(self.minReadySeconds) || !has(self.progressDeadlineSeconds) || self.progressDeadlineSeconds > self.minReadySeconds',
        message: 'must be greater than minReadySeconds',
        fieldPath: '.progressDeadlineSeconds',
      },
    ],
  },
);

/** Most webhooks one pool may name. */
export const MAX_NOTIFICATION_WEBHOOKS = 8;

/** Most pools one pool may wait for. */
export const MAX_WAVE_PREDECESSORS = 32;

export const waveSchema = object(
  {
    after: array(
      string('A NodeConfigPool name.', { maxLength: MAX_POOL_NAME_LENGTH, pattern: DNS1123_LABEL }),
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
            positiveIntOrPercent(
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
  { 'x-kubernetes-validations': updateStrategyRules() },
);

/**
 * Rules at the root of a NodeConfigPool, where CEL sees metadata.name: a pool cannot wait for itself.
 */
export const NODE_CONFIG_POOL_RULES: Rule[] = [
  {
    rule: '!has(self.spec.updateStrategy) || !has(self.spec.updateStrategy.wave) || !(self.metadata.name in self.spec.updateStrategy.wave.after)',
    message: 'a pool cannot wait for itself',
    fieldPath: '.spec.updateStrategy.wave.after',
  },
];

/**
 * metadata.name of a pool, as the CRD restricts it (kube allows a schema for name and generateName at
 * the root): a pool's name is a label value on nodes and revisions, and prefixes revision names.
 */
export const poolNameSchema = string('Name of the pool: a DNS-1123 label.', {
  pattern: DNS1123_LABEL,
  maxLength: MAX_POOL_NAME_LENGTH,
});

export const nodeConfigPoolSpecSchema = withRules(
  object(
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
      prestage: prestageSchema,
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
                      { pattern: NORMALISED_PATH, maxLength: MAX_PATH_LENGTH },
                    ),
                    DEFAULT_REBOOT_SENTINEL_FILE,
                  ),
                  sentinelCommand: optional(
                    withRules(
                      array(
                        string('A program (absolute path) or one of its arguments.', {
                          maxLength: MAX_SENTINEL_ARGUMENT_LENGTH,
                          pattern: NO_NUL,
                        }),
                        'Also ask this command, e.g. ["/usr/bin/needs-restarting", "-r"]: exit code 1 means a reboot is needed, 0 not, anything else is a failed check. Run without a shell, with an empty environment but PATH, as root on the node (in the node’s namespaces in DaemonSet mode), with a timeout and bounded output.',
                        { minItems: 1, maxItems: MAX_SENTINEL_ARGUMENTS },
                      ),
                      [
                        {
                          // No PATH lookup: the program is the one named (the validators say the same, at [0]; kube's
                          // fieldPath cannot name a list index).
                          rule: `self[0].matches('${NORMALISED_PATH.replace(/\\/g, '\\\\')}')`,
                          message:
                            'the program must be an absolute, normalised path (it is run without a shell or PATH)',
                          reason: 'FieldValueInvalid',
                        },
                      ],
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
      drain: optional(drainSchema),
      rolloutOrder: optional(rolloutOrderSchema),
      notifications: optional(
        object(
          {
            webhooks: array(
              string(
                'Name of a Secret in namespace nodeherd labelled nodeherd.io/notification-webhook="true" (an administrator’s; it holds the URL, format and credentials).',
                { pattern: DNS1123_SUBDOMAIN, maxLength: 253 },
              ),
              'Webhooks told of this pool’s rollout events: started, batch done, paused, failed, rolled back, complete, drain blocked, reboot.',
              { maxItems: MAX_NOTIFICATION_WEBHOOKS, 'x-kubernetes-list-type': 'set' },
            ),
          },
          'Notifications of rollout events. A pool only names webhooks an administrator configured; it never chooses where the controller sends requests.',
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
  ),
  [
    {
      // Reboot rounds run through RollingUpdate's batches (docs/controller.md, "Reboot rounds").
      rule: "!has(self.reboots) || !has(self.reboots.osRequested) || !has(self.reboots.osRequested.policy) || self.reboots.osRequested.policy != 'Reboot' || !has(self.updateStrategy) || !has(self.updateStrategy.type) || self.updateStrategy.type == 'RollingUpdate'",
      message: 'Reboot is supported only with updateStrategy.type RollingUpdate; use Report',
      fieldPath: '.reboots.osRequested.policy',
      reason: 'FieldValueForbidden',
    },
    PRESTAGE_STRATEGY_RULE,
    DRAIN_TIMEOUT_RULE,
    PREFER_NO_SCHEDULE_NEXT_RULE,
  ],
);

// The status's schema lives in node-config-pool-status-schema.ts (this file stays under 700 lines).
export {
  nodeConfigPoolStatusSchema,
  poolRevisionStatusSchema,
  ROLLOUT_RESULTS,
  renderConflictSchema,
  rolloutRecordSchema,
} from './node-config-pool-status-schema.ts';

// NodeConfigPool: which nodes get which NodeConfigs, and how a new revision is rolled out across them.

import { conditionsSchema, labelSelectorSchema } from './common-schemas.ts';
import { MAX_POOL_NAME_LENGTH } from './limits.ts';
import { DRIFT_POLICIES } from './node-protocol.ts';
import {
  array,
  boolean,
  dateTime,
  defaulted,
  integer,
  intOrString,
  object,
  optional,
  string,
  stringEnum,
} from './schema-builder.ts';

export const UPDATE_STRATEGY_TYPES = ['RollingUpdate', 'Serial', 'Spread', 'OnDelete', 'OTA'] as const;

/** NodeConfigPool condition types the controller maintains. */
export const POOL_CONDITION_TYPES = [
  'Progressing',
  'Paused',
  'Degraded',
  'RolledBack',
  'Complete',
  'RenderDegraded',
] as const;

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
        { nodes: intOrString('Nodes (or %) in the first batch, which must pass the health gate alone.') },
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
          podSelector: optional(labelSelectorSchema),
        },
        'Checked after every batch, besides Node readiness and the units’ health probes.',
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
        'Agents take turns through a Lease semaphore; works while the controller is down.',
      ),
    ),
    spread: optional(
      object(
        { windowSeconds: integer('Every node gets an evenly spaced slot in this window.', { minimum: 1 }) },
        'Deterministic, evenly spaced start times.',
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

// NodeConfigPool's status: what the controller observed and did, the rollout history, and the
// episodes of each node (pool-episodes-schema.ts). The spec's schema is node-config-pool-schema.ts.

import { conditionsSchema } from './common-schemas.ts';
import { episodesDroppedBeforeSchema, poolEpisodesSchema } from './pool-episodes-schema.ts';
import { array, dateTime, integer, object, optional, string, stringEnum } from './schema-builder.ts';

export const ROLLOUT_RESULTS = ['InProgress', 'Complete', 'RolledBack', 'Failed', 'Superseded'] as const;

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
      'Nodes not on the target revision that have not started: waiting for their batch, a slot, their start time, a hold, a resume or a maintenance window.',
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
    episodes: optional(poolEpisodesSchema),
    episodesDroppedBefore: optional(episodesDroppedBeforeSchema),
    conflicts: optional(array(renderConflictSchema, 'Why the latest configs could not be rendered.')),
  },
  'Observed state, written by the controller.',
);

// spec.drain of a NodeConfigPool: how the controller drains the pool's nodes, and what a drain that
// cannot finish does (docs/operations.md, "Drains"). Its own file: node-config-pool-schema.ts is at
// its size cap.

import { describedSelector } from './common-schemas.ts';
import { boolean, defaulted, integer, object, optional, type Rule, stringEnum } from './schema-builder.ts';

/** What a drain that cannot finish in drain.timeoutSeconds does. */
export const DRAIN_TIMEOUT_ACTIONS = ['Fail', 'Skip', 'Force'] as const;

/** Default of spec.drain.maxSkipped. */
export const DEFAULT_MAX_SKIPPED = 1;

/** progressDeadlineSeconds when the pool sets none (the schema's default). */
const DEFAULT_PROGRESS_DEADLINE_SECONDS = 600;

export const drainSchema = object(
  {
    timeoutSeconds: optional(
      integer(
        'Seconds a drain may try evictions before onTimeout acts (Skip or Force; required by them, and less than progressDeadlineSeconds). Absent: the drain runs until progressDeadlineSeconds fails the node, as with Fail.',
        { minimum: 1 },
      ),
    ),
    gracePeriodSeconds: optional(
      integer(
        'Grace period given to each evicted (or, with Force, deleted) pod instead of its own terminationGracePeriodSeconds.',
        { minimum: 0 },
      ),
    ),
    skipPodSelector: optional(
      describedSelector('Pods the drain leaves on the node (neither evicted nor waited for).'),
    ),
    deleteEmptyDirData: defaulted(
      boolean(
        'Evict pods with emptyDir volumes (their data is lost), like kubectl drain --delete-emptydir-data. False: such a pod blocks the drain (Force deletes it after the timeout).',
      ),
      true,
    ),
    onTimeout: defaulted(
      stringEnum(
        DRAIN_TIMEOUT_ACTIONS,
        'Fail: keep trying; the node fails at progressDeadlineSeconds (the failure policy acts). Skip: after timeoutSeconds the node stays cordoned, labelled nodeherd.io/drain-skipped and counted as unavailable while its drain goes on, and the rollout goes on without it (up to maxSkipped nodes; the pool is Degraded); beyond maxSkipped a node fails as with Fail. Force: after timeoutSeconds, delete the pods whose eviction is refused, except pods a PodDisruptionBudget protects unless forceDeleteBudgetedPods.',
      ),
      'Fail',
    ),
    maxSkipped: optional(
      integer(
        `With Skip: the most nodes skipped at once (default ${DEFAULT_MAX_SKIPPED}); a drain timing out beyond it fails its node as with Fail.`,
        { minimum: 1 },
      ),
    ),
    forceDeleteBudgetedPods: defaulted(
      boolean('With Force, also delete pods a PodDisruptionBudget protects (the budget is then violated).'),
      false,
    ),
  },
  'How the controller drains this pool’s nodes (wherever the controller drains: a change whose plan says Drain or Reboot).',
  {
    'x-kubernetes-validations': [
      {
        rule: "!has(self.onTimeout) || self.onTimeout == 'Fail' || has(self.timeoutSeconds)",
        message: 'onTimeout Skip and Force need a timeout',
        fieldPath: '.timeoutSeconds',
        reason: 'FieldValueRequired',
      },
      {
        rule: "!has(self.maxSkipped) || (has(self.onTimeout) && self.onTimeout == 'Skip')",
        message: 'may only be set when onTimeout is Skip',
        fieldPath: '.maxSkipped',
        reason: 'FieldValueForbidden',
      },
      {
        rule: "!has(self.forceDeleteBudgetedPods) || !self.forceDeleteBudgetedPods || (has(self.onTimeout) && self.onTimeout == 'Force')",
        message: 'may only be set when onTimeout is Force',
        fieldPath: '.forceDeleteBudgetedPods',
        reason: 'FieldValueForbidden',
      },
    ],
  },
);

/**
 * At the pool's spec, where the progress deadline is seen: Skip and Force act before the deadline, or
 * the node fails first and they never do.
 */
export const DRAIN_TIMEOUT_RULE: Rule = {
  rule: `!has(self.drain) || !has(self.drain.timeoutSeconds) || !has(self.drain.onTimeout) || self.drain.onTimeout == 'Fail' || self.drain.timeoutSeconds < (has(self.updateStrategy) && has(self.updateStrategy.rollingUpdate) && has(self.updateStrategy.rollingUpdate.progressDeadlineSeconds) ? self.updateStrategy.rollingUpdate.progressDeadlineSeconds : ${DEFAULT_PROGRESS_DEADLINE_SECONDS})`,
  message:
    'must be less than rollingUpdate.progressDeadlineSeconds: the node fails at the deadline before onTimeout could act',
  fieldPath: '.drain.timeoutSeconds',
  reason: 'FieldValueInvalid',
};

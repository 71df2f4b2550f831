// spec.rolloutOrder of a NodeConfigPool: the order in which its nodes take their turn, and whether the
// next batch is tainted PreferNoSchedule while the current one drains (docs/operations.md, "Order,
// and moving pods once"). Its own file: node-config-pool-schema.ts is at its size cap.

import { enumAt, type FieldErrors, objectAt, stringAt } from './field-errors.ts';
import { labelKeyProblem } from './label-selector.ts';
import { LABEL_KEY } from './patterns.ts';
import { boolean, defaulted, object, optional, type Rule, string, stringEnum } from './schema-builder.ts';

/**
 * Interleaved: zones interleaved, names within a zone (a1, b1, a2, b2: the default). Zone: one zone
 * after the other. Label: by a node label's value. FewestPods: the nodes with the fewest pods a drain
 * would evict first.
 */
export const ROLLOUT_ORDERS = ['Interleaved', 'Zone', 'Label', 'FewestPods'] as const;
export type RolloutOrderBy = (typeof ROLLOUT_ORDERS)[number];

/** The taint the next batch carries with preferNoScheduleNext (effect PreferNoSchedule). */
export const NEXT_IN_LINE_TAINT_KEY = 'nodeherd.io/next-in-line';

export const rolloutOrderSchema = object(
  {
    by: defaulted(
      stringEnum(
        ROLLOUT_ORDERS,
        'Interleaved (default): zones interleaved, node names within a zone. Zone: one zone after the other, zones and nodes by name. Label: by the value of the node label `label` (numbers as numbers; nodes without it last). FewestPods: the nodes with the fewest pods a drain would evict first (recomputed at every decision). Ties go by the Interleaved order.',
      ),
      'Interleaved',
    ),
    label: optional(
      string('The node label whose value orders the nodes (by: Label).', {
        pattern: LABEL_KEY,
        maxLength: 317,
      }),
    ),
    preferNoScheduleNext: defaulted(
      boolean(
        `RollingUpdate: while a batch drains, the next batch carries the taint ${NEXT_IN_LINE_TAINT_KEY}:PreferNoSchedule, so evicted pods prefer nodes already done and are not moved twice. The taint goes when the node's turn comes, or the rollout pauses, rolls back or is replanned.`,
      ),
      false,
    ),
  },
  'The order in which the pool’s nodes take their turn (all strategies that go in line: RollingUpdate, Serial, Spread, OnDelete’s upgrades).',
  {
    'x-kubernetes-validations': [
      {
        rule: "(has(self.by) && self.by == 'Label') == has(self.label)",
        message: 'label is required with by: Label, and only then',
        fieldPath: '.label',
        reason: 'FieldValueInvalid',
      },
    ],
  },
);

/** At the pool's spec, where the strategy is seen: preferNoScheduleNext is RollingUpdate's. */
export const PREFER_NO_SCHEDULE_NEXT_RULE: Rule = {
  rule: "!has(self.rolloutOrder) || !has(self.rolloutOrder.preferNoScheduleNext) || !self.rolloutOrder.preferNoScheduleNext || !has(self.updateStrategy) || !has(self.updateStrategy.type) || self.updateStrategy.type == 'RollingUpdate'",
  message: 'preferNoScheduleNext is supported only with updateStrategy.type RollingUpdate',
  fieldPath: '.rolloutOrder.preferNoScheduleNext',
  reason: 'FieldValueForbidden',
};

/** spec.rolloutOrder, as the validator checks it (the CRD's rules, with nodeherd's messages). */
export function validateRolloutOrder(
  errors: FieldErrors,
  at: string,
  value: unknown,
  strategyType: unknown,
): void {
  const order = objectAt(errors, at, value);
  if (!order) return;
  const by = enumAt(errors, `${at}.by`, order.by, ROLLOUT_ORDERS) ?? 'Interleaved';
  const label = stringAt(errors, `${at}.label`, order.label);
  if (by === 'Label' && label === undefined) errors.required(`${at}.label`, 'by: Label needs the label');
  else if (by !== 'Label' && label !== undefined)
    errors.forbidden(`${at}.label`, 'may only be set with by: Label');
  else if (label !== undefined && labelKeyProblem(label))
    errors.invalid(`${at}.label`, label, labelKeyProblem(label)!);
  const next = order.preferNoScheduleNext;
  if (next !== undefined && next !== null && typeof next !== 'boolean')
    errors.typeInvalid(`${at}.preferNoScheduleNext`, next, 'a boolean');
  else if (next === true && (strategyType ?? 'RollingUpdate') !== 'RollingUpdate')
    errors.forbidden(
      `${at}.preferNoScheduleNext`,
      'supported only with updateStrategy.type RollingUpdate (the other strategies do not drain in batches of the controller)',
    );
}

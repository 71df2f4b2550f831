// Schemas of Kubernetes meta types that nodeherd objects embed.

import { LABEL_KEY, LABEL_VALUE } from './patterns.ts';
import {
  array,
  dateTime,
  integer,
  object,
  optional,
  string,
  stringEnum,
  stringMap,
  withRules,
} from './schema-builder.ts';

/** Bounds of a selector, so its CEL rules fit kube's cost budget. */
const MAX_SELECTOR_LABELS = 64;
const MAX_SELECTOR_VALUES = 256;

/** A label key: prefix (DNS subdomain, at most 253) / name (at most 63). */
const labelKey = (description: string) =>
  withRules(string(description, { pattern: LABEL_KEY, maxLength: 317 }), [
    {
      rule: "!self.contains('/') || self.indexOf('/') <= 253",
      message: 'prefix must be at most 253 characters',
    },
  ]);
const labelValue = (description: string) => string(description, { pattern: LABEL_VALUE, maxLength: 63 });

export const labelSelectorRequirementSchema = object(
  {
    key: labelKey('Label key.'),
    operator: stringEnum(['In', 'NotIn', 'Exists', 'DoesNotExist'], 'How the key relates to the values.'),
    values: optional(
      array(labelValue('A value.'), 'Values; non-empty for In and NotIn, empty otherwise.', {
        maxItems: MAX_SELECTOR_VALUES,
      }),
    ),
  },
  'A label selector requirement.',
  {
    'x-kubernetes-validations': [
      {
        rule: "!(self.operator in ['In', 'NotIn']) || (has(self.values) && size(self.values) > 0)",
        message: "must be specified when `operator` is 'In' or 'NotIn'",
        fieldPath: '.values',
        reason: 'FieldValueRequired',
      },
      {
        rule: "!(self.operator in ['Exists', 'DoesNotExist']) || !has(self.values) || size(self.values) == 0",
        message: "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        fieldPath: '.values',
        reason: 'FieldValueForbidden',
      },
    ],
  },
);

/** metav1.LabelSelector. An empty selector selects everything. */
export const labelSelectorSchema = object(
  {
    // Keys are checked by nodeherd only: kube estimates a map key's length from the request size, so a
    // rule matching keys against a pattern is far over its cost budget (a bad key selects nothing).
    matchLabels: optional(
      stringMap('Labels that must all match exactly.', {
        additionalProperties: { type: 'string', pattern: LABEL_VALUE, maxLength: 63 },
        maxProperties: MAX_SELECTOR_LABELS,
      }),
    ),
    matchExpressions: optional(
      array(labelSelectorRequirementSchema, 'Requirements that must all hold.', {
        maxItems: MAX_SELECTOR_LABELS,
      }),
    ),
  },
  'A label selector (metav1.LabelSelector); requirements are ANDed; an empty selector selects everything.',
  { 'x-kubernetes-map-type': 'atomic' },
);

/** The label selector schema with a description of what this selector picks. */
export function describedSelector(description: string): typeof labelSelectorSchema {
  return { ...labelSelectorSchema, json: { ...labelSelectorSchema.json, description } };
}

/** metav1.Condition, with the constraints Kubernetes' own CRDs declare for it. */
export const conditionSchema = object(
  {
    type: string('Type of the condition, in CamelCase.', {
      maxLength: 316,
      pattern:
        '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
    }),
    status: stringEnum(['True', 'False', 'Unknown'], 'Condition status.'),
    observedGeneration: integer('metadata.generation the condition was computed for.', { minimum: 0 }),
    lastTransitionTime: dateTime('When the status last changed.'),
    reason: string('CamelCase reason for the last transition.', {
      minLength: 1,
      maxLength: 1024,
      pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
    }),
    message: string('Human-readable details; may be empty.', { maxLength: 32768 }),
  },
  'A status condition (metav1.Condition).',
);

export const conditionsSchema = array(conditionSchema, 'Conditions, one per type.', {
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
});

// Schemas of Kubernetes meta types that nodeherd objects embed.

import {
  array,
  dateTime,
  integer,
  object,
  optional,
  string,
  stringEnum,
  stringMap,
} from './schema-builder.ts';

export const labelSelectorRequirementSchema = object(
  {
    key: string('Label key.'),
    operator: stringEnum(['In', 'NotIn', 'Exists', 'DoesNotExist'], 'How the key relates to the values.'),
    values: optional(array(string('A value.'), 'Values; non-empty for In and NotIn, empty otherwise.')),
  },
  'A label selector requirement.',
);

/** metav1.LabelSelector. An empty selector selects everything. */
export const labelSelectorSchema = object(
  {
    matchLabels: optional(stringMap('Labels that must all match exactly.')),
    matchExpressions: optional(array(labelSelectorRequirementSchema, 'Requirements that must all hold.')),
  },
  'A label selector (metav1.LabelSelector); requirements are ANDed; an empty selector selects everything.',
  { 'x-kubernetes-map-type': 'atomic' },
);

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

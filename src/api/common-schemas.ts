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

/** metav1.Condition. */
export const conditionSchema = object(
  {
    type: string('Condition type.'),
    status: stringEnum(['True', 'False', 'Unknown'], 'Condition status.'),
    reason: optional(string('CamelCase reason for the last transition.')),
    message: optional(string('Human-readable details.')),
    lastTransitionTime: optional(dateTime('When the status last changed.')),
    observedGeneration: optional(integer('Generation the condition was computed for.')),
  },
  'A status condition (metav1.Condition).',
);

export const conditionsSchema = array(conditionSchema, 'Conditions, one per type.', {
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
});

// Event (core/v1): its definition, columns (LAST SEEN from the series, lastTimestamp or eventTime) and
// field selectors, its time fields, path-segment names and protobuf message. events.k8s.io/v1 Events
// are a view over this kind's storage (kinds/events/event.ts) and share its columns.

import { builtinPatchMeta } from '../../patch/builtin-patch-meta.ts';
import { Event } from '../../protobuf/core-v1.ts';
import type {
  JSONSchemaProps,
  PrinterColumn,
  ResourceDefinition,
} from '../../registry/resource-definition.ts';
import { t } from '../../schema/builtin-decoding.ts';
import { validatePathSegmentName } from '../../schema/names.ts';
import type { KubeObject } from '../../storage/types.ts';
import type { BuiltinKind } from '../builtin-kind.ts';
import { assertEventSize, eventMessageCauses } from '../shared/message-limits.ts';
import { at, text } from '../shared/readers.ts';
import { builtin, int, kindSchema, open, str } from '../shared/schemas.ts';

/** LAST SEEN of an event: its series' last observation, else lastTimestamp, else eventTime. */
function eventLastSeen(event: KubeObject): string {
  return text(
    event.series?.lastObservedTime ||
      event.lastTimestamp ||
      event.deprecatedLastTimestamp ||
      event.eventTime ||
      event.metadata?.creationTimestamp,
  );
}

function eventObject(ref: KubeObject | undefined): string {
  return `${text(ref?.kind).toLowerCase()}/${text(ref?.name)}`;
}

export const eventColumns = (regarding: string, note: string): PrinterColumn[] => [
  {
    name: 'Last Seen',
    type: 'date',
    jsonPath: '.lastTimestamp',
    description: 'When the event was last observed.',
    compute: eventLastSeen,
  },
  { name: 'Type', type: 'string', jsonPath: '.type', description: 'Type of this event (Normal, Warning).' },
  { name: 'Reason', type: 'string', jsonPath: '.reason', description: 'Why the action was taken.' },
  {
    name: 'Object',
    type: 'string',
    jsonPath: `.${regarding}.name`,
    description: 'The object this event is about.',
    compute: (e) => eventObject(e[regarding]),
  },
  { name: 'Message', type: 'string', jsonPath: `.${note}`, description: 'A human-readable description.' },
];

const coreEventFields: Record<string, JSONSchemaProps> = {
  action: str('What action was taken/failed regarding to the Regarding object.'),
  count: int('The number of times this event has occurred.'),
  eventTime: str('Time when this Event was first observed.'),
  firstTimestamp: str('The time at which the event was first recorded.'),
  involvedObject: open('The object that this event is about.'),
  lastTimestamp: str('The time at which the most recent occurrence of this event was recorded.'),
  message: str('A human-readable description of the status of this operation.'),
  reason: str(
    "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
  ),
  related: open('Optional secondary object for more complex actions.'),
  reportingComponent: str('Name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`.'),
  reportingInstance: str('ID of the controller instance, e.g. `kubelet-xyzf`.'),
  series: open("Data about the Event series this event represents or nil if it's a singleton Event."),
  source: open('The component reporting this event.'),
  type: str('Type of this event (Normal, Warning), new types could be added in the future'),
};

/**
 * An Event's field selectors in one version's spelling: the object it is about (core: involvedObject,
 * events.k8s.io: regarding), who reported it (reportingComponent, reportingController) and the old
 * source (source, deprecatedSource); kube maps each version's spellings onto the same stored fields.
 */
export function eventSelectors(
  regarding: string,
  reporting: string,
  source: string,
): ResourceDefinition['selectableFields'] {
  const parts = ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'];
  return {
    ...Object.fromEntries(parts.map((part) => [`${regarding}.${part}`, at(regarding, part)])),
    reason: at('reason'),
    [reporting]: at(reporting),
    source: (e) => text(e[source]?.component) || text(e[reporting]),
    type: at('type'),
  };
}

export const coreEventKind: BuiltinKind = {
  definitions: () => [
    builtin({
      group: '',
      version: 'v1',
      resource: 'events',
      kind: 'Event',
      namespaced: true,
      shortNames: ['ev'],
      schema: kindSchema('Event is a report of an event somewhere in the cluster.', coreEventFields),
      printerColumns: eventColumns('involvedObject', 'message'),
      selectableFields: eventSelectors('involvedObject', 'reportingComponent', 'source'),
      patchMeta: builtinPatchMeta('Event'),
    }),
  ],
  decoding: {
    times: [
      t('firstTimestamp'),
      t('lastTimestamp'),
      t('eventTime', 'MicroTime'),
      t('series.lastObservedTime', 'MicroTime'),
    ],
  },
  strategies: () => [
    {
      // A message too long is named as such; an Event too large otherwise is refused whole.
      validate: (event, old) => {
        const causes = eventMessageCauses(event, old);
        if (causes.length === 0) assertEventSize(event, old);
        return causes;
      },
    },
  ],
  validateName: validatePathSegmentName,
  protobuf: { 'v1/Event': Event },
};

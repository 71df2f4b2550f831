// Event (events.k8s.io/v1): served from the core Event store, as in kube (one key space, two views);
// objects convert each way on the way in and out (event-conversion.ts). Writes run the core Event's
// rules, since they are stored as core Events.

import { builtinPatchMeta } from '../../patch/builtin-patch-meta.ts';
import { Event } from '../../protobuf/groups.ts';
import type { JSONSchemaProps } from '../../registry/resource-definition.ts';
import type { BuiltinKind } from '../builtin-kind.ts';
import { eventColumns, eventSelectors } from '../core/event.ts';
import { builtin, int, kindSchema, open, str } from '../shared/schemas.ts';
import { coreToEventsV1, eventsV1ToCore } from './event-conversion.ts';

const eventsV1Fields: Record<string, JSONSchemaProps> = {
  action: str('action is what action was taken/failed regarding to the regarding object.'),
  deprecatedCount: int(
    'deprecatedCount is the deprecated field assuring backward compatibility with core.v1 Event type.',
  ),
  deprecatedFirstTimestamp: str(
    'deprecatedFirstTimestamp is the deprecated field assuring backward compatibility with core.v1 Event type.',
  ),
  deprecatedLastTimestamp: str(
    'deprecatedLastTimestamp is the deprecated field assuring backward compatibility with core.v1 Event type.',
  ),
  deprecatedSource: open(
    'deprecatedSource is the deprecated field assuring backward compatibility with core.v1 Event type.',
  ),
  eventTime: str('eventTime is the time when this Event was first observed. It is required.'),
  note: str('note is a human-readable description of the status of this operation.'),
  reason: str('reason is why the action was taken. It is human-readable.'),
  regarding: open('regarding contains the object this Event is about.'),
  related: open('related is the optional secondary object for more complex actions.'),
  reportingController: str(
    'reportingController is the name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`.',
  ),
  reportingInstance: str('reportingInstance is the ID of the controller instance, e.g. `kubelet-xyzf`.'),
  series: open(
    "series is data about the Event series this event represents or nil if it's a singleton Event.",
  ),
  type: str('type is the type of this event (Normal, Warning), new types could be added in the future.'),
};

export const eventsV1EventKind: BuiltinKind = {
  definitions: () => [
    builtin({
      group: 'events.k8s.io',
      version: 'v1',
      resource: 'events',
      kind: 'Event',
      namespaced: true,
      shortNames: ['ev'],
      schema: kindSchema('Event is a report of an event somewhere in the cluster.', eventsV1Fields),
      printerColumns: eventColumns('regarding', 'note'),
      // events.k8s.io/v1 accepts its own spellings, not the core ones.
      selectableFields: eventSelectors('regarding', 'reportingController', 'deprecatedSource'),
      patchMeta: builtinPatchMeta('Event'),
    }),
  ],
  storedAs: { group: '', resource: 'events', toStorage: eventsV1ToCore, fromStorage: coreToEventsV1 },
  protobuf: { 'events.k8s.io/v1/Event': Event },
};

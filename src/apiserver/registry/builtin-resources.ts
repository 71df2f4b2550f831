// The kinds compiled into the server, described as kube-apiserver 1.32 serves them: names, short
// names, verbs, subresources, field selectors and the Table columns kubectl's built-in printers show.
//
// metadata.generation: kube bumps it only for kinds with a spec/status split whose strategy tracks
// it. Of ours that is DaemonSet, PodDisruptionBudget and CustomResourceDefinition. Pods only gained
// generation tracking in 1.33 (KEP-5067), after the version we report, so they do not track it here.
//
// Schemas: built-ins carry a top-level schema that names their real top-level fields (so a typo such
// as `spce:` is caught by strict field validation, as kube does) and leaves the nested structures
// open (x-kubernetes-preserve-unknown-fields). kubectl computes strategic merge patches for these
// kinds from its compiled-in types, never from these schemas (see docs/kubectl-compatibility.md).

import type { KubeObject } from '../storage/types.ts';
import { coreToEventsV1, eventsV1ToCore } from './event-conversion.ts';
import type { JSONSchemaProps, PrinterColumn, ResourceDefinition, Verb } from './resource-definition.ts';

const ALL_VERBS: Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
// Namespaces cannot be deleted as a collection in kube.
const NAMESPACE_VERBS: Verb[] = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

// ---------------------------------------------------------------------------------------------------
// Small readers shared by the printers and field selectors.

const NONE = '<none>';

const text = (value: unknown): string =>
  typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);

const count = (value: unknown): number =>
  Array.isArray(value) ? value.length : value && typeof value === 'object' ? Object.keys(value).length : 0;

const timeOf = (value: unknown): number => (typeof value === 'string' ? Date.parse(value) : Number.NaN);

/** kube's duration.HumanDuration: the compact age kubectl shows ("5m", "3h20m", "2d"). */
export function humanDuration(milliseconds: number): string {
  // Go truncates toward zero: -1.5s is "0s", not "<invalid>".
  const seconds = Math.trunc(milliseconds / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${hours / 24}d` : `${Math.floor(hours / 24)}d${hours % 24}h`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 365 * 2) return `${days}d`;
  if (hours < 24 * 365 * 8)
    return days % 365 === 0 ? `${days / 365}y` : `${Math.floor(days / 365)}y${days % 365}d`;
  return `${Math.floor(days / 365)}y`;
}

// ---------------------------------------------------------------------------------------------------
// Printers (kubernetes pkg/printers/internalversion), one function per computed cell.

const age: PrinterColumn = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
};

function nodeStatus(node: KubeObject): string {
  const ready = (node.status?.conditions ?? []).find((c: KubeObject) => c?.type === 'Ready');
  const parts = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (node.spec?.unschedulable === true) parts.push('SchedulingDisabled');
  return parts.join(',');
}

function nodeRoles(node: KubeObject): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries<unknown>(node.metadata?.labels ?? {})) {
    if (key.startsWith('node-role.kubernetes.io/')) {
      const role = key.slice('node-role.kubernetes.io/'.length);
      if (role) roles.add(role);
    } else if (key === 'kubernetes.io/role' && typeof value === 'string' && value) {
      roles.add(value);
    }
  }
  return roles.size === 0 ? NONE : [...roles].sort().join(',');
}

function nodeAddress(type: string): (node: KubeObject) => string {
  return (node) => {
    const address = (node.status?.addresses ?? []).find((a: KubeObject) => a?.type === type);
    return address?.address ? String(address.address) : NONE;
  };
}

interface PodSummary {
  ready: string;
  status: string;
  restarts: string;
}

const isSidecar = (container: KubeObject | undefined): boolean => container?.restartPolicy === 'Always';

/** READY, STATUS and RESTARTS exactly as kubectl's pod printer derives them. */
export function podSummary(pod: KubeObject, now: number = Date.now()): PodSummary {
  const spec = pod.spec ?? {};
  const status = pod.status ?? {};
  const initSpecs = new Map<string, KubeObject>(
    (spec.initContainers ?? []).map((c: KubeObject) => [c?.name, c] as [string, KubeObject]),
  );
  const total = count(spec.containers) + [...initSpecs.values()].filter(isSidecar).length;
  let readyCount = 0;
  let restarts = 0;
  let lastRestart = 0;
  let sidecarRestarts = 0;
  let lastSidecarRestart = 0;
  let reason: string = status.reason || text(status.phase);
  if (
    (status.conditions ?? []).some(
      (c: KubeObject) => c?.type === 'PodScheduled' && c?.reason === 'SchedulingGated',
    )
  ) {
    reason = 'SchedulingGated';
  }

  let initializing = false;
  const initStatuses: KubeObject[] = status.initContainerStatuses ?? [];
  for (const [i, container] of initStatuses.entries()) {
    const finished = timeOf(container.lastState?.terminated?.finishedAt);
    restarts += container.restartCount ?? 0;
    if (finished > lastRestart) lastRestart = finished;
    const sidecar = isSidecar(initSpecs.get(container.name));
    if (sidecar) {
      sidecarRestarts += container.restartCount ?? 0;
      if (finished > lastSidecarRestart) lastSidecarRestart = finished;
    }
    const terminated = container.state?.terminated;
    const waiting = container.state?.waiting;
    if (terminated && (terminated.exitCode ?? 0) === 0) continue;
    if (sidecar && container.started === true) {
      if (container.ready === true) readyCount++;
      continue;
    }
    if (terminated) {
      if (terminated.reason) reason = `Init:${terminated.reason}`;
      else if (terminated.signal) reason = `Init:Signal:${terminated.signal}`;
      else reason = `Init:ExitCode:${terminated.exitCode ?? 0}`;
    } else if (waiting?.reason && waiting.reason !== 'PodInitializing') {
      reason = `Init:${waiting.reason}`;
    } else {
      reason = `Init:${i}/${initSpecs.size}`;
    }
    initializing = true;
    break;
  }

  const initialized = (status.conditions ?? []).some(
    (c: KubeObject) => c?.type === 'Initialized' && c?.status === 'True',
  );
  if (!initializing || initialized) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses: KubeObject[] = status.containerStatuses ?? [];
    for (let i = statuses.length - 1; i >= 0; i--) {
      const container = statuses[i]!;
      restarts += container.restartCount ?? 0;
      const finished = timeOf(container.lastState?.terminated?.finishedAt);
      if (finished > lastRestart) lastRestart = finished;
      const terminated = container.state?.terminated;
      if (container.state?.waiting?.reason) reason = container.state.waiting.reason;
      else if (terminated?.reason) reason = terminated.reason;
      else if (terminated) {
        reason = terminated.signal ? `Signal:${terminated.signal}` : `ExitCode:${terminated.exitCode ?? 0}`;
      } else if (container.ready === true && container.state?.running) {
        hasRunning = true;
        readyCount++;
      }
    }
    if (reason === 'Completed' && hasRunning) {
      const podReady = (status.conditions ?? []).some(
        (c: KubeObject) => c?.type === 'Ready' && c?.status === 'True',
      );
      reason = podReady ? 'Running' : 'NotReady';
    }
  }

  if (pod.metadata?.deletionTimestamp && status.reason === 'NodeLost') reason = 'Unknown';
  else if (pod.metadata?.deletionTimestamp && status.phase !== 'Succeeded' && status.phase !== 'Failed') {
    reason = 'Terminating';
  }

  const restartText =
    restarts !== 0 && lastRestart > 0
      ? `${restarts} (${humanDuration(now - lastRestart)} ago)`
      : String(restarts);
  return { ready: `${readyCount}/${total}`, status: reason, restarts: restartText };
}

function podReadinessGates(pod: KubeObject): string {
  const gates: KubeObject[] = pod.spec?.readinessGates ?? [];
  if (gates.length === 0) return NONE;
  const conditions: KubeObject[] = pod.status?.conditions ?? [];
  const ready = gates.filter((g) =>
    conditions.some((c) => c?.type === g?.conditionType && c?.status === 'True'),
  ).length;
  return `${ready}/${gates.length}`;
}

function selectorText(labels: unknown): string {
  const entries = Object.entries((labels ?? {}) as Record<string, unknown>);
  if (entries.length === 0) return NONE;
  return entries
    .map(([k, v]) => `${k}=${text(v)}`)
    .sort()
    .join(',');
}

function labelSelectorText(selector: KubeObject | undefined): string {
  if (!selector) return NONE;
  const parts = Object.entries<unknown>(selector.matchLabels ?? {}).map(([k, v]) => `${k}=${text(v)}`);
  for (const expr of (selector.matchExpressions ?? []) as KubeObject[]) {
    const values = (expr.values ?? []).join(',');
    if (expr.operator === 'In') parts.push(`${expr.key} in (${values})`);
    else if (expr.operator === 'NotIn') parts.push(`${expr.key} notin (${values})`);
    else if (expr.operator === 'Exists') parts.push(expr.key);
    else if (expr.operator === 'DoesNotExist') parts.push(`!${expr.key}`);
  }
  return parts.length === 0 ? NONE : parts.sort().join(',');
}

function templateContainers(field: 'name' | 'image'): (obj: KubeObject) => string {
  return (obj) => {
    const containers: KubeObject[] = obj.spec?.template?.spec?.containers ?? [];
    return containers.map((c) => text(c?.[field])).join(',');
  };
}

function controllerOf(obj: KubeObject): string {
  const owner = (obj.metadata?.ownerReferences ?? []).find((o: KubeObject) => o?.controller === true);
  if (!owner) return NONE;
  const group = text(owner.apiVersion).includes('/') ? text(owner.apiVersion).split('/')[0] : '';
  const kind = text(owner.kind).toLowerCase();
  return `${group ? `${kind}.${group}` : kind}/${text(owner.name)}`;
}

const intOrStringOrNA = (value: unknown): string =>
  value === undefined || value === null ? 'N/A' : text(value);

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

// ---------------------------------------------------------------------------------------------------
// Schemas: real top-level fields, open nested structures.

const open = (description: string): JSONSchemaProps => ({
  type: 'object',
  description,
  'x-kubernetes-preserve-unknown-fields': true,
});
const str = (description: string): JSONSchemaProps => ({ type: 'string', description });
const int = (description: string): JSONSchemaProps => ({ type: 'integer', description });

function kindSchema(description: string, fields: Record<string, JSONSchemaProps>): JSONSchemaProps {
  return {
    type: 'object',
    description,
    properties: {
      apiVersion: str(
        'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.',
      ),
      kind: str(
        'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to.',
      ),
      metadata: open("Standard object's metadata."),
      ...fields,
    },
  };
}

const specStatus = (what: string): Record<string, JSONSchemaProps> => ({
  spec: open(`Spec defines the desired behavior of the ${what}.`),
  status: open(`Status is the most recently observed status of the ${what}. Populated by the system.`),
});

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

// ---------------------------------------------------------------------------------------------------
// Field selectors. kube's selectable field sets always contain every key (empty when unset), so
// `spec.nodeName=` selects unscheduled pods.

const at =
  (...path: string[]) =>
  (obj: KubeObject): string => {
    let value: unknown = obj;
    for (const segment of path) {
      if (value === null || typeof value !== 'object') return '';
      value = (value as KubeObject)[segment];
    }
    return text(value);
  };

const coreEventSelectors: ResourceDefinition['selectableFields'] = {
  'involvedObject.kind': at('involvedObject', 'kind'),
  'involvedObject.namespace': at('involvedObject', 'namespace'),
  'involvedObject.name': at('involvedObject', 'name'),
  'involvedObject.uid': at('involvedObject', 'uid'),
  'involvedObject.apiVersion': at('involvedObject', 'apiVersion'),
  'involvedObject.resourceVersion': at('involvedObject', 'resourceVersion'),
  'involvedObject.fieldPath': at('involvedObject', 'fieldPath'),
  reason: at('reason'),
  reportingComponent: at('reportingComponent'),
  source: (e) => text(e.source?.component) || text(e.reportingComponent),
  type: at('type'),
};

// events.k8s.io/v1 accepts its own spellings (regarding.*, reportingController), mapped by kube onto
// the core event's fields; it does not accept the core spellings.
const eventsV1Selectors: ResourceDefinition['selectableFields'] = {
  'regarding.kind': at('regarding', 'kind'),
  'regarding.namespace': at('regarding', 'namespace'),
  'regarding.name': at('regarding', 'name'),
  'regarding.uid': at('regarding', 'uid'),
  'regarding.apiVersion': at('regarding', 'apiVersion'),
  'regarding.resourceVersion': at('regarding', 'resourceVersion'),
  'regarding.fieldPath': at('regarding', 'fieldPath'),
  reason: at('reason'),
  reportingController: at('reportingController'),
  source: (e) => text(e.deprecatedSource?.component) || text(e.reportingController),
  type: at('type'),
};

// ---------------------------------------------------------------------------------------------------
// The catalogue.

type Base = Omit<ResourceDefinition, 'schema'> & { schema: JSONSchemaProps };

function def(d: Omit<Base, 'builtin'>): ResourceDefinition {
  return { ...d, builtin: true };
}

const eventColumns = (regarding: string, note: string): PrinterColumn[] => [
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

/** A fresh copy of every built-in definition, in the order kube lists their groups. */
export function builtinResources(): ResourceDefinition[] {
  const defs = catalogue();
  // events.k8s.io/v1 Events live in the core Event store, as in kube (one key space, two views).
  const coreEvents = defs.find((d) => d.group === '' && d.resource === 'events')!;
  const eventsV1 = defs.find((d) => d.group === 'events.k8s.io' && d.resource === 'events')!;
  eventsV1.storedAs = { def: coreEvents, toStorage: eventsV1ToCore, fromStorage: coreToEventsV1 };
  return defs;
}

/** A review resource: create-only, answered at once and never stored (auth/self-reviews.ts). */
function review(group: string, version: string, resource: string, kind: string, description: string) {
  return def({
    group,
    version,
    resource,
    singular: resource.replace(/s$/, ''),
    kind,
    listKind: `${kind}List`,
    namespaced: false,
    shortNames: [],
    categories: [],
    verbs: ['create'],
    subresources: {},
    schema: kindSchema(description, {
      spec: open('Spec holds information about the request being evaluated.'),
      status: open('Status is filled in by the server.'),
    }),
    printerColumns: [],
    selectableFields: {},
    tracksGeneration: false,
  });
}

function catalogue(): ResourceDefinition[] {
  return [
    // ------------------------------------------------------------------ core/v1
    def({
      group: '',
      version: 'v1',
      resource: 'configmaps',
      singular: 'configmap',
      kind: 'ConfigMap',
      listKind: 'ConfigMapList',
      namespaced: true,
      shortNames: ['cm'],
      categories: [],
      verbs: [...ALL_VERBS],
      subresources: {},
      schema: kindSchema('ConfigMap holds configuration data for pods to consume.', {
        binaryData: {
          type: 'object',
          description: 'BinaryData contains the binary data.',
          additionalProperties: { type: 'string', format: 'byte' },
        },
        data: {
          type: 'object',
          description: 'Data contains the configuration data.',
          additionalProperties: { type: 'string' },
        },
        immutable: {
          type: 'boolean',
          description:
            'Immutable, if set to true, ensures that data stored in the ConfigMap cannot be updated.',
        },
      }),
      printerColumns: [
        {
          name: 'Data',
          type: 'integer',
          jsonPath: '.data',
          description: 'Number of keys in data and binaryData.',
          compute: (cm) => count(cm.data) + count(cm.binaryData),
        },
        age,
      ],
      selectableFields: {},
      tracksGeneration: false,
    }),
    def({
      group: '',
      version: 'v1',
      resource: 'events',
      singular: 'event',
      kind: 'Event',
      listKind: 'EventList',
      namespaced: true,
      shortNames: ['ev'],
      categories: [],
      verbs: [...ALL_VERBS],
      subresources: {},
      schema: kindSchema('Event is a report of an event somewhere in the cluster.', coreEventFields),
      printerColumns: eventColumns('involvedObject', 'message'),
      selectableFields: coreEventSelectors,
      tracksGeneration: false,
    }),
    def({
      group: '',
      version: 'v1',
      resource: 'namespaces',
      singular: 'namespace',
      kind: 'Namespace',
      listKind: 'NamespaceList',
      namespaced: false,
      shortNames: ['ns'],
      categories: [],
      verbs: [...NAMESPACE_VERBS],
      subresources: { status: true },
      schema: kindSchema('Namespace provides a scope for Names.', specStatus('Namespace')),
      printerColumns: [
        {
          name: 'Status',
          type: 'string',
          jsonPath: '.status.phase',
          description: 'The phase of the namespace.',
        },
        age,
      ],
      selectableFields: { 'status.phase': at('status', 'phase') },
      tracksGeneration: false,
    }),
    def({
      group: '',
      version: 'v1',
      resource: 'nodes',
      singular: 'node',
      kind: 'Node',
      listKind: 'NodeList',
      namespaced: false,
      shortNames: ['no'],
      categories: [],
      verbs: [...ALL_VERBS],
      subresources: { status: true },
      schema: kindSchema('Node is a worker node in Kubernetes.', specStatus('node')),
      printerColumns: [
        {
          name: 'Status',
          type: 'string',
          jsonPath: '.status.conditions[?(@.type=="Ready")].status',
          description: 'Ready condition, and SchedulingDisabled when cordoned.',
          compute: nodeStatus,
        },
        {
          name: 'Roles',
          type: 'string',
          jsonPath: '.metadata.labels',
          description: 'Roles from node-role.kubernetes.io/<role> labels.',
          compute: nodeRoles,
        },
        age,
        {
          name: 'Version',
          type: 'string',
          jsonPath: '.status.nodeInfo.kubeletVersion',
          description: 'Kubelet version.',
        },
        {
          name: 'Internal-IP',
          type: 'string',
          priority: 1,
          jsonPath: '.status.addresses[?(@.type=="InternalIP")].address',
          description: 'First InternalIP address.',
          compute: nodeAddress('InternalIP'),
        },
        {
          name: 'External-IP',
          type: 'string',
          priority: 1,
          jsonPath: '.status.addresses[?(@.type=="ExternalIP")].address',
          description: 'First ExternalIP address.',
          compute: nodeAddress('ExternalIP'),
        },
        {
          name: 'OS-Image',
          type: 'string',
          priority: 1,
          jsonPath: '.status.nodeInfo.osImage',
          description: 'OS image.',
        },
        {
          name: 'Kernel-Version',
          type: 'string',
          priority: 1,
          jsonPath: '.status.nodeInfo.kernelVersion',
          description: 'Kernel version.',
        },
        {
          name: 'Container-Runtime',
          type: 'string',
          priority: 1,
          jsonPath: '.status.nodeInfo.containerRuntimeVersion',
          description: 'Container runtime version.',
        },
      ],
      selectableFields: { 'spec.unschedulable': (n) => String(n.spec?.unschedulable === true) },
      tracksGeneration: false,
    }),
    def({
      group: '',
      version: 'v1',
      resource: 'pods',
      singular: 'pod',
      kind: 'Pod',
      listKind: 'PodList',
      namespaced: true,
      shortNames: ['po'],
      categories: ['all'],
      verbs: [...ALL_VERBS],
      subresources: { status: true, eviction: true },
      schema: kindSchema('Pod is a collection of containers that can run on a host.', specStatus('pod')),
      printerColumns: [
        {
          name: 'Ready',
          type: 'string',
          jsonPath: '.status.containerStatuses[*].ready',
          description: 'Ready containers out of all containers.',
          compute: (p) => podSummary(p).ready,
        },
        {
          name: 'Status',
          type: 'string',
          jsonPath: '.status.phase',
          description: 'The aggregate state of the containers in this pod.',
          compute: (p) => podSummary(p).status,
        },
        {
          name: 'Restarts',
          type: 'string',
          jsonPath: '.status.containerStatuses[*].restartCount',
          description: 'Container restarts, and how long ago the last one was.',
          compute: (p) => podSummary(p).restarts,
        },
        age,
        {
          name: 'IP',
          type: 'string',
          priority: 1,
          jsonPath: '.status.podIP',
          description: 'Pod IP.',
          compute: (p) => text(p.status?.podIP) || NONE,
        },
        {
          name: 'Node',
          type: 'string',
          priority: 1,
          jsonPath: '.spec.nodeName',
          description: 'Node the pod is bound to.',
          compute: (p) => text(p.spec?.nodeName) || NONE,
        },
        {
          name: 'Nominated Node',
          type: 'string',
          priority: 1,
          jsonPath: '.status.nominatedNodeName',
          description: 'Node nominated by preemption.',
          compute: (p) => text(p.status?.nominatedNodeName) || NONE,
        },
        {
          name: 'Readiness Gates',
          type: 'string',
          priority: 1,
          jsonPath: '.spec.readinessGates',
          description: 'Satisfied readiness gates.',
          compute: podReadinessGates,
        },
      ],
      selectableFields: {
        'spec.nodeName': at('spec', 'nodeName'),
        'spec.restartPolicy': at('spec', 'restartPolicy'),
        'spec.schedulerName': at('spec', 'schedulerName'),
        'spec.serviceAccountName': at('spec', 'serviceAccountName'),
        'spec.hostNetwork': (p) => String(p.spec?.hostNetwork === true),
        'status.phase': at('status', 'phase'),
        'status.podIP': (p) => text(p.status?.podIPs?.[0]?.ip) || text(p.status?.podIP),
        'status.nominatedNodeName': at('status', 'nominatedNodeName'),
      },
      tracksGeneration: false,
    }),
    def({
      group: '',
      version: 'v1',
      resource: 'secrets',
      singular: 'secret',
      kind: 'Secret',
      listKind: 'SecretList',
      namespaced: true,
      shortNames: [],
      categories: [],
      verbs: [...ALL_VERBS],
      subresources: {},
      schema: kindSchema('Secret holds secret data of a certain type.', {
        data: {
          type: 'object',
          description: 'Data contains the secret data, base64 encoded.',
          additionalProperties: { type: 'string', format: 'byte' },
        },
        immutable: {
          type: 'boolean',
          description: 'Immutable, if set to true, ensures that data stored in the Secret cannot be updated.',
        },
        stringData: {
          type: 'object',
          description: 'stringData allows specifying non-binary secret data in string form.',
          additionalProperties: { type: 'string' },
        },
        type: str('Used to facilitate programmatic handling of secret data.'),
      }),
      printerColumns: [
        { name: 'Type', type: 'string', jsonPath: '.type', description: 'The secret type.' },
        {
          name: 'Data',
          type: 'integer',
          jsonPath: '.data',
          description: 'Number of data keys.',
          compute: (s) => count(s.data),
        },
        age,
      ],
      selectableFields: { type: at('type') },
      tracksGeneration: false,
    }),
    def({
      group: '',
      version: 'v1',
      resource: 'serviceaccounts',
      singular: 'serviceaccount',
      kind: 'ServiceAccount',
      listKind: 'ServiceAccountList',
      namespaced: true,
      shortNames: ['sa'],
      categories: [],
      verbs: [...ALL_VERBS],
      subresources: { token: true },
      schema: kindSchema('ServiceAccount binds together a name, a principal and a set of secrets.', {
        automountServiceAccountToken: {
          type: 'boolean',
          description:
            'Whether pods running as this service account should have an API token automatically mounted.',
        },
        imagePullSecrets: {
          type: 'array',
          description: 'References to secrets for pulling images.',
          items: open('LocalObjectReference.'),
        },
        secrets: {
          type: 'array',
          description: 'Secrets allowed to be used by pods running using this ServiceAccount.',
          items: open('ObjectReference.'),
        },
      }),
      printerColumns: [
        {
          name: 'Secrets',
          type: 'integer',
          jsonPath: '.secrets',
          description: 'Number of secrets.',
          compute: (sa) => count(sa.secrets),
        },
        age,
      ],
      selectableFields: {},
      tracksGeneration: false,
    }),
    // ------------------------------------------------------------------ apps/v1
    def({
      group: 'apps',
      version: 'v1',
      resource: 'controllerrevisions',
      singular: 'controllerrevision',
      kind: 'ControllerRevision',
      listKind: 'ControllerRevisionList',
      namespaced: true,
      shortNames: [],
      categories: [],
      verbs: [...ALL_VERBS],
      subresources: {},
      schema: kindSchema('ControllerRevision implements an immutable snapshot of state data.', {
        data: open('Data is the serialized representation of the state.'),
        revision: {
          type: 'integer',
          format: 'int64',
          description: 'Revision indicates the revision of the state represented by Data.',
        },
      }),
      printerColumns: [
        {
          name: 'Controller',
          type: 'string',
          jsonPath: '.metadata.ownerReferences[?(@.controller==true)].name',
          description: 'The controlling owner.',
          compute: controllerOf,
        },
        { name: 'Revision', type: 'integer', jsonPath: '.revision', description: 'The revision number.' },
        age,
      ],
      selectableFields: {},
      tracksGeneration: false,
    }),
    def({
      group: 'apps',
      version: 'v1',
      resource: 'daemonsets',
      singular: 'daemonset',
      kind: 'DaemonSet',
      listKind: 'DaemonSetList',
      namespaced: true,
      shortNames: ['ds'],
      categories: ['all'],
      verbs: [...ALL_VERBS],
      subresources: { status: true },
      schema: kindSchema('DaemonSet represents the configuration of a daemon set.', specStatus('daemon set')),
      printerColumns: [
        {
          name: 'Desired',
          type: 'integer',
          jsonPath: '.status.desiredNumberScheduled',
          description: 'Nodes that should run the daemon pod.',
          compute: (d) => d.status?.desiredNumberScheduled ?? 0,
        },
        {
          name: 'Current',
          type: 'integer',
          jsonPath: '.status.currentNumberScheduled',
          description: 'Nodes running at least one daemon pod.',
          compute: (d) => d.status?.currentNumberScheduled ?? 0,
        },
        {
          name: 'Ready',
          type: 'integer',
          jsonPath: '.status.numberReady',
          description: 'Nodes with a ready daemon pod.',
          compute: (d) => d.status?.numberReady ?? 0,
        },
        {
          name: 'Up-to-date',
          type: 'integer',
          jsonPath: '.status.updatedNumberScheduled',
          description: 'Nodes running the updated daemon pod.',
          compute: (d) => d.status?.updatedNumberScheduled ?? 0,
        },
        {
          name: 'Available',
          type: 'integer',
          jsonPath: '.status.numberAvailable',
          description: 'Nodes with an available daemon pod.',
          compute: (d) => d.status?.numberAvailable ?? 0,
        },
        {
          name: 'Node Selector',
          type: 'string',
          jsonPath: '.spec.template.spec.nodeSelector',
          description: 'The pod template node selector.',
          compute: (d) => selectorText(d.spec?.template?.spec?.nodeSelector),
        },
        age,
        {
          name: 'Containers',
          type: 'string',
          priority: 1,
          jsonPath: '.spec.template.spec.containers[*].name',
          description: 'Container names.',
          compute: templateContainers('name'),
        },
        {
          name: 'Images',
          type: 'string',
          priority: 1,
          jsonPath: '.spec.template.spec.containers[*].image',
          description: 'Container images.',
          compute: templateContainers('image'),
        },
        {
          name: 'Selector',
          type: 'string',
          priority: 1,
          jsonPath: '.spec.selector',
          description: 'The pod label selector.',
          compute: (d) => labelSelectorText(d.spec?.selector),
        },
      ],
      selectableFields: {},
      tracksGeneration: true,
    }),
    // ------------------------------------------------------------------ events.k8s.io/v1
    def({
      group: 'events.k8s.io',
      version: 'v1',
      resource: 'events',
      singular: 'event',
      kind: 'Event',
      listKind: 'EventList',
      namespaced: true,
      shortNames: ['ev'],
      categories: [],
      verbs: [...ALL_VERBS],
      subresources: {},
      schema: kindSchema('Event is a report of an event somewhere in the cluster.', eventsV1Fields),
      printerColumns: eventColumns('regarding', 'note'),
      selectableFields: eventsV1Selectors,
      tracksGeneration: false,
    }),
    // ------------------------------------------------------------------ authentication, authorization
    review(
      'authentication.k8s.io',
      'v1',
      'selfsubjectreviews',
      'SelfSubjectReview',
      'SelfSubjectReview contains the user information that the kube-apiserver has about the user making this request.',
    ),
    // kubectl 1.27 asks v1beta1 first for `auth whoami`.
    review(
      'authentication.k8s.io',
      'v1beta1',
      'selfsubjectreviews',
      'SelfSubjectReview',
      'SelfSubjectReview contains the user information that the kube-apiserver has about the user making this request.',
    ),
    // Delegated authentication and authorization (system:auth-delegator): a component asks who holds a
    // token and what a user may do, as controller-runtime's metrics filters do.
    review(
      'authentication.k8s.io',
      'v1',
      'tokenreviews',
      'TokenReview',
      'TokenReview attempts to authenticate a token to a known user.',
    ),
    review(
      'authorization.k8s.io',
      'v1',
      'subjectaccessreviews',
      'SubjectAccessReview',
      'SubjectAccessReview checks whether or not a user or group can perform an action.',
    ),
    review(
      'authorization.k8s.io',
      'v1',
      'selfsubjectaccessreviews',
      'SelfSubjectAccessReview',
      'SelfSubjectAccessReview checks whether or the current user can perform an action.',
    ),
    review(
      'authorization.k8s.io',
      'v1',
      'selfsubjectrulesreviews',
      'SelfSubjectRulesReview',
      'SelfSubjectRulesReview enumerates the set of actions the current user can perform within a namespace.',
    ),
    // ------------------------------------------------------------------ policy/v1
    def({
      group: 'policy',
      version: 'v1',
      resource: 'poddisruptionbudgets',
      singular: 'poddisruptionbudget',
      kind: 'PodDisruptionBudget',
      listKind: 'PodDisruptionBudgetList',
      namespaced: true,
      shortNames: ['pdb'],
      categories: [],
      verbs: [...ALL_VERBS],
      subresources: { status: true },
      schema: kindSchema(
        'PodDisruptionBudget is an object to define the max disruption that can be caused to a collection of pods',
        specStatus('PodDisruptionBudget'),
      ),
      printerColumns: [
        {
          name: 'Min Available',
          type: 'string',
          jsonPath: '.spec.minAvailable',
          description: 'Minimum available pods.',
          compute: (p) => intOrStringOrNA(p.spec?.minAvailable),
        },
        {
          name: 'Max Unavailable',
          type: 'string',
          jsonPath: '.spec.maxUnavailable',
          description: 'Maximum unavailable pods.',
          compute: (p) => intOrStringOrNA(p.spec?.maxUnavailable),
        },
        {
          name: 'Allowed Disruptions',
          type: 'integer',
          jsonPath: '.status.disruptionsAllowed',
          description: 'Pod disruptions currently allowed.',
          compute: (p) => p.status?.disruptionsAllowed ?? 0,
        },
        age,
      ],
      selectableFields: {},
      tracksGeneration: true,
    }),
    // ------------------------------------------------------------------ apiextensions.k8s.io/v1
    def({
      group: 'apiextensions.k8s.io',
      version: 'v1',
      resource: 'customresourcedefinitions',
      singular: 'customresourcedefinition',
      kind: 'CustomResourceDefinition',
      listKind: 'CustomResourceDefinitionList',
      namespaced: false,
      shortNames: ['crd', 'crds'],
      categories: ['api-extensions'],
      verbs: [...ALL_VERBS],
      subresources: { status: true },
      schema: kindSchema(
        'CustomResourceDefinition represents a resource that should be exposed on the API server. Its name MUST be in the format <.spec.name>.<.spec.group>.',
        specStatus('CustomResourceDefinition'),
      ),
      printerColumns: [
        {
          name: 'Created At',
          type: 'string',
          jsonPath: '.metadata.creationTimestamp',
          description: 'When the definition was created (RFC 3339), as kubectl shows it.',
        },
      ],
      selectableFields: {},
      tracksGeneration: true,
    }),
    // ------------------------------------------------------------------ coordination.k8s.io/v1
    def({
      group: 'coordination.k8s.io',
      version: 'v1',
      resource: 'leases',
      singular: 'lease',
      kind: 'Lease',
      listKind: 'LeaseList',
      namespaced: true,
      shortNames: [],
      categories: [],
      verbs: [...ALL_VERBS],
      subresources: {},
      schema: kindSchema('Lease defines a lease concept.', {
        spec: open('spec contains the specification of the Lease.'),
      }),
      printerColumns: [
        {
          name: 'Holder',
          type: 'string',
          jsonPath: '.spec.holderIdentity',
          description: 'The current holder.',
        },
        age,
      ],
      selectableFields: {},
      tracksGeneration: false,
    }),
  ];
}

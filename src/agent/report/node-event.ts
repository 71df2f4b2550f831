// A core/v1 Event about a Node, as kubelet writes them (involvedObject = the Node, no namespace).

export type EventType = 'Normal' | 'Warning';

/** Reasons the agent records. */
export const EVENT_REASONS = {
  applied: 'Applied',
  failed: 'Failed',
  rolledBack: 'RolledBack',
  driftDetected: 'DriftDetected',
  driftRepaired: 'DriftRepaired',
  driftRepairFailed: 'DriftRepairFailed',
  rebootRequired: 'RebootRequired',
  rebooting: 'Rebooting',
  rebooted: 'Rebooted',
  rebootFailed: 'RebootFailed',
} as const;

const AGENT_COMPONENT = 'nodeherd-agent';

export interface NodeEventInput {
  nodeName: string;
  nodeUid: string | undefined;
  namespace: string;
  type: EventType;
  reason: string;
  message: string;
  /** metav1.Time. */
  time: string;
}

export function buildNodeEvent(input: NodeEventInput): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { generateName: `${input.nodeName}.`, namespace: input.namespace },
    involvedObject: {
      apiVersion: 'v1',
      kind: 'Node',
      name: input.nodeName,
      // kubelet uses the node name as the uid of Node events; the real uid is better when known.
      uid: input.nodeUid ?? input.nodeName,
    },
    reason: input.reason,
    message: input.message,
    type: input.type,
    source: { component: AGENT_COMPONENT, host: input.nodeName },
    firstTimestamp: input.time,
    lastTimestamp: input.time,
    count: 1,
    reportingComponent: AGENT_COMPONENT,
    reportingInstance: input.nodeName,
  };
}

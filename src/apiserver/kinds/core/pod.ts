// Pod (core/v1): its definition with kubectl's pod columns (READY, STATUS and RESTARTS derived exactly as
// kubectl's printer does), its field selectors, its time fields, the Pending phase it is created in, and
// the protobuf messages of the pod and of its eviction subresource's body. Pods only gained generation
// tracking in 1.33 (KEP-5067), after the version we report (1.32), so they do not track it here.

import { builtinPatchMeta } from '../../patch/builtin-patch-meta.ts';
import { Pod } from '../../protobuf/core-v1.ts';
import { Eviction } from '../../protobuf/groups.ts';
import { CONDITION_TIMES, containerStatusTimes, t } from '../../schema/builtin-decoding.ts';
import type { KubeObject } from '../../storage/types.ts';
import type { BuiltinKind } from '../builtin-kind.ts';
import { age, humanDuration } from '../shared/printing.ts';
import { at, count, NONE, text, timeOf } from '../shared/readers.ts';
import { builtin, kindSchema, specStatus } from '../shared/schemas.ts';

export interface PodSummary {
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

export const podKind: BuiltinKind = {
  definitions: () => [
    builtin({
      group: '',
      version: 'v1',
      resource: 'pods',
      kind: 'Pod',
      namespaced: true,
      shortNames: ['po'],
      categories: ['all'],
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
      patchMeta: builtinPatchMeta('Pod'),
    }),
  ],
  decoding: {
    times: [
      t('status.conditions.*.lastProbeTime'),
      ...CONDITION_TIMES,
      t('status.startTime'),
      ...containerStatusTimes('containerStatuses'),
      ...containerStatusTimes('initContainerStatuses'),
      ...containerStatusTimes('ephemeralContainerStatuses'),
    ],
  },
  strategies: () => [
    {
      // kube's pod strategy: a new pod is Pending until a node reports on it.
      prepare(obj, _old, ctx) {
        if (ctx.operation === 'create') obj.status = { phase: 'Pending', ...(obj.status ?? {}) };
      },
    },
  ],
  protobuf: { 'v1/Pod': Pod, 'policy/v1/Eviction': Eviction, 'policy/v1beta1/Eviction': Eviction },
};

// Strategic merge patch metadata for the built-in kinds: which lists merge instead of being replaced,
// and by which key. Transcribed from the `patchStrategy` / `patchMergeKey` struct tags of
// k8s.io/api (core/v1, apps/v1, batch/v1, policy/v1, meta/v1). Fields not listed behave as in any
// struct without tags: objects merge key by key, lists are replaced whole. This is table data by Go type;
// each built-in kind (src/apiserver/kinds/) names its own in its definition's patchMeta, and a kind whose
// type is not listed composes it from the pieces exported here.

/** Patch metadata of one field; for lists, `fields` describes each item. */
export interface PatchMeta {
  /** `merge` for lists merged by `mergeKey` (or, without a key, lists of scalars merged as sets). */
  strategy?: 'merge';
  mergeKey?: string;
  /** patchStrategy "retainKeys": clients send $retainKeys for this field (unions such as volume sources). */
  retainKeys?: boolean;
  fields?: Readonly<Record<string, PatchMeta>>;
}

export function mergeList(mergeKey: string, fields?: Record<string, PatchMeta>): PatchMeta {
  return fields ? { strategy: 'merge', mergeKey, fields } : { strategy: 'merge', mergeKey };
}

/** A list of scalars merged as a set (metadata.finalizers, spec.podCIDRs). */
export const mergedScalarList: PatchMeta = { strategy: 'merge' };
export const conditionsByType = mergeList('type');

export const objectMeta: PatchMeta = {
  fields: {
    finalizers: mergedScalarList,
    ownerReferences: mergeList('uid'),
  },
};

export const container: Record<string, PatchMeta> = {
  ports: mergeList('containerPort'),
  env: mergeList('name'),
  volumeMounts: mergeList('mountPath'),
  volumeDevices: mergeList('devicePath'),
};

export const podSpec: PatchMeta = {
  fields: {
    volumes: { strategy: 'merge', mergeKey: 'name', retainKeys: true },
    initContainers: mergeList('name', container),
    containers: mergeList('name', container),
    ephemeralContainers: mergeList('name', container),
    imagePullSecrets: mergeList('name'),
    hostAliases: mergeList('ip'),
    topologySpreadConstraints: mergeList('topologyKey'),
    schedulingGates: mergeList('name'),
    resourceClaims: { strategy: 'merge', mergeKey: 'name', retainKeys: true },
    // tolerations, readinessGates and affinity terms carry no patch strategy: they are replaced.
  },
};

export const podStatus: PatchMeta = {
  fields: {
    conditions: conditionsByType,
    podIPs: mergeList('ip'),
    hostIPs: mergeList('ip'),
    resourceClaimStatuses: { strategy: 'merge', mergeKey: 'name', retainKeys: true },
    // containerStatuses and initContainerStatuses have no strategy: they are replaced.
  },
};

export const podTemplateSpec: PatchMeta = { fields: { metadata: objectMeta, spec: podSpec } };

export const statusWithConditions: PatchMeta = { fields: { conditions: conditionsByType } };

/** A workload whose spec holds a pod template. */
export function workload(specFields: Record<string, PatchMeta> = {}): PatchMeta {
  return {
    fields: {
      metadata: objectMeta,
      spec: { fields: { template: podTemplateSpec, ...specFields } },
      status: statusWithConditions,
    },
  };
}

export const metadataOnly: PatchMeta = { fields: { metadata: objectMeta } };

const byKind: Readonly<Record<string, PatchMeta>> = {
  Node: {
    fields: {
      metadata: objectMeta,
      // spec.taints has no patch strategy: a taint patch replaces the whole list.
      spec: { fields: { podCIDRs: mergedScalarList } },
      status: { fields: { conditions: conditionsByType, addresses: mergeList('type') } },
    },
  },
  Pod: { fields: { metadata: objectMeta, spec: podSpec, status: podStatus } },
  PodTemplate: { fields: { metadata: objectMeta, template: podTemplateSpec } },
  Namespace: { fields: { metadata: objectMeta, status: statusWithConditions } },
  ServiceAccount: { fields: { metadata: objectMeta, secrets: mergeList('name') } },
  Service: {
    fields: {
      metadata: objectMeta,
      spec: { fields: { ports: mergeList('port') } },
      status: statusWithConditions,
    },
  },
  ConfigMap: metadataOnly,
  Secret: metadataOnly,
  Event: metadataOnly,
  Lease: metadataOnly,
  ControllerRevision: metadataOnly,
  DaemonSet: workload(),
  Deployment: workload({ strategy: { retainKeys: true } }),
  ReplicaSet: workload(),
  StatefulSet: workload(),
  Job: workload(),
  PodDisruptionBudget: { fields: { metadata: objectMeta, status: statusWithConditions } },
};

/** Patch metadata for a built-in kind; kinds without merge lists beyond metadata get ObjectMeta's. */
export function builtinPatchMeta(kind: string): PatchMeta {
  return Object.hasOwn(byKind, kind) ? byKind[kind]! : metadataOnly;
}

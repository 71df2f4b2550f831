// The built-in kinds the server serves, in the order kube lists their groups, and what the rest of the
// server derives from them: the registry's built-in definitions, each definition's kind, the strategies
// of its writes, and the protobuf messages typed clients may send. Adding a built-in kind is one file
// under kinds/<group>/ and one line in BUILTIN_KINDS.

import type { KindStrategy } from '../objects/strategy.ts';
import type { MessageSpec } from '../protobuf/message.ts';
import type { ResourceDefinition } from '../registry/resource-definition.ts';
import { decodeBuiltinObject } from '../schema/builtin-decoding.ts';
import { validatingAdmissionPolicyKind } from './admissionregistration/validatingadmissionpolicy.ts';
import { validatingAdmissionPolicyBindingKind } from './admissionregistration/validatingadmissionpolicybinding.ts';
import { customResourceDefinitionKind } from './apiextensions/customresourcedefinition.ts';
import { controllerRevisionKind } from './apps/controllerrevision.ts';
import { daemonSetKind } from './apps/daemonset.ts';
import { deploymentKind } from './apps/deployment.ts';
import { selfSubjectReviewKind } from './authentication/selfsubjectreview.ts';
import { tokenReviewKind } from './authentication/tokenreview.ts';
import { selfSubjectAccessReviewKind } from './authorization/selfsubjectaccessreview.ts';
import { selfSubjectRulesReviewKind } from './authorization/selfsubjectrulesreview.ts';
import { subjectAccessReviewKind } from './authorization/subjectaccessreview.ts';
import type { BuiltinKind, KindServices } from './builtin-kind.ts';
import { leaseKind } from './coordination/lease.ts';
import { configMapKind } from './core/configmap.ts';
import { coreEventKind } from './core/event.ts';
import { namespaceKind } from './core/namespace.ts';
import { nodeKind } from './core/node.ts';
import { podKind } from './core/pod.ts';
import { secretKind } from './core/secret.ts';
import { serviceKind } from './core/service.ts';
import { serviceAccountKind } from './core/serviceaccount.ts';
import { eventsV1EventKind } from './events/event.ts';
import { networkPolicyKind } from './networking/networkpolicy.ts';
import { podDisruptionBudgetKind } from './policy/poddisruptionbudget.ts';
import { clusterRoleKind } from './rbac/clusterrole.ts';
import { clusterRoleBindingKind } from './rbac/clusterrolebinding.ts';
import { roleKind } from './rbac/role.ts';
import { roleBindingKind } from './rbac/rolebinding.ts';

export const BUILTIN_KINDS: readonly BuiltinKind[] = [
  // core/v1
  configMapKind,
  coreEventKind,
  namespaceKind,
  nodeKind,
  podKind,
  secretKind,
  serviceKind,
  serviceAccountKind,
  // apps/v1
  controllerRevisionKind,
  daemonSetKind,
  deploymentKind,
  // events.k8s.io/v1
  eventsV1EventKind,
  // authentication.k8s.io, authorization.k8s.io
  selfSubjectReviewKind,
  tokenReviewKind,
  subjectAccessReviewKind,
  selfSubjectAccessReviewKind,
  selfSubjectRulesReviewKind,
  // networking.k8s.io/v1
  networkPolicyKind,
  // policy/v1
  podDisruptionBudgetKind,
  // rbac.authorization.k8s.io/v1
  clusterRoleBindingKind,
  clusterRoleKind,
  roleBindingKind,
  roleKind,
  // admissionregistration.k8s.io/v1
  validatingAdmissionPolicyKind,
  validatingAdmissionPolicyBindingKind,
  // apiextensions.k8s.io/v1
  customResourceDefinitionKind,
  // coordination.k8s.io/v1
  leaseKind,
];

const resourceKey = (group: string, resource: string): string => `${group}/${resource}`;

const kindsByResource = new Map<string, BuiltinKind>();
for (const kind of BUILTIN_KINDS) {
  for (const def of kind.definitions()) kindsByResource.set(resourceKey(def.group, def.resource), kind);
}

/** The built-in kind serving `def`'s resource; undefined for custom resources. */
export function builtinKindOf(
  def: Pick<ResourceDefinition, 'group' | 'resource' | 'builtin'>,
): BuiltinKind | undefined {
  return def.builtin ? kindsByResource.get(resourceKey(def.group, def.resource)) : undefined;
}

/** A fresh copy of every built-in definition, in the order kube lists their groups. */
export function builtinResources(): ResourceDefinition[] {
  const defs = BUILTIN_KINDS.flatMap((kind) => kind.definitions());
  // A view (events.k8s.io Events) reads and writes the storage of the resource it names.
  for (const kind of BUILTIN_KINDS) {
    const view = kind.storedAs;
    if (!view) continue;
    const stored = defs.find((d) => d.group === view.group && d.resource === view.resource)!;
    const served = new Set(kind.definitions().map((d) => resourceKey(d.group, d.resource)));
    for (const def of defs) {
      if (served.has(resourceKey(def.group, def.resource))) {
        def.storedAs = { def: stored, toStorage: view.toStorage, fromStorage: view.fromStorage };
      }
    }
  }
  return defs;
}

/** The protobuf messages of every built-in kind and its subresources' bodies, by `<apiVersion>/<Kind>`. */
export const BUILTIN_PROTOBUF_MESSAGES: ReadonlyMap<string, MessageSpec> = new Map(
  BUILTIN_KINDS.flatMap((kind) => Object.entries(kind.protobuf ?? {})),
);

/** Runs what kube's decoder enforces on the Go type of `def`'s kind (time fields, value types); 400 if not. */
export function decodeBuiltin(def: ResourceDefinition, obj: Record<string, any>): void {
  decodeBuiltinObject(def, obj, builtinKindOf(def)?.decoding);
}

/** The decoding of each built-in kind as a strategy: it runs before the kind's own. */
const decodingStrategy: KindStrategy = {
  prepare(obj, _old, ctx) {
    decodeBuiltin(ctx.def, obj);
  },
};

/**
 * The strategies of a built-in resource's writes, in order: the schema's pruning of unknown top-level
 * fields, the kind's decoding, the kind's own strategies, then `after` (the profile's validation).
 */
export function builtinStrategies(
  services: KindServices,
  pruning: KindStrategy,
  after: readonly KindStrategy[],
): (def: ResourceDefinition) => KindStrategy[] {
  const byKind = new Map<BuiltinKind, KindStrategy[]>();
  for (const kind of BUILTIN_KINDS) {
    byKind.set(kind, [pruning, decodingStrategy, ...(kind.strategies?.(services) ?? []), ...after]);
  }
  const unknown = [pruning, decodingStrategy, ...after];
  return (def) => {
    const kind = builtinKindOf(def);
    return (kind && byKind.get(kind)) ?? unknown;
  };
}

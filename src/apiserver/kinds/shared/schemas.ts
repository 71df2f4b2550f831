// The parts of a built-in kind's definition most kinds share: its verbs, and a schema that names its real
// top-level fields (so a typo such as `spce:` is caught by strict field validation, as kube does) while
// leaving nested structures open (x-kubernetes-preserve-unknown-fields). kubectl computes strategic
// merge patches for these kinds from its compiled-in types, never from these schemas
// (see docs/kubectl-compatibility.md).
//
// metadata.generation (`tracksGeneration`): kube bumps it only for kinds with a spec/status split whose
// strategy tracks it; of ours: DaemonSet, Deployment, NetworkPolicy, PodDisruptionBudget, the admission
// policies and CustomResourceDefinition.

import type { JSONSchemaProps, ResourceDefinition, Verb } from '../../registry/resource-definition.ts';

export const ALL_VERBS: readonly Verb[] = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];

type Defaulted =
  | 'singular'
  | 'listKind'
  | 'shortNames'
  | 'categories'
  | 'verbs'
  | 'subresources'
  | 'selectableFields'
  | 'tracksGeneration';

type Base = Omit<ResourceDefinition, 'schema' | 'builtin' | Defaulted> &
  Partial<Pick<ResourceDefinition, Defaulted>> & {
    schema: JSONSchemaProps;
  };

/**
 * A built-in definition, marked built in. What most kinds share may be left out: the singular is the
 * kind in lower case, the list kind is the kind and `List`, no short names, no categories, every verb,
 * no subresources, no field selectors beyond metadata's, and no generation tracking.
 */
export function builtin(d: Base): ResourceDefinition {
  return {
    ...d,
    singular: d.singular ?? d.kind.toLowerCase(),
    listKind: d.listKind ?? `${d.kind}List`,
    shortNames: d.shortNames ?? [],
    categories: d.categories ?? [],
    verbs: d.verbs ?? [...ALL_VERBS],
    subresources: d.subresources ?? {},
    selectableFields: d.selectableFields ?? {},
    tracksGeneration: d.tracksGeneration ?? false,
    builtin: true,
  };
}

export const open = (description: string): JSONSchemaProps => ({
  type: 'object',
  description,
  'x-kubernetes-preserve-unknown-fields': true,
});
export const str = (description: string): JSONSchemaProps => ({ type: 'string', description });
export const int = (description: string): JSONSchemaProps => ({ type: 'integer', description });

export function kindSchema(description: string, fields: Record<string, JSONSchemaProps>): JSONSchemaProps {
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

export const specStatus = (what: string): Record<string, JSONSchemaProps> => ({
  spec: open(`Spec defines the desired behavior of the ${what}.`),
  status: open(`Status is the most recently observed status of the ${what}. Populated by the system.`),
});

/**
 * The parts of a kind with a spec/status split: a schema naming both, and a status subresource (writes to
 * the main resource keep the stored status, writes to /status keep everything else).
 */
export function withStatus(description: string, what: string): Pick<Base, 'subresources' | 'schema'> {
  return { subresources: { status: true }, schema: kindSchema(description, specStatus(what)) };
}

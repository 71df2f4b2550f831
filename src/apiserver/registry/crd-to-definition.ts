// Turns an apiextensions.k8s.io/v1 CustomResourceDefinition into the definitions it serves: one per
// served version, and only once the CRD is Established (as kube-apiserver does). Versions are served
// with conversion strategy None: each keeps its own schema and printer columns, objects are the same
// JSON whatever the version, and only apiVersion differs.

import { definedFields } from '../../util/defined-fields.ts';
import type { KubeObject } from '../storage/types.ts';
import type { JSONSchemaProps, PrinterColumn, ResourceDefinition, Verb } from './resource-definition.ts';

const CUSTOM_RESOURCE_VERBS: Verb[] = [
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'create',
  'update',
  'watch',
];

/** kube serves this column when a version declares no additionalPrinterColumns. */
const DEFAULT_COLUMNS: PrinterColumn[] = [
  {
    name: 'Age',
    type: 'date',
    jsonPath: '.metadata.creationTimestamp',
    description:
      'CreationTimestamp is a timestamp representing the server time when this object was created.',
  },
];

export function isEstablished(crd: KubeObject): boolean {
  const conditions: KubeObject[] = crd?.status?.conditions ?? [];
  return conditions.some((c) => c?.type === 'Established' && c?.status === 'True');
}

/** The version marked storage: true, if any. */
export function crdStorageVersion(crd: KubeObject): string | undefined {
  const versions: KubeObject[] = crd?.spec?.versions ?? [];
  return versions.find((v) => v?.storage === true)?.name;
}

export function crdToDefinitions(crd: KubeObject): ResourceDefinition[] {
  if (!isEstablished(crd)) return [];
  const spec = crd.spec ?? {};
  // Discovery serves the names the naming controller accepted; fall back to spec.names before it ran.
  const accepted = crd.status?.acceptedNames;
  const names = accepted?.plural && accepted?.kind ? accepted : (spec.names ?? {});
  const kind: string = names.kind ?? '';
  const resource: string = names.plural ?? '';
  if (!spec.group || !kind || !resource) return [];

  const versions: KubeObject[] = spec.versions ?? [];
  return versions
    .filter((v) => v?.served === true && typeof v.name === 'string')
    .map((v) => ({
      group: spec.group,
      version: v.name,
      resource,
      singular: names.singular || kind.toLowerCase(),
      kind,
      listKind: names.listKind || `${kind}List`,
      namespaced: spec.scope === 'Namespaced',
      shortNames: [...(names.shortNames ?? [])],
      categories: [...(names.categories ?? [])],
      verbs: [...CUSTOM_RESOURCE_VERBS],
      // Scale is not served: only the status subresource.
      subresources: v.subresources?.status !== undefined ? { status: true } : {},
      builtin: false,
      ...schemaOf(v),
      printerColumns: printerColumnsOf(v),
      selectableFields: selectableFieldsOf(v),
      // Custom resources always carry metadata.generation.
      tracksGeneration: true,
    }));
}

function schemaOf(version: KubeObject): { schema?: JSONSchemaProps } {
  const schema = version.schema?.openAPIV3Schema;
  return schema && typeof schema === 'object' ? { schema } : {};
}

function printerColumnsOf(version: KubeObject): PrinterColumn[] {
  const columns: KubeObject[] = version.additionalPrinterColumns ?? [];
  if (columns.length === 0) return DEFAULT_COLUMNS.map((c) => ({ ...c }));
  return columns.map((c) => ({
    name: c.name,
    type: c.type,
    jsonPath: c.jsonPath,
    ...definedFields({ format: c.format, description: c.description, priority: c.priority }),
  }));
}

/**
 * spec.versions[].selectableFields (GA in 1.32): the field label is the JSON path without its
 * leading dot; the value is the field's string, number or boolean rendered as text, or '' when unset.
 */
function selectableFieldsOf(version: KubeObject): ResourceDefinition['selectableFields'] {
  const fields: Record<string, (object: KubeObject) => string | undefined> = {};
  for (const entry of (version.selectableFields ?? []) as KubeObject[]) {
    const jsonPath: unknown = entry?.jsonPath;
    if (typeof jsonPath !== 'string' || !jsonPath.startsWith('.')) continue;
    const path = jsonPath.slice(1).split('.');
    fields[jsonPath.slice(1)] = (object) => {
      let value: unknown = object;
      for (const segment of path) {
        if (value === null || typeof value !== 'object') return '';
        value = (value as KubeObject)[segment];
      }
      return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
        ? String(value)
        : '';
    };
  }
  return fields;
}

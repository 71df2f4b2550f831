// meta.k8s.io Table responses (what `kubectl get` asks for with `as=Table`), built the way
// apiextensions' table convertor does for custom resources: a Name column, then the printer columns
// (or a single `Age` column when none are declared). `date` cells carry the age (`5m`), as kube
// renders them server-side; rows carry PartialObjectMetadata unless includeObject says otherwise.

import { ApiError } from '../errors.ts';
import type { PrinterColumn } from '../registry/resource-definition.ts';
import type { KubeObject } from '../storage/types.ts';
import { ageOf } from './human-duration.ts';
import { evaluateJsonPath, formatJsonPathResult, type JsonPath, parseJsonPath } from './jsonpath.ts';
import {
  type ListMeta,
  listMetadata,
  type MetaGroupVersion,
  toPartialObjectMetadata,
} from './partial-object-metadata.ts';

export {
  type NegotiatedOutput,
  negotiateOutput,
  type OutputChoice,
  targetMismatch,
} from './media-negotiation.ts';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableRow {
  cells: unknown[];
  /** PartialObjectMetadata, the full object, or null (includeObject=None). */
  object: KubeObject | null;
}

export interface Table {
  kind: 'Table';
  apiVersion: MetaGroupVersion;
  metadata: ListMeta;
  /** null when headers were suppressed (every watch event after the first). */
  columnDefinitions: TableColumnDefinition[] | null;
  rows: TableRow[];
}

const nameDescription =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const creationTimestampDescription =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** What kube serves for a CRD version without additionalPrinterColumns. */
export const DEFAULT_PRINTER_COLUMNS: readonly PrinterColumn[] = [
  {
    name: 'Age',
    type: 'date',
    description: creationTimestampDescription,
    jsonPath: '.metadata.creationTimestamp',
  },
];

export interface TableOptions {
  /** The resource's printer columns; empty means the default Age column. */
  columns: readonly PrinterColumn[];
  /** Default Metadata, as kube's TableOptions. */
  includeObject?: IncludeObject;
  apiVersion?: MetaGroupVersion;
  /** List metadata (resourceVersion, continue); for a single object, its resourceVersion. */
  listMeta?: ListMeta;
  /** Omit column definitions (kube does for every watch event after the first). */
  noHeaders?: boolean;
  /** Clock for `date` cells, in ms since the epoch. */
  now?: number;
}

/** The includeObject query parameter; kube answers 400 for anything else. */
export function parseIncludeObject(value: string | null | undefined): IncludeObject {
  if (value === null || value === undefined || value === '') return 'Metadata';
  if (value === 'None' || value === 'Metadata' || value === 'Object') return value;
  throw new ApiError(400, 'BadRequest', `unrecognized includeObject value: "${value}"`);
}

interface CompiledColumn {
  column: PrinterColumn;
  path: JsonPath | undefined;
}

function compile(column: PrinterColumn): CompiledColumn {
  try {
    return { column, path: parseJsonPath(`{${column.jsonPath}}`) };
  } catch {
    return { column, path: undefined }; // an unparseable path yields empty cells, as in kube
  }
}

function columnValue(compiled: CompiledColumn, object: KubeObject): unknown {
  if (compiled.column.compute) return compiled.column.compute(object) ?? null;
  if (!compiled.path) return null;
  const results = evaluateJsonPath(compiled.path, object);
  return results.length > 0 ? results[0] : null;
}

/** cellForJSONValue: the cell for a column type, null when the value does not fit it. */
function cell(type: PrinterColumn['type'], value: unknown, now: number): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'string':
      return formatJsonPathResult(value);
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      return typeof value === 'string' ? ageOf(value, now) : null;
    default:
      return null;
  }
}

function definition(column: PrinterColumn): TableColumnDefinition {
  return {
    name: column.name,
    type: column.type,
    format: column.format ?? '',
    description:
      column.description || `Custom resource definition column (in JSONPath format): ${column.jsonPath}`,
    priority: column.priority ?? 0,
  };
}

function rowObject(
  object: KubeObject,
  include: IncludeObject,
  apiVersion: MetaGroupVersion,
): KubeObject | null {
  if (include === 'Object') return object;
  if (include === 'None') return null;
  return toPartialObjectMetadata(object, apiVersion);
}

export function buildTable(objects: readonly KubeObject[], options: TableOptions): Table {
  const columns = (options.columns.length > 0 ? options.columns : DEFAULT_PRINTER_COLUMNS).map(compile);
  const apiVersion = options.apiVersion ?? 'meta.k8s.io/v1';
  const include = options.includeObject ?? 'Metadata';
  const now = options.now ?? Date.now();
  const headers: TableColumnDefinition[] = [
    { name: 'Name', type: 'string', format: 'name', description: nameDescription, priority: 0 },
    ...columns.map((c) => definition(c.column)),
  ];
  return {
    kind: 'Table',
    apiVersion,
    metadata: listMetadata(options.listMeta ?? {}),
    columnDefinitions: options.noHeaders ? null : headers,
    rows: objects.map((object) => ({
      cells: [
        object.metadata?.name ?? '',
        ...columns.map((c) => cell(c.column.type, columnValue(c, object), now)),
      ],
      object: rowObject(object, include, apiVersion),
    })),
  };
}

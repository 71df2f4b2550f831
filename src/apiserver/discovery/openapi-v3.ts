// /openapi/v3 and its per group-version documents, built from the registry.
//
// What kubectl 1.32 needs from them (docs/kubectl-compatibility.md has the evidence):
// - every PATCH operation carries x-kubernetes-group-version-kind and a `fieldValidation` query
//   parameter: kubectl then leaves validation to the server (?fieldValidation=Strict) instead of
//   downloading /openapi/v2 (which we do not serve) to validate client-side;
// - PATCH request bodies do NOT list application/strategic-merge-patch+json, although the server
//   accepts it for built-in kinds: kubectl would otherwise derive strategic-merge-patch metadata
//   (merge keys) from our deliberately shallow schemas, and compute wrong patches. Without it,
//   kubectl apply uses its compiled-in Go types, which carry kube's exact merge keys;
// - components.schemas carry x-kubernetes-group-version-kind so kubectl explain finds each kind.

import type { ResourceDefinition } from '../registry/resource-definition.ts';
import type { ResourceRegistry } from '../registry/resource-registry.ts';
import { canonicalJson, documentHash } from './document-hash.ts';
import {
  DELETE_OPTIONS,
  EVICTION,
  evictionSchema,
  kindSchema,
  listSchema,
  metaSchemas,
  type OpenAPISchema,
  PATCH,
  ref,
  STATUS,
  schemaName,
} from './openapi-schemas.ts';
import { subresourcesOf } from './subresources.ts';
import { KUBE_MAJOR, KUBE_MINOR, KUBE_PATCH } from './version-info.ts';

/** The key of a group-version in the /openapi/v3 root ("api/v1", "apis/apps/v1"). */
export function openApiV3Key(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

// --------------------------------------------------------------------------------------- parameters

const query = (name: string, description: string, type = 'string'): OpenAPISchema => ({
  name,
  in: 'query',
  description,
  schema: { type, uniqueItems: true },
});
const pathParam = (name: string, description: string): OpenAPISchema => ({
  name,
  in: 'path',
  description,
  required: true,
  schema: { type: 'string', uniqueItems: true },
});

const P = {
  pretty: query('pretty', "If 'true', then the output is pretty printed."),
  dryRun: query(
    'dryRun',
    'When present, indicates that modifications should not be persisted. Valid value: All.',
  ),
  fieldManager: query(
    'fieldManager',
    'fieldManager is a name associated with the actor or entity that is making these changes.',
  ),
  fieldValidation: query(
    'fieldValidation',
    'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields. Valid values are: Ignore, Warn (the default) and Strict.',
  ),
  force: query('force', 'Force is going to "force" Apply requests.', 'boolean'),
  labelSelector: query(
    'labelSelector',
    'A selector to restrict the list of returned objects by their labels.',
  ),
  fieldSelector: query(
    'fieldSelector',
    'A selector to restrict the list of returned objects by their fields.',
  ),
  limit: query('limit', 'limit is a maximum number of responses to return for a list call.', 'integer'),
  continue: query(
    'continue',
    'The continue option should be set when retrieving more results from the server.',
  ),
  resourceVersion: query(
    'resourceVersion',
    'resourceVersion sets a constraint on what resource versions a request may be served from.',
  ),
  resourceVersionMatch: query(
    'resourceVersionMatch',
    'resourceVersionMatch determines how resourceVersion is applied to list calls.',
  ),
  timeoutSeconds: query('timeoutSeconds', 'Timeout for the list/watch call.', 'integer'),
  watch: query(
    'watch',
    'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.',
    'boolean',
  ),
  allowWatchBookmarks: query(
    'allowWatchBookmarks',
    'allowWatchBookmarks requests watch events with type "BOOKMARK".',
    'boolean',
  ),
  gracePeriodSeconds: query(
    'gracePeriodSeconds',
    'The duration in seconds before the object should be deleted.',
    'integer',
  ),
  propagationPolicy: query(
    'propagationPolicy',
    "Whether and how garbage collection will be performed: 'Orphan', 'Background' or 'Foreground'.",
  ),
  name: pathParam('name', 'name of the object'),
  namespace: pathParam('namespace', 'object name and auth scope, such as for teams and projects'),
};

const LIST_PARAMS = [
  P.allowWatchBookmarks,
  P.continue,
  P.fieldSelector,
  P.labelSelector,
  P.limit,
  P.resourceVersion,
  P.resourceVersionMatch,
  P.timeoutSeconds,
  P.watch,
];
const WRITE_PARAMS = [P.dryRun, P.fieldManager, P.fieldValidation];

// --------------------------------------------------------------------------------------- operations

const json = (schema: OpenAPISchema) => ({ 'application/json': { schema } });
const ok = (schema: OpenAPISchema, description = 'OK') => ({ description, content: json(schema) });
const unauthorized = { description: 'Unauthorized' };

/** How kube names operations: listCoreV1NamespacedPod, patchNodeherdIoV1alpha1NodeConfigPool, ... */
function operationPrefix(def: ResourceDefinition): string {
  const cap = (w: string) => (w ? w[0]!.toUpperCase() + w.slice(1) : w);
  const group =
    def.group === ''
      ? 'Core'
      : def.builtin
        ? cap(def.group.split('.')[0]!)
        : def.group.split(/[.-]/).map(cap).join('');
  return `${group}${cap(def.version)}`;
}

interface Operation {
  operationId: string;
  description: string;
  tags: string[];
  parameters: OpenAPISchema[];
  requestBody?: OpenAPISchema;
  responses: Record<string, unknown>;
  'x-kubernetes-action': string;
  'x-kubernetes-group-version-kind': { group: string; version: string; kind: string };
}

function operation(
  def: ResourceDefinition,
  action: string,
  id: string,
  description: string,
  parameters: OpenAPISchema[],
  responses: Record<string, unknown>,
  requestBody?: OpenAPISchema,
  kind: { group: string; version: string; kind: string } = {
    group: def.group,
    version: def.version,
    kind: def.kind,
  },
): Operation {
  return {
    operationId: id,
    description,
    tags: [`${operationPrefix(def)[0]!.toLowerCase()}${operationPrefix(def).slice(1)}`],
    parameters: [P.pretty, ...parameters],
    ...(requestBody ? { requestBody } : {}),
    responses: { ...responses, 401: unauthorized },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': kind,
  };
}

/** Patch types kubectl may send; strategic merge patch deliberately left out (see the file header). */
function patchBody(): OpenAPISchema {
  const schema = ref(PATCH);
  return {
    content: { 'application/json-patch+json': { schema }, 'application/merge-patch+json': { schema } },
    required: true,
  };
}

const body = (schema: OpenAPISchema): OpenAPISchema => ({ content: json(schema), required: true });

/**
 * Read, replace and patch of one object or one of its subresources (`id`: the operation ids' tail,
 * `what`: the descriptions'), each where `has` allows its verb.
 */
function readReplacePatch(
  def: ResourceDefinition,
  id: string,
  what: string,
  object: OpenAPISchema,
  has: (verb: string) => boolean,
): Record<string, Operation> {
  const ops: Record<string, Operation> = {};
  const written = { 200: ok(object), 201: ok(object, 'Created') };
  if (has('get')) ops.get = operation(def, 'get', `read${id}`, `read ${what}`, [], { 200: ok(object) });
  if (has('update'))
    ops.put = operation(def, 'put', `replace${id}`, `replace ${what}`, WRITE_PARAMS, written, body(object));
  if (has('patch')) {
    const params = [...WRITE_PARAMS, P.force];
    ops.patch = operation(
      def,
      'patch',
      `patch${id}`,
      `partially update ${what}`,
      params,
      written,
      patchBody(),
    );
  }
  return ops;
}

function pathsFor(def: ResourceDefinition): Record<string, OpenAPISchema> {
  const prefix = operationPrefix(def);
  const scope = def.namespaced ? 'Namespaced' : '';
  const kindName = `${scope}${def.kind}`;
  const object = ref(schemaName(def));
  const list = ref(schemaName(def, def.listKind));
  const base = def.group ? `/apis/${def.group}/${def.version}` : `/api/${def.version}`;
  const collection = def.namespaced
    ? `${base}/namespaces/{namespace}/${def.resource}`
    : `${base}/${def.resource}`;
  const item = `${collection}/{name}`;
  const scopeParams = def.namespaced ? [P.namespace] : [];
  const has = (verb: string) => def.verbs.includes(verb as never);
  const paths: Record<string, OpenAPISchema> = {};

  const collectionOps: OpenAPISchema = { parameters: scopeParams };
  if (has('list')) {
    collectionOps.get = operation(
      def,
      'list',
      `list${prefix}${kindName}`,
      `list or watch objects of kind ${def.kind}`,
      LIST_PARAMS,
      { 200: ok(list) },
    );
  }
  if (has('create')) {
    collectionOps.post = operation(
      def,
      'post',
      `create${prefix}${kindName}`,
      `create a ${def.kind}`,
      WRITE_PARAMS,
      { 200: ok(object), 201: ok(object, 'Created'), 202: ok(object, 'Accepted') },
      body(object),
    );
  }
  if (has('deletecollection')) {
    collectionOps.delete = operation(
      def,
      'deletecollection',
      `deleteCollection${prefix}${kindName}`,
      `delete collection of ${def.kind}`,
      [...LIST_PARAMS, P.dryRun, P.gracePeriodSeconds, P.propagationPolicy],
      { 200: ok(ref(STATUS)) },
      { content: json(ref(DELETE_OPTIONS)) },
    );
  }
  paths[collection] = collectionOps;

  const itemOps: OpenAPISchema = {
    parameters: [P.name, ...scopeParams],
    ...readReplacePatch(def, `${prefix}${kindName}`, `the specified ${def.kind}`, object, has),
  };
  if (has('delete')) {
    itemOps.delete = operation(
      def,
      'delete',
      `delete${prefix}${kindName}`,
      `delete a ${def.kind}`,
      [P.dryRun, P.gracePeriodSeconds, P.propagationPolicy],
      { 200: ok(object), 202: ok(object, 'Accepted') },
      { content: json(ref(DELETE_OPTIONS)) },
    );
  }
  paths[item] = itemOps;

  if (def.namespaced && has('list')) {
    paths[`${base}/${def.resource}`] = {
      get: operation(
        def,
        'list',
        `list${prefix}${def.kind}ForAllNamespaces`,
        `list or watch objects of kind ${def.kind}`,
        LIST_PARAMS,
        { 200: ok(list) },
      ),
    };
  }

  for (const sub of subresourcesOf(def)) {
    // TokenRequest has no schema here; kubectl create token posts it without consulting OpenAPI.
    if (sub.name === 'token') continue;
    const subPath = `${item}/${sub.name}`;
    const Sub = sub.name[0]!.toUpperCase() + sub.name.slice(1);
    const ops: OpenAPISchema = { parameters: [P.name, ...scopeParams] };
    if (sub.name === 'eviction') {
      const eviction = ref(EVICTION);
      const kind = { group: sub.group, version: sub.version, kind: sub.kind };
      ops.post = operation(
        def,
        'post',
        `create${prefix}${kindName}Eviction`,
        `create eviction of a ${def.kind}`,
        WRITE_PARAMS,
        { 200: ok(eviction), 201: ok(eviction, 'Created'), 202: ok(eviction, 'Accepted') },
        body(eviction),
        kind,
      );
    } else {
      const what = `${sub.name} of the specified ${def.kind}`;
      Object.assign(
        ops,
        readReplacePatch(def, `${prefix}${kindName}${Sub}`, what, object, () => true),
      );
    }
    paths[subPath] = ops;
  }
  return paths;
}

// --------------------------------------------------------------------------------------- documents

/** Splits a root key ("api/v1", "apis/apps/v1") into group and version. */
export function parseOpenApiV3Key(key: string): { group: string; version: string } | undefined {
  const parts = key.split('/').filter((p) => p !== '');
  if (parts[0] === 'api' && parts.length === 2) return { group: '', version: parts[1]! };
  if (parts[0] === 'apis' && parts.length === 3) return { group: parts[1]!, version: parts[2]! };
  return undefined;
}

/**
 * GET /openapi/v3/<key>: the document of one group-version ("api/v1", "apis/apps/v1"), or
 * undefined when it is not served.
 */
export function openApiV3Document(registry: ResourceRegistry, key: string) {
  const gv = parseOpenApiV3Key(key);
  const defs = gv ? registry.resources(gv.group, gv.version) : [];
  if (defs.length === 0) return undefined;
  const paths: Record<string, OpenAPISchema> = {};
  const schemas: Record<string, OpenAPISchema> = metaSchemas();
  for (const def of defs) {
    Object.assign(paths, pathsFor(def));
    schemas[schemaName(def)] = kindSchema(def);
    schemas[schemaName(def, def.listKind)] = listSchema(def);
    if (def.subresources.eviction) schemas[EVICTION] = evictionSchema();
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: `v${KUBE_MAJOR}.${KUBE_MINOR}.${KUBE_PATCH}` },
    paths,
    components: { schemas },
  };
}

/**
 * The hash of a group-version document: upper-case SHA-512 of its canonical JSON, i.e. of the exact
 * body served for it (serialise with canonicalJson), so the root's URLs and the ETags agree.
 */
export function openApiV3Hash(registry: ResourceRegistry, key: string): string | undefined {
  const doc = openApiV3Document(registry, key);
  return doc ? documentHash(canonicalJson(doc)) : undefined;
}

/**
 * GET /openapi/v3: where each group-version document lives, its hash in the URL. kubectl caches
 * documents on disk by these URLs, so a CRD change yields a new URL for the documents it touches.
 */
export function openApiV3Root(registry: ResourceRegistry) {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const g of registry.groups()) {
    for (const version of g.versions) {
      const key = openApiV3Key(g.group, version);
      const hash = openApiV3Hash(registry, key);
      if (hash) paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
    }
  }
  return { paths };
}

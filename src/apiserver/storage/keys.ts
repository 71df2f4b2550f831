// The storage key space: where each object lives in the store (`/<group or core>/<resource>/<namespace>/<name>`),
// a list's key prefix, and the way back from a key to its resource. The store itself treats keys as opaque
// strings; everything that builds or reads one uses these functions, so the layout is defined once, here.

/** The storage key of one object: `/<group or core>/<resource>/<namespace>/<name>`. */
export function objectKey(
  group: string,
  resource: string,
  namespace: string | undefined,
  name: string,
): string {
  return `/${group || 'core'}/${resource}/${namespace ?? ''}/${name}`;
}

/** The key prefix of a list: all namespaces when namespace is undefined for a namespaced resource. */
export function listPrefix(group: string, resource: string, namespace: string | undefined): string {
  const base = `/${group || 'core'}/${resource}/`;
  return namespace === undefined ? base : `${base}${namespace}/`;
}

export interface ParsedKey {
  group: string;
  resource: string;
  namespace: string | undefined;
  name: string;
}

/** The resource, namespace and name an object key names; undefined for anything else. */
export function parseKey(key: string): ParsedKey | undefined {
  const parts = key.split('/');
  // ['', group, resource, namespace, name]
  if (parts.length !== 5) return undefined;
  const [, group, resource, namespace, name] = parts as [string, string, string, string, string];
  return {
    group: group === 'core' ? '' : group,
    resource,
    namespace: namespace === '' ? undefined : namespace,
    name,
  };
}

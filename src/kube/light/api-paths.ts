// Builds request paths for API objects so callers do not concatenate (and forget to escape) them:
// core kinds live under /api/v1, grouped kinds under /apis/<group>/<version>.

export interface ResourceRef {
  /** `v1` for the core group, else `<group>/<version>`, e.g. `nodeherd.io/v1alpha1`. */
  apiVersion: string;
  /** Lower-case plural resource name, e.g. `nodes`. */
  resource: string;
  namespace?: string;
  name?: string;
  subresource?: string;
}

/** `/api/v1/nodes`, `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1`, … */
export function resourcePath(ref: ResourceRef): string {
  if (ref.subresource !== undefined && ref.name === undefined) {
    throw new Error(`subresource ${ref.subresource} needs an object name`);
  }
  const root = ref.apiVersion.includes('/') ? `/apis/${ref.apiVersion}` : `/api/${ref.apiVersion}`;
  const namespace = ref.namespace !== undefined ? `/namespaces/${segment(ref.namespace)}` : '';
  const name = ref.name !== undefined ? `/${segment(ref.name)}` : '';
  const subresource = ref.subresource !== undefined ? `/${segment(ref.subresource)}` : '';
  return `${root}${namespace}/${segment(ref.resource)}${name}${subresource}`;
}

function segment(value: string): string {
  if (value === '' || value === '.' || value === '..')
    throw new Error(`invalid path segment ${JSON.stringify(value)}`);
  return encodeURIComponent(value);
}

/** Appends query parameters to a path, leaving out undefined ones. */
export function withQuery(
  path: string,
  query: Record<string, string | number | boolean | undefined> = {},
): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) params.append(key, String(value));
  }
  const text = params.toString();
  if (text === '') return path;
  return `${path}${path.includes('?') ? '&' : '?'}${text}`;
}

// resourceVersions are opaque to clients, but both kube-apiserver (etcd revisions) and the embedded
// server issue increasing integers. The informer's write-through cache needs "which copy is newer" so
// that a late watch event never overwrites the object our own write returned.

/** True when a is newer than b; unknown (non-numeric or missing) versions count as newer. */
export function isNewerVersion(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b || !/^\d+$/.test(a) || !/^\d+$/.test(b)) return true;
  if (a.length !== b.length) return a.length > b.length;
  return a > b;
}

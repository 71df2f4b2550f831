// Size limits, chosen together so that every object nodeherd stores fits in etcd.
//
// etcd refuses requests above 1.5 MiB by default (--max-request-bytes), so no single object may get
// near that. Content (file data, unit files, drop-ins) of one object is capped at 1 MiB in total,
// which leaves half a MiB for metadata, managedFields and the rest of the spec. The cap applies to
// a NodeConfig and again to the rendered NodeConfigRevision, which merges several NodeConfigs into
// one object. One file may hold at most 1 MiB decoded: that is also the Kubernetes Secret limit,
// so inline files and secretRef files share one bound. Note that `kubectl apply` (client side)
// copies the whole object into an annotation limited to 256 KiB: large configs need
// `kubectl apply --server-side` or `kubectl create/replace`.

export const MiB = 1024 * 1024;

/** Decoded bytes of one file, inline or from a Secret. */
export const MAX_FILE_BYTES = MiB;

/** Stored characters of all content fields of one object (NodeConfig or NodeConfigRevision). */
export const MAX_CONTENT_BYTES_PER_OBJECT = MiB;

/** Linux PATH_MAX is 4096 including the terminating NUL. */
export const MAX_PATH_LENGTH = 4095;

/** systemd's UNIT_NAME_MAX is 256 including the terminating NUL. */
export const MAX_UNIT_NAME_LENGTH = 255;

/** Longest NodeConfigPool name: pool names are used as label values (63) and prefix revision names. */
export const MAX_POOL_NAME_LENGTH = 63;

/** Longest health probe timeout; a probe that needs longer is a soak time, not a probe. */
export const MAX_PROBE_TIMEOUT_SECONDS = 300;

// Bounds of lists and strings the CRDs' CEL rules read: kube-apiserver estimates a rule's cost from
// them (a list without maxItems counts as millions of items) and refuses a CRD over its budget
// (test/api/crd-cost.test.ts). A merged NodeConfigRevision is not capped by them.
export const MAX_FILES = 256;
export const MAX_UNITS = 128;
export const MAX_DROP_INS = 32;
export const MAX_UNIT_REFERENCES = 64;
export const MAX_REPOSITORIES = 64;
export const MAX_PACKAGES = 512;
export const MAX_POLICIES = 256;
export const MAX_PROBE_ARGUMENTS = 64;
export const MAX_URL_LENGTH = 2048;

// Size limits on what a client may send, as kube-apiserver sets them. Kept below the HTTP layer so the
// readers that bound their own work by them (a JSON patch's copies, a YAML document's aliases) need not
// import the handlers.

/** kube-apiserver's default maximum request body (3 MiB). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

// Sizes a request may reach, shared by the readers of bodies (http/) and of patches (patch/), which
// must agree: a patch may neither arrive nor grow past what a body may be.

/** kube-apiserver's default maximum request body (3 MiB). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

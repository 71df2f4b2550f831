// kubectl and the Kubernetes API server read YAML with go-yaml v2 (sigs.k8s.io/yaml), i.e. YAML 1.1:
// `mode: 0644` is octal 420 there, but decimal 644 under the yaml library's default YAML 1.2. Every
// YAML nodeherd reads a Kubernetes object from uses these options, so a file means the same to
// `kubectl apply`, `nodeherd plan` and the embedded API server.
export const KUBE_YAML = { version: '1.1' } as const;

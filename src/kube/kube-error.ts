// An API request that failed, with the HTTP status and the server's Status reason, so callers can tell
// a conflict (409) from a missing object (404) or a PDB refusing an eviction (429).

export class KubeError extends Error {
  readonly status: number;
  /** metav1.Status reason, e.g. NotFound, Conflict, TooManyRequests. */
  readonly reason: string;
  readonly body: unknown;

  constructor(status: number, reason: string, message: string, body?: unknown) {
    super(message);
    this.name = 'KubeError';
    this.status = status;
    this.reason = reason;
    this.body = body;
  }
}

export function isKubeError(error: unknown, status?: number): error is KubeError {
  return error instanceof KubeError && (status === undefined || error.status === status);
}

/** Builds the error from a response: the Status object's message when the body is one. */
export function kubeErrorFromResponse(status: number, method: string, path: string, text: string): KubeError {
  let body: unknown = text;
  let reason = '';
  let message = `${method} ${path}: HTTP ${status}`;
  try {
    body = JSON.parse(text);
    const s = body as { kind?: string; reason?: string; message?: string };
    if (s && s.kind === 'Status') {
      reason = s.reason ?? '';
      if (s.message) message = `${method} ${path}: ${s.message}`;
    }
  } catch {
    if (text) message = `${message}: ${text.slice(0, 200)}`;
  }
  return new KubeError(status, reason, message, body);
}

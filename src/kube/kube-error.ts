// A failed API call, as the API server described it in a metav1.Status body (kind Status, status
// Failure, code, reason, message, details), with the HTTP status, so callers can tell a conflict (409)
// from a missing object (404) or a PDB refusing an eviction (429). Built only from what the server
// sent back, so it never carries the request's credentials. The one error type of every client.

/** The wire form of metav1.Status (only the fields a client acts on). */
export interface KubeStatus {
  kind?: string;
  apiVersion?: string;
  status?: string;
  code?: number;
  reason?: string;
  message?: string;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
    retryAfterSeconds?: number;
  };
}

/** Error bodies that are not a Status (a proxy's HTML page, say) are kept only this long. */
const MAX_RAW_BODY_CHARS = 1024;

export class KubeError extends Error {
  /** HTTP status code (from the Status body's `code` for watch ERROR events; 0: no answer). */
  readonly status: number;
  /** Status reason, e.g. NotFound, Conflict, Expired; `Unknown` when the body was not a Status. */
  readonly reason: string;
  /** The Status body when the server sent one, else the (shortened) raw text. */
  readonly body: KubeStatus | string | undefined;

  constructor(status: number, reason: string, message: string, body?: KubeStatus | string) {
    super(message);
    this.name = 'KubeError';
    this.status = status;
    this.reason = reason;
    this.body = body;
  }

  /** Seconds the server asked the client to wait before retrying (429, 503), if it said. */
  get retryAfterSeconds(): number | undefined {
    return typeof this.body === 'object' ? this.body.details?.retryAfterSeconds : undefined;
  }
}

/** True when the error is a KubeError (with this HTTP status, when given). */
export function isKubeError(error: unknown, status?: number): error is KubeError {
  return error instanceof KubeError && (status === undefined || error.status === status);
}

/** True when the value looks like a metav1.Status object. */
export function isKubeStatus(value: unknown): value is KubeStatus {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'Status';
}

/**
 * The error for a Status object, e.g. the object of a watch ERROR event. `request` ("GET /path")
 * prefixes the message when given.
 */
export function kubeErrorFromStatus(status: KubeStatus, httpStatus?: number, request?: string): KubeError {
  const code = typeof status.code === 'number' && status.code > 0 ? status.code : (httpStatus ?? 500);
  const reason =
    typeof status.reason === 'string' && status.reason !== '' ? status.reason : reasonForCode(code);
  const message =
    typeof status.message === 'string' && status.message !== '' ? status.message : `HTTP ${code}`;
  return new KubeError(code, reason, prefixed(request, message), status);
}

/** The error for a non-2xx HTTP response, from its status code and body text. */
export function kubeErrorFromResponse(httpStatus: number, bodyText: string, request?: string): KubeError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    parsed = undefined;
  }
  if (isKubeStatus(parsed)) return kubeErrorFromStatus(parsed, httpStatus, request);
  const raw = bodyText.length > MAX_RAW_BODY_CHARS ? `${bodyText.slice(0, MAX_RAW_BODY_CHARS)}…` : bodyText;
  const summary =
    raw.trim() === '' ? `HTTP ${httpStatus}` : `HTTP ${httpStatus}: ${raw.trim().split('\n')[0]}`;
  return new KubeError(
    httpStatus,
    reasonForCode(httpStatus),
    prefixed(request, summary),
    raw === '' ? undefined : raw,
  );
}

function prefixed(request: string | undefined, message: string): string {
  return request === undefined ? message : `${request}: ${message}`;
}

// The reasons apimachinery's errors.FromObject/NewGenericServerResponse assign by code.
function reasonForCode(code: number): string {
  switch (code) {
    case 400:
      return 'BadRequest';
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'NotFound';
    case 405:
      return 'MethodNotAllowed';
    case 409:
      return 'Conflict';
    case 410:
      return 'Expired';
    case 415:
      return 'UnsupportedMediaType';
    case 422:
      return 'Invalid';
    case 429:
      return 'TooManyRequests';
    case 500:
      return 'InternalError';
    case 503:
      return 'ServiceUnavailable';
    case 504:
      return 'Timeout';
    default:
      return 'Unknown';
  }
}

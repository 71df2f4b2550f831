// Errors the nodeherd command reports as one line on stderr with exit code 1, never a stack: the
// message says what went wrong and, where it can, what to do about it.

import { isKubeError } from '../kube/kube-error.ts';

/** An error whose message is already what the user should read. */
export class CliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}

/** What the command knows about where it talked to, to word API errors. */
export interface ApiContext {
  server: string;
  /** The kubeconfig's user and context names. */
  user?: string;
  context?: string;
}

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EPIPE',
]);

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') return code;
  // AggregateError (happy eyeballs tried several addresses): the first cause names the problem.
  const first = (error as { errors?: unknown[] } | undefined)?.errors?.[0];
  return first ? errorCode(first) : undefined;
}

function whoAmI(context: ApiContext): string {
  const parts = [];
  if (context.user) parts.push(`kubeconfig user "${context.user}"`);
  if (context.context) parts.push(`context "${context.context}"`);
  return parts.length > 0 ? parts.join(', ') : 'the kubeconfig credentials';
}

/** Turns an error from talking to the API server into the line the user reads. */
export function describeApiError(error: unknown, context: ApiContext): string {
  if (error instanceof CliError) return error.message;
  const code = errorCode(error);
  if (code && UNREACHABLE_CODES.has(code)) {
    return `cannot reach the API server at ${context.server}: ${code === 'ECONNREFUSED' ? 'connect ' : ''}${code} — is \`nodeherd up\` running, or is KUBECONFIG right?`;
  }
  if (code && (code.includes('CERT') || code.includes('SELF_SIGNED') || code.startsWith('ERR_TLS'))) {
    return `the API server at ${context.server} failed TLS verification (${code}): is the kubeconfig's certificate-authority the server's?`;
  }
  if (isKubeError(error)) {
    if (error.status === 0 && error.reason === 'Timeout') {
      return `the API server at ${context.server} did not answer in time — is it overloaded, or is KUBECONFIG right?`;
    }
    if (error.status === 401) {
      return `the API server at ${context.server} does not accept the credentials of ${whoAmI(context)} (401 Unauthorized): is the token or certificate current?`;
    }
    // A collection of ours that does not exist: the cluster does not have the nodeherd.io CRDs.
    if (error.status === 404 && /^GET \/apis\/nodeherd\.io\/v1alpha1\/[a-z]+:/.test(error.message)) {
      return `the API server at ${context.server} does not serve nodeherd.io/v1alpha1: install the CRDs (kubectl apply -f deploy/crds/)`;
    }
    if (error.status === 403) {
      const shown = error.message.replace(/^\S+ \S+: /, '');
      return `forbidden as ${whoAmI(context)}: ${shown}`;
    }
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

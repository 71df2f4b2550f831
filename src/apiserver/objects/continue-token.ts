// A list's continue token: the revision the first page was read at and the last key answered, so the
// next page reads the same snapshot after that key. Opaque to clients (base64url JSON), as kube's is.

import { badRequest } from '../errors.ts';

export interface ContinueToken {
  rv: number;
  key: string;
}

export function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify(token)).toString('base64url');
}

export function decodeContinue(raw: string): ContinueToken {
  try {
    const parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (typeof parsed?.rv === 'number' && typeof parsed?.key === 'string') return parsed;
  } catch {
    // fall through to the error below
  }
  throw badRequest('continue key is not valid: malformed continue token');
}

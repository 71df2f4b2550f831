// Serialises discovery and OpenAPI documents canonically (sorted keys) and hashes them, so the same
// catalogue always yields byte-identical bodies and the same ETag. kubectl keys its on-disk OpenAPI
// cache on the hash embedded in /openapi/v3's URLs, so the hash must change exactly when the body does.

import { createHash } from 'node:crypto';

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = canonical(v);
    }
    return out;
  }
  return value;
}

/** JSON with object keys sorted at every level (arrays keep their order). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonical(value));
}

/** Upper-case hex SHA-512 of a serialised document, the form kube-apiserver uses for OpenAPI hashes. */
export function documentHash(body: string): string {
  return createHash('sha512').update(body).digest('hex').toUpperCase();
}

// Serialises discovery and OpenAPI documents canonically (sorted keys) and hashes them, so the same
// catalogue always yields byte-identical bodies and the same ETag. kubectl keys its on-disk OpenAPI
// cache on the hash embedded in /openapi/v3's URLs, so the hash must change exactly when the body does.

import { createHash } from 'node:crypto';
import { canonicalJson } from '../../util/canonical-json.ts';

/** JSON with object keys sorted at every level (arrays keep their order). */
export { canonicalJson };

/** Upper-case hex SHA-512 of a serialised document, the form kube-apiserver uses for OpenAPI hashes. */
export function documentHash(body: string): string {
  return createHash('sha512').update(body).digest('hex').toUpperCase();
}

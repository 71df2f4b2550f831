// The bytes of a managed file: inline content decoded, or a Secret's value fetched at apply time from
// exactly the Secret the revision was rendered with (its uid and resourceVersion), so the agent writes
// what was rendered, and a Secret changed since then fails loudly instead of rolling out unreviewed.
// The digest of a Secret value is kept only in the agent's root-only state (secret-digests.ts), for
// drift detection: revisions, which every node reads, carry none (issue 31).

import { createHash } from 'node:crypto';
import type { RenderedFile, SecretRef } from '../../api/types.ts';
import type { SecretDigests } from './secret-digests.ts';

/** A Secret key's decoded value and the version of the Secret it was read from. */
export interface SecretValue {
  value: Buffer;
  uid?: string;
  resourceVersion?: string;
}

/** Where secretRef contents come from. */
export interface SecretSource {
  /** The decoded value of `key` in the Secret and the Secret's version; throws when it does not exist. */
  read(ref: { namespace: string; name: string; key: string }): Promise<SecretValue>;
}

export async function fileContent(
  file: RenderedFile,
  secrets: SecretSource | undefined,
  digests?: SecretDigests,
): Promise<Buffer> {
  const inline = file.content.inline;
  if (inline) return Buffer.from(inline.data, inline.encoding === 'base64' ? 'base64' : 'utf8');
  const ref = file.content.secretRef;
  if (!ref) throw new Error(`file ${file.path} has neither inline content nor a secretRef`);
  if (!secrets) throw new Error(`file ${file.path}: no Secret source to read ${describe(ref)} from`);
  const read = await secrets.read(ref);
  for (const field of ['uid', 'resourceVersion'] as const) {
    if (ref[field] !== undefined && read[field] !== ref[field]) {
      throw new Error(
        `file ${file.path}: Secret ${describe(ref)} changed since the revision was rendered ` +
          `(${field} ${read[field] ?? 'unknown'}, rendered with ${ref[field]})`,
      );
    }
  }
  await digests?.record(ref, sha256(read.value));
  return read.value;
}

/** Hex sha256 of a file's expected content when it is known without fetching anything from the API. */
export function expectedDigest(file: RenderedFile, digests?: SecretDigests): string | undefined {
  const inline = file.content.inline;
  if (inline) return sha256(Buffer.from(inline.data, inline.encoding === 'base64' ? 'base64' : 'utf8'));
  const ref = file.content.secretRef;
  // Only what this agent read for exactly this version of the Secret (never from the revision).
  return ref && ref.uid !== undefined ? digests?.get(ref) : undefined;
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function describe(ref: SecretRef): string {
  return `${ref.namespace}/${ref.name} key ${ref.key}`;
}

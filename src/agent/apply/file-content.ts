// The bytes of a managed file: inline content decoded, or a Secret's value fetched at apply time and
// checked against the digest the renderer put in the revision (so the agent writes exactly what was
// rendered, and a Secret changed since then fails loudly instead of rolling out unreviewed).

import { createHash } from 'node:crypto';
import type { RenderedFile, SecretRef } from '../../api/types.ts';

/** Where secretRef contents come from. */
export interface SecretSource {
  /** The decoded value of `key` in the Secret; throws when it does not exist. */
  read(ref: { namespace: string; name: string; key: string }): Promise<Buffer>;
}

export async function fileContent(file: RenderedFile, secrets: SecretSource | undefined): Promise<Buffer> {
  const inline = file.content.inline;
  if (inline) return Buffer.from(inline.data, inline.encoding === 'base64' ? 'base64' : 'utf8');
  const ref = file.content.secretRef;
  if (!ref) throw new Error(`file ${file.path} has neither inline content nor a secretRef`);
  if (!secrets) throw new Error(`file ${file.path}: no Secret source to read ${describe(ref)} from`);
  const value = await secrets.read(ref);
  if (ref.sha256 !== undefined && sha256(value) !== ref.sha256) {
    throw new Error(
      `file ${file.path}: Secret ${describe(ref)} changed since the revision was rendered (digest mismatch)`,
    );
  }
  return value;
}

/** Hex sha256 of a file's expected content when it is known without fetching anything. */
export function expectedDigest(file: RenderedFile): string | undefined {
  const inline = file.content.inline;
  if (inline) return sha256(Buffer.from(inline.data, inline.encoding === 'base64' ? 'base64' : 'utf8'));
  return file.content.secretRef?.sha256;
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function describe(ref: SecretRef): string {
  return `${ref.namespace}/${ref.name} key ${ref.key}`;
}

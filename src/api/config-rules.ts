// Pure rules about paths, unit names and encoded content, shared by validation, rendering and the plan.

import { MAX_PATH_LENGTH, MAX_UNIT_NAME_LENGTH } from './limits.ts';
import { isAtOrUnder, REFUSED_PATH_PREFIXES, SYSTEMD_UNIT_DIRS } from './paths.ts';
import { UNIT_NAME } from './patterns.ts';

export interface PathProblem {
  /** `forbidden` when the path is well-formed but not a place nodeherd may write. */
  kind: 'invalid' | 'forbidden';
  detail: string;
}

const CONTROL = /[\u0000-\u001f\u007f]/;

const UNIT = new RegExp(UNIT_NAME);

/** Shape rules every path obeys: absolute and normalised, so one file has exactly one spelling. */
export function normalisedPathProblem(path: string): string | undefined {
  if (!path.startsWith('/')) return 'must be an absolute path';
  if (CONTROL.test(path)) return 'must not contain control characters';
  if (path.length > MAX_PATH_LENGTH) return `must be at most ${MAX_PATH_LENGTH} characters`;
  if (path === '/') return 'must name a file, not /';
  if (path.endsWith('/')) return 'must not end with /';
  if (path.includes('//')) return 'must not contain empty segments (//)';
  if (path.split('/').some((segment) => segment === '.' || segment === '..')) {
    return 'must be normalised: no . or .. segments';
  }
  return undefined;
}

/**
 * Unit files and drop-ins written as plain files would change without a daemon-reload or restart:
 * they must be declared in spec.units instead.
 */
function systemdUnitFileProblem(path: string): string | undefined {
  const slash = path.lastIndexOf('/');
  const dir = path.slice(0, slash);
  const base = path.slice(slash + 1);
  const parentSlash = dir.lastIndexOf('/');
  const parent = dir.slice(0, parentSlash);
  const dirName = dir.slice(parentSlash + 1);
  if (SYSTEMD_UNIT_DIRS.includes(dir) && UNIT.test(base)) {
    return 'systemd units are declared in spec.units, so that changes reload systemd and restart them';
  }
  if (SYSTEMD_UNIT_DIRS.includes(parent) && dirName.endsWith('.d') && base.endsWith('.conf')) {
    return 'drop-ins are declared in spec.units[].dropIns, so that changes reload systemd and restart the unit';
  }
  return undefined;
}

/** Why a file path is not acceptable, or undefined. */
export function filePathProblem(path: string): PathProblem | undefined {
  const shape = normalisedPathProblem(path);
  if (shape) return { kind: 'invalid', detail: shape };
  if (path.includes('*')) return { kind: 'invalid', detail: 'must not contain *' };
  const refused = REFUSED_PATH_PREFIXES.find((prefix) => isAtOrUnder(path, prefix));
  if (refused) return { kind: 'forbidden', detail: `nodeherd does not write under ${refused}` };
  const unitFile = systemdUnitFileProblem(path);
  if (unitFile) return { kind: 'forbidden', detail: unitFile };
  // Package managers' repository files: packages/registry.ts, repositoryFileProblem.
  return undefined;
}

/** A disruption policy path: an exact path, or a directory followed by `/**`. */
export function policyPathProblem(path: string): string | undefined {
  if (path === '/**') return undefined;
  const base = path.endsWith('/**') ? path.slice(0, -3) : path;
  if (base.includes('*')) return 'only a trailing /** is supported as a wildcard';
  return normalisedPathProblem(base);
}

/** Whether a policy path matches a file path, and how specifically (longer is more specific). */
export function policyPathSpecificity(policyPath: string, filePath: string): number | undefined {
  if (policyPath === filePath) return Number.MAX_SAFE_INTEGER;
  if (!policyPath.endsWith('/**')) return undefined;
  const dir = policyPath.slice(0, -3);
  return filePath.startsWith(`${dir}/`) ? dir.length : undefined;
}

export function unitNameProblem(name: string): string | undefined {
  if (name.length > MAX_UNIT_NAME_LENGTH) return `must be at most ${MAX_UNIT_NAME_LENGTH} characters`;
  if (!UNIT.test(name)) {
    return 'must be a systemd unit name: letters, digits, :_.\\- and an optional @instance, ending in .service, .socket, .mount, .automount, .swap, .target, .path, .timer or .slice';
  }
  return undefined;
}

/** `foo@.service`: a template, which cannot run itself. */
export function isTemplateUnit(name: string): boolean {
  return /@\.[a-z]+$/.test(name);
}

/** `foo@bar.service` → `foo@.service`; undefined for names that are not instances. */
export function templateOf(name: string): string | undefined {
  const match = /^(.+)@[^@]+\.([a-z]+)$/.exec(name);
  return match ? `${match[1]}@.${match[2]}` : undefined;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Line breaks and spaces are tolerated, as `base64` wraps its output: RE2's \s (BASE64_WHITESPACE), so
 * the CRD's pattern accepts exactly what this does.
 */
export function stripBase64Whitespace(data: string): string {
  return data.replace(/[\t\n\f\r ]+/g, '');
}

/** Decoded length of strict (padded, RFC 4648) base64, or undefined when it is not base64. */
export function base64DecodedLength(data: string): number | undefined {
  const compact = stripBase64Whitespace(data);
  if (!BASE64.test(compact)) return undefined;
  const padding = compact.endsWith('==') ? 2 : compact.endsWith('=') ? 1 : 0;
  return (compact.length / 4) * 3 - padding;
}

export const ARMORED_KEY_BEGIN = '-----BEGIN PGP PUBLIC KEY BLOCK-----';
export const ARMORED_KEY_END = '-----END PGP PUBLIC KEY BLOCK-----';

/** Whether an OpenPGP keyring starts here: a public-key packet (tag 6), old format 0b10_0110_xx or new 0xc6. */
export function startsWithPublicKeyPacket(bytes: Uint8Array): boolean {
  const tag = bytes[0];
  return tag !== undefined && ((tag & 0xfc) === 0x98 || tag === 0xc6);
}

/**
 * What is wrong with a repository's signing key, as the agent would find when writing its keyring
 * (src/agent/executors/apt/apt-sources.ts), or undefined.
 */
export function signingKeyProblem(data: string, encoding: 'armored' | 'base64'): string | undefined {
  if (encoding === 'armored') {
    const text = data.trim();
    return text.startsWith(ARMORED_KEY_BEGIN) && text.includes(ARMORED_KEY_END)
      ? undefined
      : 'must be an ASCII-armored OpenPGP public key block';
  }
  if (base64DecodedLength(data) === undefined) return 'must be valid base64';
  return startsWithPublicKeyPacket(Buffer.from(stripBase64Whitespace(data), 'base64'))
    ? undefined
    : 'must be an OpenPGP keyring (its first packet a public key)';
}

/** Bytes of an inline content once written to disk. */
export function decodedLength(data: string, encoding: string | undefined): number | undefined {
  return encoding === 'base64' ? base64DecodedLength(data) : Buffer.byteLength(data, 'utf8');
}

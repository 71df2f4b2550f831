// The files that make an apt repository known: a deb822 .sources file in sources.list.d whose
// Signed-By names the repository's own keyring, so its key is trusted for that repository only
// (never dropped into trusted.gpg.d, where it would vouch for every repository). Pure functions.

import { ARMORED_KEY_BEGIN, ARMORED_KEY_END, startsWithPublicKeyPacket } from '../../../api/config-rules.ts';
import { REPOSITORY_NAME, regex, WORD } from '../../../api/patterns.ts';
import type { RenderedRepository } from '../../../api/types.ts';

export interface AptRepository {
  /** Short name: the files are nodeherd-<name>.sources and nodeherd-<name>.{asc,gpg}. */
  name: string;
  uri: string;
  /** A suite ending in '/' is a flat repository path; components must then be empty. */
  suites: string[];
  components: string[];
  /**
   * ASCII-armored OpenPGP public key (written as .asc) or a base64 binary keyring (written as .gpg),
   * trusted for this repository only (Signed-By). Absent: apt verifies the repository with the system
   * keyrings (/etc/apt/trusted.gpg.d), as it does the distribution's own, e.g. a Debian mirror.
   */
  signingKey?: string;
  architectures?: string[];
}

/** A rendered repository as the apt backend writes it. */
export function aptRepository(repository: RenderedRepository): AptRepository {
  const result: AptRepository = {
    name: repository.name,
    uri: repository.uri,
    suites: repository.suites ?? [],
    components: repository.components,
  };
  if (repository.signingKey) result.signingKey = repository.signingKey.data;
  if (repository.architectures) result.architectures = repository.architectures;
  return result;
}

const SOURCES_DIR = '/etc/apt/sources.list.d';
const KEYRINGS_DIR = '/etc/apt/keyrings';

// The API validates with the same rules (src/api/patterns.ts), so a config it accepts is one the
// agent writes: a refusal here means a config that bypassed validation.
const NAME = regex(REPOSITORY_NAME);
const MAX_NAME_LENGTH = 63;
const TOKEN = regex(WORD); // one deb822 field word: no whitespace or control character, no comment start
const SCHEME = /^[a-z][a-z0-9+.-]*:/;

function assertRepositoryName(name: string): void {
  if (!NAME.test(name) || name.length > MAX_NAME_LENGTH) {
    throw new Error(
      `invalid repository name ${JSON.stringify(name)} (lowercase letters, digits, '.', '_', '-'; at most ${MAX_NAME_LENGTH})`,
    );
  }
}

export function sourcesPath(name: string): string {
  assertRepositoryName(name);
  return `${SOURCES_DIR}/nodeherd-${name}.sources`;
}

/** Both possible keyring paths: adding a repository writes one and removes the other. */
export function keyringPaths(name: string): { armored: string; binary: string } {
  assertRepositoryName(name);
  const base = `${KEYRINGS_DIR}/nodeherd-${name}`;
  return { armored: `${base}.asc`, binary: `${base}.gpg` };
}

/**
 * The keyring file for a repository: .asc for an armored key, .gpg for a base64 binary one; undefined
 * for a repository without a key (verified with the system keyrings).
 */
export function keyringFile(repository: AptRepository): { path: string; content: Buffer } | undefined {
  const paths = keyringPaths(repository.name);
  if (repository.signingKey === undefined) return undefined;
  const key = repository.signingKey.trim();
  if (key.startsWith(ARMORED_KEY_BEGIN)) {
    if (!key.includes(ARMORED_KEY_END)) {
      throw new Error(`repository ${repository.name}: armored signing key is not terminated`);
    }
    return { path: paths.armored, content: Buffer.from(`${key}\n`) };
  }
  const compact = key.replace(/\s+/g, '');
  const binary = /^[A-Za-z0-9+/]+={0,2}$/.test(compact) ? Buffer.from(compact, 'base64') : Buffer.alloc(0);
  if (!startsWithPublicKeyPacket(binary)) {
    throw new Error(
      `repository ${repository.name}: signing key is neither armored nor a base64 OpenPGP keyring`,
    );
  }
  return { path: paths.binary, content: binary };
}

function words(repository: AptRepository, field: string, values: readonly string[]): string {
  for (const value of values) {
    if (!TOKEN.test(value)) {
      throw new Error(`repository ${repository.name}: invalid ${field} entry ${JSON.stringify(value)}`);
    }
  }
  return values.join(' ');
}

/**
 * The deb822 .sources file for `repository`, trusting only the keyring at `keyringPath`; without one
 * (a repository without a key) apt verifies it with the system keyrings.
 */
export function renderSources(repository: AptRepository, keyringPath: string | undefined): string {
  assertRepositoryName(repository.name);
  if (repository.suites.length === 0) throw new Error(`repository ${repository.name}: no suites`);
  const flat = repository.suites.some((suite) => suite.endsWith('/'));
  if (flat && repository.components.length > 0) {
    throw new Error(`repository ${repository.name}: a flat suite (ending in '/') takes no components`);
  }
  if (!flat && repository.components.length === 0) {
    throw new Error(`repository ${repository.name}: components are required`);
  }
  if (!SCHEME.test(repository.uri) || !TOKEN.test(repository.uri)) {
    throw new Error(`repository ${repository.name}: invalid uri ${JSON.stringify(repository.uri)}`);
  }
  const lines = [
    '# Managed by nodeherd: changes are overwritten.',
    'Types: deb',
    `URIs: ${words(repository, 'uri', [repository.uri])}`,
    `Suites: ${words(repository, 'suites', repository.suites)}`,
  ];
  if (!flat) lines.push(`Components: ${words(repository, 'components', repository.components)}`);
  if (repository.architectures && repository.architectures.length > 0) {
    lines.push(`Architectures: ${words(repository, 'architectures', repository.architectures)}`);
  }
  if (keyringPath !== undefined) lines.push(`Signed-By: ${keyringPath}`);
  return `${lines.join('\n')}\n`;
}

// The files that make a dnf repository known: a .repo file in /etc/yum.repos.d (one section, the repo id
// nodeherd-<name>) and, for a repository with a key, that key in /etc/pki/rpm-gpg named by gpgkey=, so the
// key is offered for this repository only. Pure functions. Every value goes on a `key=value` line of an
// INI file, so none may hold a line break, whitespace or a comment start: the patterns are the API's
// (src/api/packages/dnf/dnf-rules.ts), and a refusal here means a config that bypassed validation.

import { ARMORED_KEY_BEGIN, ARMORED_KEY_END } from '../../../api/config-rules.ts';
import { DNF_KEY_DIR, DNF_REPOS_DIR } from '../../../api/packages/dnf/dnf-rules.ts';
import { REPOSITORY_NAME, REPOSITORY_URI, regex } from '../../../api/patterns.ts';
import type { RenderedRepository } from '../../../api/types.ts';

export interface DnfRepository {
  /** Short name: the files are nodeherd-<name>.repo and nodeherd-<name>.asc, the repo id nodeherd-<name>. */
  name: string;
  /** baseurl=; dnf's own variables ($releasever, $basearch) are allowed and expanded by dnf. */
  baseurl: string;
  /** Default true. */
  gpgcheck: boolean;
  /** ASCII-armored OpenPGP public key: written to keyPath(name) and named by gpgkey=. */
  signingKey?: string;
}

const NAME = regex(REPOSITORY_NAME);
const MAX_NAME_LENGTH = 63;
const URI = regex(REPOSITORY_URI);

function assertRepositoryName(name: string): void {
  if (!NAME.test(name) || name.length > MAX_NAME_LENGTH) {
    throw new Error(
      `invalid repository name ${JSON.stringify(name)} (lowercase letters, digits, '.', '_', '-'; at most ${MAX_NAME_LENGTH})`,
    );
  }
}

/** A rendered repository as the dnf backend writes it; refuses apt's fields (the API does too). */
export function dnfRepository(repository: RenderedRepository): DnfRepository {
  for (const field of ['suites', 'components', 'architectures'] as const) {
    if ((repository[field]?.length ?? 0) > 0) {
      throw new Error(`repository ${repository.name}: ${field} are apt's; a dnf repository has none`);
    }
  }
  const result: DnfRepository = {
    name: repository.name,
    baseurl: repository.uri,
    gpgcheck: repository.gpgcheck ?? true,
  };
  if (repository.signingKey) {
    if (repository.signingKey.encoding !== 'armored') {
      throw new Error(`repository ${repository.name}: dnf takes an ASCII-armored key only`);
    }
    result.signingKey = repository.signingKey.data;
  }
  return result;
}

export function repoFilePath(name: string): string {
  assertRepositoryName(name);
  return `${DNF_REPOS_DIR}/nodeherd-${name}.repo`;
}

export function keyPath(name: string): string {
  assertRepositoryName(name);
  return `${DNF_KEY_DIR}/nodeherd-${name}.asc`;
}

/** The repository's key file, or undefined for a repository without a key. */
export function keyFile(repository: DnfRepository): { path: string; content: Buffer } | undefined {
  if (repository.signingKey === undefined) return undefined;
  const key = repository.signingKey.trim();
  if (!key.startsWith(ARMORED_KEY_BEGIN) || !key.includes(ARMORED_KEY_END)) {
    throw new Error(
      `repository ${repository.name}: the signing key is not an ASCII-armored public key block`,
    );
  }
  return { path: keyPath(repository.name), content: Buffer.from(`${key}\n`) };
}

/**
 * The .repo file. `keyUrlRoot` is where dnf finds the node's root when it reads gpgkey= ('' on the node
 * itself; the installroot when dnf runs with --installroot, which reads gpgkey from the host's paths).
 * `keyAt`: where the key file is under that root (pre-staging keeps its own copy).
 * skip_if_unavailable=0: a repository that cannot be fetched fails `dnf makecache`, and so the apply,
 * whatever the node's dnf.conf says (Debian's ships skip_if_unavailable=True).
 */
export function renderRepoFile(
  repository: DnfRepository,
  keyUrlRoot = '',
  keyAt = keyFile(repository)?.path,
): string {
  assertRepositoryName(repository.name);
  if (!URI.test(repository.baseurl)) {
    throw new Error(`repository ${repository.name}: invalid uri ${JSON.stringify(repository.baseurl)}`);
  }
  const key = keyFile(repository);
  if (key !== undefined && !repository.gpgcheck) {
    throw new Error(`repository ${repository.name}: a key is pointless with gpgcheck off`);
  }
  const keyUrl = key === undefined ? undefined : `file://${keyUrlRoot}${keyAt ?? key.path}`;
  if (keyUrl !== undefined && !URI.test(keyUrl)) {
    throw new Error(`repository ${repository.name}: invalid key path ${JSON.stringify(keyUrl)}`);
  }
  const lines = [
    '# Managed by nodeherd: changes are overwritten.',
    `[nodeherd-${repository.name}]`,
    `name=nodeherd ${repository.name}`,
    `baseurl=${repository.baseurl}`,
    'enabled=1',
    `gpgcheck=${repository.gpgcheck ? 1 : 0}`,
  ];
  if (keyUrl !== undefined) lines.push(`gpgkey=${keyUrl}`);
  lines.push('skip_if_unavailable=0');
  return `${lines.join('\n')}\n`;
}

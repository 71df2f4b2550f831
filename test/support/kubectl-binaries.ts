// Every kubectl on this machine: the default one, and the versioned binaries (kubectl.1.27 …
// kubectl.1.33) some machines keep beside it, so compatibility tests can run against each version.

import { execFileSync } from 'node:child_process';
import { readdirSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface KubectlBinary {
  /** "1.27", …, or "default" for the kubectl on the PATH. */
  version: string;
  path: string;
}

export function kubectlBinaries(): KubectlBinary[] {
  let onPath: string;
  try {
    onPath = execFileSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).trim();
  } catch {
    return [];
  }
  if (onPath === '') return [];
  const directory = dirname(realpathSync(onPath));
  const versioned = readdirSync(directory)
    .map((name) => /^kubectl\.(\d+\.\d+)$/.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ version: m[1]!, path: join(directory, m[0]) }))
    .sort((a, b) => Number(a.version.split('.')[1]) - Number(b.version.split('.')[1]));
  return versioned.length > 0 ? versioned : [{ version: 'default', path: onPath }];
}

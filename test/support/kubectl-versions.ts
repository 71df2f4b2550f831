// The kubectl binaries a machine carries: test machines have kubectl.1.27 … kubectl.1.33 beside the
// default kubectl, so compatibility tests can run each. Without them, only the default one.

import { execFileSync } from 'node:child_process';
import { readdirSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface KubectlBinary {
  /** "1.31", or "default" for the kubectl on PATH. */
  version: string;
  path: string;
}

function defaultKubectl(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Every versioned kubectl beside the default one, oldest first; or the default alone; or none. */
export function kubectlBinaries(): KubectlBinary[] {
  const onPath = defaultKubectl();
  if (!onPath) return [];
  const dir = dirname(realpathSync(onPath));
  const versioned = readdirSync(dir)
    .map((name) => /^kubectl\.(\d+)\.(\d+)$/.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .sort((a, b) => Number(a[1]) - Number(b[1]) || Number(a[2]) - Number(b[2]))
    .map((m) => ({ version: `${m[1]}.${m[2]}`, path: join(dir, m[0]) }));
  return versioned.length > 0 ? versioned : [{ version: 'default', path: onPath }];
}

// Which package manager a node has, as the agent detects it from the node's root: apt where dpkg's
// database and apt-get are (a Debian host with dnf installed as a tool stays apt), dnf 4 where
// /usr/bin/dnf is dnf-3's, dnf5 where /usr/bin/dnf is dnf5 or only dnf5 is there, apt when nothing is.

import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { detectPackageManager } from '../../../src/agent/executors/package-managers.ts';

const roots: string[] = [];
after(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

async function rootWith(files: Record<string, string | { link: string }>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'nodeherd-detect-'));
  roots.push(root);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    if (typeof content === 'string') await writeFile(join(root, path), content);
    else await symlink(content.link, join(root, path));
  }
  return root;
}

test('a node reports the manager its root has', async () => {
  const cases: [string, Record<string, string | { link: string }>, string, string][] = [
    ['Debian', { 'var/lib/dpkg/status': '', 'usr/bin/apt-get': '' }, 'apt', 'apt'],
    [
      'Debian with dnf as a tool',
      { 'var/lib/dpkg/status': '', 'usr/bin/apt-get': '', 'usr/bin/dnf': '' },
      'apt',
      'apt',
    ],
    ['RHEL 9', { 'usr/bin/dnf-3': '', 'usr/bin/dnf': { link: 'dnf-3' } }, 'dnf', 'dnf'],
    ['Amazon Linux 2023', { 'usr/bin/dnf': '' }, 'dnf', 'dnf'],
    ['Fedora 41', { 'usr/bin/dnf5': '', 'usr/bin/dnf': { link: 'dnf5' } }, 'dnf', 'dnf5'],
    ['dnf5 alone', { 'usr/bin/dnf5': '' }, 'dnf', 'dnf5'],
    [
      'dnf 4 with dnf5 beside it',
      { 'usr/bin/dnf5': '', 'usr/bin/dnf-3': '', 'usr/bin/dnf': { link: 'dnf-3' } },
      'dnf',
      'dnf',
    ],
    ['nothing known', {}, 'apt', 'apt'],
  ];
  for (const [what, files, manager, reported] of cases) {
    assert.deepEqual(await detectPackageManager(await rootWith(files)), { manager, reported }, what);
  }
});

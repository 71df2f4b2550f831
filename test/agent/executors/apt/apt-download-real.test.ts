// Pre-staging with the real apt-get of a Debian host, without changing the host: a local apt
// repository built here and served over loopback HTTP (apt uses a file: repository's .debs in place,
// so only a download method shows the cache being filled; test/e2e/support/apt-repository.ts builds the
// .debs with dpkg-deb, their index with dpkg-scanpackages and a Release file
// signed with a key made for the test), the executor's root a temporary directory, and apt-get pointed
// at a copy of the host's dpkg status. What it shows is what the agent relies on: --download-only through
// the private configuration puts the .deb in the root's archives and installs nothing, writes none of
// the node's own sources, and a version the repository does not offer fails at the download.
// Skips without root, apt-get, dpkg-deb, dpkg-scanpackages or gpg.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { access, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { AptPackageExecutor } from '../../../../src/agent/executors/apt/apt-package-executor.ts';
import type { RenderedRepository } from '../../../../src/api/types.ts';
import {
  buildDeb,
  privateAptRoot,
  serveRepository,
  signRepository,
} from '../../../e2e/support/apt-repository.ts';

const run = promisify(execFile);
const PACKAGE = 'nodeherd-prestage-probe';

async function skipReason(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return 'not root';
  try {
    await access('/var/lib/dpkg/status');
    for (const tool of ['apt-get', 'dpkg-deb', 'dpkg-scanpackages', 'gpg', 'dpkg-query'])
      await run('which', [tool]);
  } catch {
    return 'no dpkg database, apt-get, dpkg-deb, dpkg-scanpackages (dpkg-dev) or gpg on this host';
  }
  return undefined;
}

const skip = await skipReason();
if (skip) process.stderr.write(`real apt download skipped: ${skip}\n`);

describe('pre-staging with real apt-get on a local repository', { skip, timeout: 180_000 }, () => {
  let dir: string;
  let root: string;
  let apt: AptPackageExecutor;
  let repository: RenderedRepository;
  let server: Server;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nodeherd-apt-download-'));
    const repo = join(dir, 'repo');
    await mkdir(repo, { recursive: true });
    for (const version of ['1.0-1', '1.1-1'])
      await buildDeb(repo, { name: PACKAGE, version, payloadBytes: 64 });
    const key = await signRepository(repo, join(dir, 'gnupg'));
    const mirror = await serveRepository(repo, 100e6);
    server = mirror.server;
    repository = {
      name: 'prestage-test',
      uri: mirror.url,
      suites: ['./'],
      components: [],
      signingKey: { data: key, encoding: 'armored' },
    } as RenderedRepository;
    const host = await privateAptRoot(dir);
    root = host.rootDir;
    apt = new AptPackageExecutor({
      rootDir: root,
      allowLiveCommands: true,
      aptGetPath: host.aptGetPath,
      dpkgQueryPath: host.dpkgQueryPath,
      lockWaitMs: 0,
    });
  });

  after(async () => {
    server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('--download-only puts the pinned .deb in the archives and installs nothing', async () => {
    const said = await apt.download([{ name: PACKAGE, version: '1.0-1' }], [repository]);
    assert.match(said, /Need to get/);
    const archives = await readdir(join(root, 'var/cache/apt/archives'));
    assert.ok(archives.includes(`${PACKAGE}_1.0-1_all.deb`), archives.join(' '));
    assert.ok(!archives.includes(`${PACKAGE}_1.1-1_all.deb`), 'only the pinned version');
    assert.equal(await apt.installedVersion(PACKAGE), undefined, 'nothing installed');
    // The node's own sources are untouched: the repository was read through the private configuration.
    assert.deepEqual(await readdir(join(root, 'etc/apt/sources.list.d')), []);
    const sources = await readFile(
      join(root, 'var/cache/apt/nodeherd-prestage/sources.list.d/nodeherd-prestage-test.sources'),
      'utf8',
    );
    assert.match(sources, new RegExp(`Signed-By: ${root}/var/cache/apt/nodeherd-prestage/keyrings/`));
    // Again: already in the cache, nothing more to fetch.
    assert.match(
      await apt.download([{ name: PACKAGE, version: '1.0-1' }], [repository]),
      /^Need to get 0 B\//,
    );
  });

  test('a version the repository does not offer fails at the download', async () => {
    await assert.rejects(
      apt.download([{ name: PACKAGE, version: '9.9-1' }], [repository]),
      /Version '9\.9-1' for 'nodeherd-prestage-probe' was not found/,
    );
    const archives = await readdir(join(root, 'var/cache/apt/archives'));
    assert.ok(!archives.some((name) => name.includes('9.9')));
  });

  test('without the repository the package is unknown: the revision’s repositories are what is read', async () => {
    await assert.rejects(apt.download([{ name: PACKAGE, version: '1.1-1' }], []), /Unable to locate package/);
  });
});

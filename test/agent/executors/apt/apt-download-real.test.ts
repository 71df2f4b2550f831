// Pre-staging with the real apt-get of a Debian host, without changing the host: a local apt
// repository built here and served over loopback HTTP (apt uses a file: repository's .debs in place,
// so only a download method shows the cache being filled) (a .deb made with dpkg-deb, its index with dpkg-scanpackages, a Release file
// signed with a key made for the test), the executor's root a temporary directory, and apt-get pointed
// at a copy of the host's dpkg status. What it shows is what the agent relies on: --download-only through
// the private configuration puts the .deb in the root's archives and installs nothing, writes none of
// the node's own sources, and a version the repository does not offer fails at the download.
// Skips without root, apt-get, dpkg-deb, dpkg-scanpackages or gpg.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { access, chmod, copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { AptPackageExecutor } from '../../../../src/agent/executors/apt/apt-package-executor.ts';
import type { RenderedRepository } from '../../../../src/api/types.ts';

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

/** A .deb of PACKAGE at `version` in `dir`. */
async function buildDeb(dir: string, version: string): Promise<void> {
  const tree = join(dir, `tree-${version}`);
  await mkdir(join(tree, 'DEBIAN'), { recursive: true });
  await mkdir(join(tree, 'usr/share/doc', PACKAGE), { recursive: true });
  await writeFile(join(tree, 'usr/share/doc', PACKAGE, 'README'), `probe ${version}\n`);
  await writeFile(
    join(tree, 'DEBIAN/control'),
    `Package: ${PACKAGE}\nVersion: ${version}\nArchitecture: all\nMaintainer: nodeherd tests <t@example.invalid>\nDescription: a package for the pre-stage test\n`,
  );
  await run('dpkg-deb', ['--root-owner-group', '--build', tree, join(dir, `${PACKAGE}_${version}_all.deb`)]);
  await rm(tree, { recursive: true });
}

/** A signed flat repository of the .debs in `repo`; returns the armored public key. */
async function signRepository(repo: string, gnupg: string): Promise<string> {
  const { stdout: packages } = await run('dpkg-scanpackages', ['--multiversion', '.'], { cwd: repo });
  await writeFile(join(repo, 'Packages'), packages);
  const sha256 = createHash('sha256').update(packages).digest('hex');
  await writeFile(
    join(repo, 'Release'),
    `Origin: nodeherd-test\nLabel: nodeherd-test\nDate: ${new Date().toUTCString()}\nSHA256:\n ${sha256} ${Buffer.byteLength(packages)} Packages\n`,
  );
  const gpg = ['--homedir', gnupg, '--batch', '--pinentry-mode', 'loopback', '--passphrase', ''];
  await run('gpg', [
    ...gpg,
    '--quick-gen-key',
    'nodeherd test <t@example.invalid>',
    'ed25519',
    'sign',
    'never',
  ]);
  await run('gpg', [...gpg, '--clearsign', '--output', join(repo, 'InRelease'), join(repo, 'Release')]);
  const { stdout: key } = await run('gpg', [...gpg, '--armor', '--export']);
  return key;
}

describe('pre-staging with real apt-get on a local repository', { skip, timeout: 180_000 }, () => {
  let dir: string;
  let root: string;
  let apt: AptPackageExecutor;
  let repository: RenderedRepository;
  let dpkgQuery: string;
  let server: Server;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nodeherd-apt-download-'));
    root = join(dir, 'root');
    const repo = join(dir, 'repo');
    const gnupg = join(dir, 'gnupg');
    await mkdir(repo, { recursive: true });
    await mkdir(gnupg, { mode: 0o700 });
    await mkdir(join(root, 'var/cache/apt/archives/partial'), { recursive: true });
    await mkdir(join(root, 'etc/apt/sources.list.d'), { recursive: true });
    await buildDeb(repo, '1.0-1');
    await buildDeb(repo, '1.1-1');
    const key = await signRepository(repo, gnupg);
    server = createServer((req, res) => {
      const name = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).replace(/^\/+/, '');
      if (name.includes('/') || name.startsWith('.')) return void res.writeHead(404).end();
      readFile(join(repo, name)).then(
        (body) => res.writeHead(200, { 'content-length': body.length }).end(body),
        () => res.writeHead(404).end(),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    repository = {
      name: 'prestage-test',
      uri: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
      suites: ['./'],
      components: [],
      signingKey: { data: key, encoding: 'armored' },
    } as RenderedRepository;
    // apt reads a copy of the host's dpkg status and takes no lock of the host's.
    const admin = join(dir, 'admin');
    await mkdir(join(admin, 'updates'), { recursive: true });
    await mkdir(join(admin, 'info'));
    await copyFile('/var/lib/dpkg/status', join(admin, 'status'));
    const aptGet = join(dir, 'apt-get');
    await writeFile(
      aptGet,
      `#!/bin/sh\nexec apt-get -o Dir::State::status=${admin}/status -o Debug::NoLocking=true -o APT::Sandbox::User=root "$@"\n`,
    );
    await chmod(aptGet, 0o755);
    dpkgQuery = join(dir, 'dpkg-query');
    await writeFile(dpkgQuery, `#!/bin/sh\nexec /usr/bin/dpkg-query --admindir=${admin} "$@"\n`);
    await chmod(dpkgQuery, 0o755);
    apt = new AptPackageExecutor({
      rootDir: root,
      allowLiveCommands: true,
      aptGetPath: aptGet,
      dpkgQueryPath: dpkgQuery,
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

// The dnf backend with Debian's real dnf 4, rpm, rpmbuild, rpmsign, createrepo_c and gpg, on an
// installroot (--installroot, --releasever: the host is not an RPM system, and no nspawn is needed).
// The test builds a tiny RPM in three versions from a spec it writes, signs 1.0 and 2.0 with a test key
// and 3.0 with another, makes a repository of them with createrepo_c and serves it on loopback HTTP.
// Through the agent's executor it then installs at a version, holds (versionlock), shows an upgrade
// leaves the held package alone, moves it with its own pinned install, refuses the badly signed
// version, removes it, and fails the index refresh of a repository that cannot be fetched. The host's
// own files (its versionlock.list, its rpm database) are checked unchanged. Skips without root or the
// tools (.ci/run installs them).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { executeAction } from '../../../../src/agent/apply/action-executor.ts';
import { driftPlan } from '../../../../src/agent/drift/drift-plan.ts';
import { observeConfig } from '../../../../src/agent/drift/observed-config.ts';
import { DnfPackageExecutor } from '../../../../src/agent/executors/dnf/dnf-package-executor.ts';
import { LocalFileExecutor } from '../../../../src/agent/executors/local-file-executor.ts';
import { SimulatedSystemd } from '../../../../src/agent/executors/simulated-systemd.ts';
import { dnfVersionMatches } from '../../../../src/api/packages/dnf/dnf-rules.ts';
import type { NodeConfigSpec, RenderedRepository } from '../../../../src/api/types.ts';
import { plan } from '../../../../src/plan/plan.ts';
import { rendered } from '../../../support/nodeherd-objects.ts';

const run = promisify(execFile);
const TOOLS = ['dnf', 'rpm', 'rpmbuild', 'rpmsign', 'createrepo_c', 'gpg'];
const HOST_LOCKLIST = '/etc/dnf/plugins/versionlock.list';

async function skipReason(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return 'not root (rpm writes the installroot as root)';
  try {
    for (const tool of TOOLS) await run('which', [tool]);
    await run('dnf', ['versionlock', '--help']);
  } catch {
    return `missing one of ${TOOLS.join(', ')} or dnf-plugins-core's versionlock (.ci/run installs them)`;
  }
  return undefined;
}

const skip = await skipReason();
if (skip) process.stderr.write(`real dnf skipped: ${skip}\n`);

const SPEC = `Name: nhhello
Version: %{ver}
Release: 1
Summary: nodeherd test package
License: MIT
BuildArch: noarch
AutoReqProv: no
%description
A file that says its version.
%install
mkdir -p %{buildroot}/usr/share/nhhello
echo %{ver} > %{buildroot}/usr/share/nhhello/version
%files
/usr/share/nhhello/version
`;

async function fileOrUndefined(path: string): Promise<string | undefined> {
  return readFile(path, 'utf8').catch(() => undefined);
}

describe('dnf on an installroot with a signed local repository', { skip, timeout: 180_000 }, () => {
  let dir: string;
  let root: string;
  let server: Server;
  let baseurl: string;
  let goodKey: string;
  let dnf: DnfPackageExecutor;
  let hostLocklist: string | undefined;

  /** rpm's answer for the package in the installroot, run by the test itself (not the executor). */
  const installedFile = () => fileOrUndefined(join(root, 'usr/share/nhhello/version'));

  before(async () => {
    hostLocklist = await fileOrUndefined(HOST_LOCKLIST);
    dir = await mkdtemp(join(tmpdir(), 'nodeherd-dnf-'));
    root = join(dir, 'root');
    const repo = join(dir, 'repo');
    await mkdir(repo, { recursive: true });
    await writeFile(join(dir, 'nhhello.spec'), SPEC);
    const gpgHome = (name: string) => join(dir, `gnupg-${name}`);
    const keyOf = async (name: string) => {
      await mkdir(gpgHome(name), { mode: 0o700 });
      const env = { ...process.env, GNUPGHOME: gpgHome(name) };
      await run(
        'gpg',
        [
          '--batch',
          '--passphrase',
          '',
          '--quick-gen-key',
          `nodeherd ${name} <${name}@example.invalid>`,
          'rsa2048',
          'sign',
          'never',
        ],
        { env },
      );
      return (await run('gpg', ['--armor', '--export'], { env })).stdout;
    };
    goodKey = await keyOf('good');
    await keyOf('other');
    for (const [version, signer] of [
      ['1.0', 'good'],
      ['2.0', 'good'],
      ['3.0', 'other'],
    ] as const) {
      await run('rpmbuild', [
        '-bb',
        '--define',
        `ver ${version}`,
        '--define',
        `_topdir ${join(dir, 'build')}`,
        join(dir, 'nhhello.spec'),
      ]);
      const rpm = join(repo, `nhhello-${version}-1.noarch.rpm`);
      await copyFile(join(dir, 'build/RPMS/noarch', `nhhello-${version}-1.noarch.rpm`), rpm);
      await run(
        'rpmsign',
        ['--addsign', '--define', `_gpg_name nodeherd ${signer}`, '--define', '__gpg /usr/bin/gpg', rpm],
        { env: { ...process.env, GNUPGHOME: gpgHome(signer) } },
      );
    }
    await run('createrepo_c', [repo]);
    server = createServer((req, res) => {
      const path = join(repo, normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)));
      stat(path).then(
        (s) => {
          if (!s.isFile()) throw new Error('not a file');
          res.writeHead(200, { 'content-length': s.size });
          createReadStream(path).pipe(res);
        },
        () => res.writeHead(404).end(),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseurl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    // The root's own versionlock configuration: dnf 4 would otherwise take the host's (and its list).
    await mkdir(join(root, 'etc/dnf/plugins'), { recursive: true });
    await writeFile(
      join(root, 'etc/dnf/plugins/versionlock.conf'),
      `[main]\nenabled=1\nlocklist=${root}/etc/dnf/plugins/versionlock.list\n`,
    );
    await writeFile(join(root, 'etc/dnf/plugins/versionlock.list'), '');
    dnf = new DnfPackageExecutor({ rootDir: root, installroot: true, releasever: '9', timeoutMs: 60_000 });
  });

  after(async () => {
    await new Promise((resolve) => server?.close(resolve));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const repository = (extra: Partial<RenderedRepository> = {}): RenderedRepository =>
    ({ name: 'test', manager: 'dnf', uri: baseurl, components: [], ...extra }) as RenderedRepository;

  test('install at a version, hold, upgrade past the hold by its own pin, refuse a bad signature, remove', async () => {
    await dnf.addRepository(repository({ signingKey: { data: goodKey, encoding: 'armored' } }));
    const repoFile = await readFile(join(root, 'etc/yum.repos.d/nodeherd-test.repo'), 'utf8');
    assert.match(repoFile, /^gpgcheck=1$/m);
    assert.match(repoFile, new RegExp(`^gpgkey=file://${root}/etc/pki/rpm-gpg/nodeherd-test\\.asc$`, 'm'));
    assert.equal(
      await readFile(join(root, 'etc/pki/rpm-gpg/nodeherd-test.asc'), 'utf8'),
      `${goodKey.trim()}\n`,
    );
    await dnf.update();

    assert.equal(await dnf.installedVersion('nhhello'), undefined);
    await dnf.install('nhhello', '1.0');
    const first = await dnf.installedVersion('nhhello');
    assert.equal(first, '1.0-1');
    assert.ok(dnfVersionMatches('1.0', first!));
    assert.equal(await installedFile(), '1.0\n');

    await dnf.hold('nhhello');
    assert.equal(await dnf.isHeld('nhhello'), true);
    assert.match(
      await readFile(join(root, 'etc/dnf/plugins/versionlock.list'), 'utf8'),
      /^nhhello-0:1\.0-1\.\*$/m,
    );
    // What an admin's or a timer's `dnf upgrade` does: the lock keeps the package where it is.
    await run('dnf', [
      '-y',
      `--installroot=${root}`,
      '--releasever=9',
      `--setopt=reposdir=${root}/etc/yum.repos.d`,
      `--setopt=pluginconfpath=${root}/etc/dnf/plugins`,
      'upgrade',
    ]);
    assert.equal(await dnf.installedVersion('nhhello'), '1.0-1', 'the held package stayed');

    // The agent's own pinned install moves it (the pin is what the hold is for), and the hold follows.
    await dnf.install('nhhello', '2.0-1');
    assert.equal(await dnf.installedVersion('nhhello'), '2.0-1');
    await dnf.hold('nhhello');
    assert.match(
      await readFile(join(root, 'etc/dnf/plugins/versionlock.list'), 'utf8'),
      /^nhhello-0:2\.0-1\.\*$/m,
    );
    assert.doesNotMatch(await readFile(join(root, 'etc/dnf/plugins/versionlock.list'), 'utf8'), /1\.0-1/);

    // 3.0 is signed with a key the repository does not name: refused, nothing changes.
    await assert.rejects(dnf.install('nhhello', '3.0'), /GPG check FAILED|not correct for this package/);
    assert.equal(await dnf.installedVersion('nhhello'), '2.0-1');
    assert.equal(await installedFile(), '2.0\n');

    // Back down (a rollback), then removal releases the hold first.
    await dnf.install('nhhello', '1.0');
    assert.equal(await dnf.installedVersion('nhhello'), '1.0-1');
    await dnf.remove('nhhello');
    assert.equal(await dnf.installedVersion('nhhello'), undefined);
    assert.equal(await dnf.isHeld('nhhello'), false);
    assert.equal(await installedFile(), undefined);

    assert.equal(
      await fileOrUndefined(HOST_LOCKLIST),
      hostLocklist,
      "the host's versionlock.list is untouched",
    );
  });

  test('a repository that cannot be fetched fails the index refresh; removing it clears its files', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await dnf.addRepository(repository({ name: 'gone', uri: `http://127.0.0.1:${port}/` }));
    await assert.rejects(dnf.update(), /nodeherd-gone|Cannot download|Failed to download/);
    await dnf.removeRepository('gone');
    await dnf.removeRepository('test');
    assert.equal(await fileOrUndefined(join(root, 'etc/yum.repos.d/nodeherd-gone.repo')), undefined);
    assert.equal(await fileOrUndefined(join(root, 'etc/pki/rpm-gpg/nodeherd-test.asc')), undefined);
  });

  test('pre-staging downloads into the cache through its own repositories, installing nothing; a missing version fails', async () => {
    const rpmsIn = async (path: string): Promise<string[]> => {
      const entries = await readdir(path, { withFileTypes: true }).catch(() => []);
      const found: string[] = [];
      for (const entry of entries) {
        const at = join(path, entry.name);
        if (entry.isDirectory()) found.push(...(await rpmsIn(at)));
        else if (entry.name.endsWith('.rpm')) found.push(entry.name);
      }
      return found;
    };
    const staged = repository({ name: 'staged', signingKey: { data: goodKey, encoding: 'armored' } });
    const said = await dnf.download([{ name: 'nhhello', version: '2.0' }], [staged]);
    assert.match(said, /download size|already in the cache/i);
    assert.ok(
      (await rpmsIn(join(root, 'var/cache/dnf'))).includes('nhhello-2.0-1.noarch.rpm'),
      'the package is in the cache',
    );
    assert.equal(await dnf.installedVersion('nhhello'), undefined, 'nothing installed');
    assert.equal(
      await fileOrUndefined(join(root, 'etc/yum.repos.d/nodeherd-staged.repo')),
      undefined,
      "the node's repositories are not changed before its turn",
    );
    await assert.rejects(
      dnf.download([{ name: 'nhhello', version: '9.9' }], [staged]),
      /No match for argument|nhhello-9\.9/,
    );
  });

  test('through the plan and the apply path; drift reports a held package moved by hand, and the repair puts it back', async () => {
    const spec = (version: string): NodeConfigSpec => ({
      repositories: [{ name: 'planned', manager: 'dnf', uri: baseurl, signingKey: { data: goodKey } }],
      packages: [{ name: 'nhhello', manager: 'dnf', version }],
    });
    const node = { files: new LocalFileExecutor(root), systemd: new SimulatedSystemd(), packages: dnf };
    const config = rendered(spec('1.0'));
    const initial = plan(undefined, { config });
    assert.deepEqual(
      initial.actions.map((a) => a.id),
      ['add-repository:planned', 'dnf-makecache', 'install-package:nhhello'],
    );
    for (const action of initial.actions) await executeAction(action, node);
    assert.equal(await dnf.installedVersion('nhhello'), '1.0-1');
    assert.equal(await dnf.isHeld('nhhello'), true, 'the apply holds a pinned package');
    assert.deepEqual((await driftPlan(await observeConfig(config, node), config)).items, []);

    // Moved by hand past the lock (rpm does not know dnf's versionlock).
    await run('rpm', ['--root', root, '--nosignature', '-U', join(dir, 'repo/nhhello-2.0-1.noarch.rpm')]);
    const found = driftPlan(await observeConfig(config, node), config);
    assert.deepEqual(
      found.items.map((i) => i.detail),
      ['package nhhello: 2.0-1 installed, expected 1.0 (held, and moved anyway)'],
    );
    for (const action of found.repair.actions) await executeAction(action, node);
    assert.equal(await dnf.installedVersion('nhhello'), '1.0-1');
    assert.deepEqual(driftPlan(await observeConfig(config, node), config).items, []);

    // The next revision upgrades it (past its own hold) and holds the new version.
    const next = rendered(spec('2.0-1'));
    for (const action of plan({ config }, { config: next }).actions) await executeAction(action, node);
    assert.equal(await dnf.installedVersion('nhhello'), '2.0-1');
    assert.match(
      await readFile(join(root, 'etc/dnf/plugins/versionlock.list'), 'utf8'),
      /^nhhello-0:2\.0-1\.\*$/m,
    );
  });
});

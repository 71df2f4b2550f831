// A local apt repository for the e2e suite, the real-apt tests and benches: .debs built with dpkg-deb (a payload of random bytes, so the
// download costs what its size says), a flat index from dpkg-scanpackages, a Release file signed with a
// key made for the run, served over loopback HTTP at a bounded rate (a mirror that is not on this
// machine). Needs dpkg-deb, dpkg-scanpackages (dpkg-dev) and gpg. And the host's own apt-get pointed
// at a private root, to fetch from it without changing the host.

import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { chmod, copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface DebSpec {
  name: string;
  version: string;
  /** Bytes of random payload in /usr/share/<name>/payload. */
  payloadBytes: number;
  /** Maintainer scripts, e.g. { preinst: 'systemctl stop x || true' } (a /bin/sh body). */
  scripts?: Partial<Record<'preinst' | 'postinst', string>>;
}

export async function buildDeb(dir: string, spec: DebSpec): Promise<void> {
  const tree = join(dir, `tree-${spec.name}-${spec.version}`);
  await mkdir(join(tree, 'DEBIAN'), { recursive: true });
  await mkdir(join(tree, 'usr/share', spec.name), { recursive: true });
  await writeFile(join(tree, 'usr/share', spec.name, 'payload'), randomBytes(spec.payloadBytes));
  await writeFile(
    join(tree, 'DEBIAN/control'),
    `Package: ${spec.name}\nVersion: ${spec.version}\nArchitecture: all\nMaintainer: nodeherd bench <b@example.invalid>\nDescription: a package for benches\n`,
  );
  for (const [script, body] of Object.entries(spec.scripts ?? {})) {
    await writeFile(join(tree, 'DEBIAN', script), `#!/bin/sh\nset -e\n${body}\n`);
    await chmod(join(tree, 'DEBIAN', script), 0o755);
  }
  // Random bytes do not compress: gzip at its fastest keeps the build quick.
  await run('dpkg-deb', [
    '-Zgzip',
    '-z1',
    '--root-owner-group',
    '--build',
    tree,
    join(dir, `${spec.name}_${spec.version}_all.deb`),
  ]);
  await rm(tree, { recursive: true });
}

/** Writes Packages, Release and InRelease for the .debs in `repo`; returns the armored public key. */
export async function signRepository(repo: string, gnupg: string): Promise<string> {
  await mkdir(gnupg, { recursive: true, mode: 0o700 });
  const { stdout: packages } = await run('dpkg-scanpackages', ['--multiversion', '.'], {
    cwd: repo,
    maxBuffer: 64 * 1024 * 1024,
  });
  await writeFile(join(repo, 'Packages'), packages);
  const sha256 = createHash('sha256').update(packages).digest('hex');
  await writeFile(
    join(repo, 'Release'),
    `Origin: nodeherd-bench\nLabel: nodeherd-bench\nDate: ${new Date().toUTCString()}\nSHA256:\n ${sha256} ${Buffer.byteLength(packages)} Packages\n`,
  );
  const gpg = ['--homedir', gnupg, '--batch', '--pinentry-mode', 'loopback', '--passphrase', ''];
  await run('gpg', [
    ...gpg,
    '--quick-gen-key',
    'nodeherd bench <b@example.invalid>',
    'ed25519',
    'sign',
    'never',
  ]);
  await rm(join(repo, 'InRelease'), { force: true });
  await run('gpg', [...gpg, '--clearsign', '--output', join(repo, 'InRelease'), join(repo, 'Release')]);
  const { stdout: key } = await run('gpg', [...gpg, '--armor', '--export']);
  return key;
}

/** Serves the files of `repo` (flat: no subdirectories) on 127.0.0.1, each at most `bytesPerSecond`. */
export async function serveRepository(
  repo: string,
  bytesPerSecond: number,
): Promise<{ url: string; server: Server; bytesServed: () => number }> {
  let served = 0;
  const chunk = 64 * 1024;
  const server = createServer((req, res) => {
    const name = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).replace(/^\/+/, '');
    if (name.includes('/') || name.startsWith('.')) {
      res.writeHead(404).end();
      return;
    }
    readFile(join(repo, name)).then(
      async (body) => {
        res.writeHead(200, { 'content-length': body.length });
        for (let at = 0; at < body.length; at += chunk) {
          const part = body.subarray(at, at + chunk);
          served += part.length;
          if (!res.write(part)) await once(res, 'drain');
          await new Promise((resolve) => setTimeout(resolve, (part.length / bytesPerSecond) * 1000));
        }
        res.end();
      },
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    server,
    bytesServed: () => served,
  };
}

export interface PrivateAptRoot {
  /** The executor's root: its archives and sources directories exist. */
  rootDir: string;
  aptGetPath: string;
  dpkgQueryPath: string;
}

/**
 * The host's real apt-get and dpkg-query for a private root under `dir`: they read a copy of the
 * host's dpkg status instead of the host's and take none of its locks, so nothing of the host changes.
 */
export async function privateAptRoot(dir: string): Promise<PrivateAptRoot> {
  const rootDir = join(dir, 'root');
  await mkdir(join(rootDir, 'var/cache/apt/archives/partial'), { recursive: true });
  await mkdir(join(rootDir, 'etc/apt/sources.list.d'), { recursive: true });
  const admin = join(dir, 'admin');
  await mkdir(join(admin, 'updates'), { recursive: true });
  await mkdir(join(admin, 'info'));
  await copyFile('/var/lib/dpkg/status', join(admin, 'status'));
  const aptGetPath = join(dir, 'apt-get');
  await writeFile(
    aptGetPath,
    `#!/bin/sh\nexec apt-get -o Dir::State::status=${admin}/status -o Debug::NoLocking=true -o APT::Sandbox::User=root "$@"\n`,
  );
  await chmod(aptGetPath, 0o755);
  const dpkgQueryPath = join(dir, 'dpkg-query');
  await writeFile(dpkgQueryPath, `#!/bin/sh\nexec /usr/bin/dpkg-query --admindir=${admin} "$@"\n`);
  await chmod(dpkgQueryPath, 0o755);
  return { rootDir, aptGetPath, dpkgQueryPath };
}

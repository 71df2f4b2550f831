// Pre-staging on a real node (issue 35.4): a Debian container booted with systemd-nspawn and
// bootstrapped by nodeherd-init runs the real agent and the real apt-get. A local apt repository (built
// here, signed with a key made for the run, served over loopback HTTP, which the container shares)
// offers a package at two versions. Told to pre-stage a revision that upgrades it, the agent downloads
// the new .deb into the node's /var/cache/apt/archives and installs nothing, leaving the node's
// sources alone; a version the repository does not have is answered Failed with apt's words; the
// node's turn then installs the pre-staged package. Skips where nspawn cannot run (support/host.ts) or
// without dpkg-dev and gpg on the host.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  PRESTAGE_REVISION_ANNOTATION,
  PRESTAGED_ANNOTATION,
  type PrestageReport,
  parsePrestageReport,
} from '../../src/api/node-protocol.ts';
import type { NodeConfigSpec } from '../../src/api/types.ts';
import { Container } from '../../src/nspawn/container.ts';
import { waitFor } from '../../src/nspawn/host.ts';
import { ensureRootfs } from '../../src/nspawn/rootfs.ts';
import { buildDeb, serveRepository, signRepository } from './support/apt-repository.ts';
import { ControlPlane } from './support/control-plane.ts';
import { e2eSkipReason } from './support/host.ts';

function hostTools(): string | undefined {
  try {
    for (const tool of ['dpkg-deb', 'dpkg-scanpackages', 'gpg']) execFileSync('which', [tool]);
    return undefined;
  } catch {
    return 'the local repository needs dpkg-deb, dpkg-scanpackages (dpkg-dev) and gpg on the host';
  }
}

const skip = e2eSkipReason() ?? hostTools();
if (skip) process.stderr.write(`pre-stage e2e skipped: ${skip}\n`);

const PACKAGE = 'nodeherd-e2e-prestage';

describe('pre-staging with real apt on a real node', { skip, timeout: 420_000 }, () => {
  let cp: ControlPlane;
  let node: Container | undefined;
  let dir: string;
  let mirror: Awaited<ReturnType<typeof serveRepository>>;
  let key: string;

  const spec = (version: string): NodeConfigSpec =>
    ({
      repositories: [
        {
          name: 'e2e-prestage',
          uri: mirror.url,
          suites: ['./'],
          components: [],
          signingKey: { data: key, encoding: 'armored' },
        },
      ],
      packages: [{ name: PACKAGE, version }],
    }) as NodeConfigSpec;
  const ask = (revision: string) =>
    cp.admin.patch(
      `/api/v1/nodes/${node!.name}`,
      { metadata: { annotations: { [PRESTAGE_REVISION_ANNOTATION]: revision } } },
      'merge',
    );
  const answer = (revision: string) =>
    waitFor<PrestageReport>(
      `the pre-stage answer for ${revision}`,
      async () => {
        const report = parsePrestageReport(
          (await cp.getNode(node!.name)).metadata?.annotations?.[PRESTAGED_ANNOTATION],
        );
        return report?.revision === revision ? report : undefined;
      },
      120_000,
      50,
    );
  const installed = async () =>
    // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own ${Field} syntax
    (await node!.exec(['dpkg-query', '-W', '--showformat=${Version}', PACKAGE])).stdout.trim();
  const archives = async () => (await node!.execChecked(['ls', '/var/cache/apt/archives'])).split('\n');

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nodeherd-e2e-prestage-'));
    const repo = join(dir, 'repo');
    for (const version of ['1.0-1', '1.1-1'])
      await buildDeb(repo, { name: PACKAGE, version, payloadBytes: 200_000 });
    key = await signRepository(repo, join(dir, 'gnupg'));
    mirror = await serveRepository(repo, 50e6);
    const rootfs = await ensureRootfs();
    cp = await ControlPlane.start();
    node = await Container.boot({ name: 'nh-prestage', rootfs: rootfs.path });
    const token = await cp.registerNode(node.name);
    const result = await cp.runInit(node, cp.initArgs(node.name, token));
    assert.equal(result.code, 0, `nodeherd-init: ${result.stderr}`);
    await cp.apply([node.name], 'prestage', spec('1.0-1'));
    assert.equal(await installed(), '1.0-1');
  });

  after(async () => {
    await node?.stop();
    await cp?.stop();
    mirror?.server.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('told to pre-stage an upgrade, the agent downloads it and installs nothing', async () => {
    const sourcesBefore = await node!.execChecked(['ls', '/etc/apt/sources.list.d']);
    const next = await cp.createRevision('prestage', spec('1.1-1'));
    await ask(next.metadata.name);
    const report = await answer(next.metadata.name);
    assert.equal(report.outcome, 'Downloaded', report.message);
    assert.match(report.message ?? '', /Need to get/);
    assert.ok((await archives()).includes(`${PACKAGE}_1.1-1_all.deb`), 'the .deb is in the node’s cache');
    assert.equal(await installed(), '1.0-1', 'nothing installed');
    assert.equal(
      await node!.execChecked(['ls', '/etc/apt/sources.list.d']),
      sourcesBefore,
      'sources untouched',
    );

    // The node's turn: the agent installs from the cache.
    await cp.admin.patch(
      `/api/v1/nodes/${node!.name}`,
      { metadata: { annotations: { [PRESTAGE_REVISION_ANNOTATION]: null } } },
      'merge',
    );
    await cp.setDesired(node!.name, next.metadata.name);
    await cp.waitForApplied(node!.name, next.metadata.name);
    assert.equal(await installed(), '1.1-1');
  });

  test('a version the repository does not have is answered Failed, with apt’s words', async () => {
    const bad = await cp.createRevision('prestage', spec('9.9-1'));
    await ask(bad.metadata.name);
    const report = await answer(bad.metadata.name);
    assert.equal(report.outcome, 'Failed');
    assert.match(report.message ?? '', new RegExp(`Version '9\\.9-1' for '${PACKAGE}' was not found`));
    assert.equal(await installed(), '1.1-1');
  });
});

// Pre-staging on real apt (issue 35.4): a package upgrade on a real node, a Debian container booted
// with systemd-nspawn and bootstrapped by nodeherd-init (the e2e suite's machinery), from a local apt
// repository served over loopback HTTP at a bounded rate (BENCH_MIRROR_MBPS, default 8 MB/s: a mirror
// that is not on this machine). The package (BENCH_PAYLOAD_MB of random bytes, default 24) stands in for
// a kubelet: its preinst stops a `bench-kubelet.service` and its postinst starts it again, as packages of
// daemons do. Each upgrade is measured twice, without and with pre-staging:
// - turn → Done: the desired revision written (the node's turn; in a rollout it is cordoned and drained
//   from here) until the agent reports Done: the window in which the node holds its place in the budget;
// - NotReady window: how long bench-kubelet.service was down (the preinst's stop to the postinst's start,
//   as the scripts note them);
// - with pre-staging also the download itself (prestage-revision written → prestaged Downloaded),
//   which is outside the node's turn.
// Needs root, systemd-nspawn, debootstrap (test/e2e/setup-host.sh), dpkg-dev and gpg. Where nspawn
// cannot run, it says so and measures the download with the host's real apt-get instead (into a private
// root, reading a copy of the host's dpkg status), which is the time pre-staging moves out of the turn.
//
//   node bench/prestage-apt.bench.ts

import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { AptPackageExecutor } from '../src/agent/executors/apt/apt-package-executor.ts';
import {
  PRESTAGE_REVISION_ANNOTATION,
  PRESTAGED_ANNOTATION,
  parsePrestageReport,
} from '../src/api/node-protocol.ts';
import type { NodeConfigSpec, RenderedRepository } from '../src/api/types.ts';
import {
  buildDeb,
  privateAptRoot,
  serveRepository,
  signRepository,
} from '../test/e2e/support/apt-repository.ts';
import { Container } from '../test/e2e/support/container.ts';
import { ControlPlane } from '../test/e2e/support/control-plane.ts';
import { e2eSkipReason, waitFor } from '../test/e2e/support/host.ts';
import { ensureRootfs } from '../test/e2e/support/rootfs.ts';
import { serviceUnit } from '../test/e2e/support/units.ts';
import { benchNumber } from './support/quick.ts';
import { reportFigure } from './support/report.ts';

const run = promisify(execFile);
const BENCH = 'prestage-apt';
const PACKAGE = 'nodeherd-bench-kubelet';
const UNIT = 'bench-kubelet.service';
/** Where the package's scripts note (ns since the epoch) when they stopped and started the daemon. */
const STOPPED = '/var/tmp/bench-kubelet-stopped';
const STARTED = '/var/tmp/bench-kubelet-started';
const PAYLOAD_MB = benchNumber('BENCH_PAYLOAD_MB', 24, 4);
const MIRROR_MBPS = benchNumber('BENCH_MIRROR_MBPS', 8, 8);
const REPEATS = benchNumber('BENCH_REPEATS', 2, 1);

const ms = (value: number) => `${value.toFixed(0)} ms`;
const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
/** Versions 1.<i>-1: the first installed at set-up, then one per measured upgrade. */
const version = (i: number) => `1.${i}-1`;

async function buildRepository(dir: string, versions: number) {
  const repo = join(dir, 'repo');
  await mkdir(repo, { recursive: true });
  for (let i = 0; i < versions; i++) {
    await buildDeb(repo, {
      name: PACKAGE,
      version: version(i),
      payloadBytes: PAYLOAD_MB * 1e6,
      scripts: {
        preinst: `if [ "$1" = upgrade ]; then systemctl stop ${UNIT} || true; date +%s%N > ${STOPPED}; fi`,
        postinst: `if [ "$1" = configure ]; then systemctl start ${UNIT} || true; date +%s%N > ${STARTED}; fi`,
      },
    });
  }
  const key = await signRepository(repo, join(dir, 'gnupg'));
  const mirror = await serveRepository(repo, MIRROR_MBPS * 1e6);
  return { key, mirror };
}

function spec(key: string, url: string, at: number): NodeConfigSpec {
  return {
    repositories: [
      {
        name: 'bench',
        uri: url,
        suites: ['./'],
        components: [],
        signingKey: { data: key, encoding: 'armored' },
      },
    ],
    packages: [{ name: PACKAGE, version: version(at) }],
    // Not restarted by the agent (no `packages` link): the package's own scripts stop and start it.
    units: [{ name: UNIT, content: serviceUnit('bench kubelet stand-in') }],
  } as NodeConfigSpec;
}

/** How long the package's scripts kept the daemon down (ms): its preinst's stop to its postinst's start. */
async function lastDownWindow(node: Container): Promise<number> {
  const at = async (file: string) => Number((await node.execChecked(['cat', file])).trim());
  return (Number(await at(STARTED)) - Number(await at(STOPPED))) / 1e6;
}

async function inContainer(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'nodeherd-prestage-bench-'));
  const rootfs = await ensureRootfs();
  const cp = await ControlPlane.start();
  const { key, mirror } = await buildRepository(dir, 1 + 2 * REPEATS);
  let node: Container | undefined;
  try {
    const name = 'nh-prestage-bench';
    const token = await cp.registerNode(name);
    node = await Container.boot({ name, rootfs: rootfs.path });
    const init = await cp.runInit(node, cp.initArgs(name, token));
    if (init.code !== 0) throw new Error(`nodeherd-init failed: ${init.stderr}`);
    const c = node;
    const first = await cp.createRevision('bench', spec(key, mirror.url, 0));
    await cp.setDesired(name, first.metadata.name);
    await cp.waitForApplied(name, first.metadata.name, 300_000);
    const annotate = (annotations: Record<string, string | null>) =>
      cp.admin.patch(`/api/v1/nodes/${name}`, { metadata: { annotations } }, 'merge');

    const rows: { mode: 'without' | 'with'; turn: number; down: number; download?: number }[] = [];
    let at = 0;
    for (let r = 0; r < REPEATS; r++) {
      // Without pre-staging: the turn downloads, installs and restarts.
      const plain = await cp.createRevision('bench', spec(key, mirror.url, ++at));
      let t0 = performance.now();
      await cp.setDesired(name, plain.metadata.name);
      await cp.waitForApplied(name, plain.metadata.name, 300_000);
      rows.push({ mode: 'without', turn: performance.now() - t0, down: await lastDownWindow(c) });

      // With: told first, downloaded before the turn; the turn installs from the cache.
      const staged = await cp.createRevision('bench', spec(key, mirror.url, ++at));
      const s0 = performance.now();
      await annotate({ [PRESTAGE_REVISION_ANNOTATION]: staged.metadata.name });
      await waitFor(
        'the pre-stage answer',
        async () => {
          const report = parsePrestageReport(
            (await cp.getNode(name)).metadata?.annotations?.[PRESTAGED_ANNOTATION],
          );
          if (report?.revision !== staged.metadata.name) return undefined;
          if (report.outcome !== 'Downloaded') throw new Error(`pre-stage failed: ${report.message}`);
          return true;
        },
        300_000,
        20,
      );
      const download = performance.now() - s0;
      t0 = performance.now();
      // As the controller starts a node: its ask goes, its revision comes.
      await annotate({ [PRESTAGE_REVISION_ANNOTATION]: null });
      await cp.setDesired(name, staged.metadata.name);
      await cp.waitForApplied(name, staged.metadata.name, 300_000);
      rows.push({ mode: 'with', turn: performance.now() - t0, down: await lastDownWindow(c), download });
    }
    const of = (mode: 'without' | 'with') => rows.filter((row) => row.mode === mode);
    const note = `real apt-get in an nspawn container, ${PAYLOAD_MB} MB package from a ${MIRROR_MBPS} MB/s loopback mirror, median of ${REPEATS}`;
    for (const mode of ['without', 'with'] as const) {
      const turn = median(of(mode).map((row) => row.turn));
      const down = median(of(mode).map((row) => row.down));
      process.stdout.write(
        `${mode} pre-staging: turn → Done ${ms(turn)} (each ${of(mode)
          .map((row) => ms(row.turn))
          .join(', ')}); NotReady window ${ms(down)}\n`,
      );
      reportFigure({
        bench: BENCH,
        name: `package upgrade, turn → Done, ${mode} pre-staging`,
        value: turn,
        unit: 'ms',
        note,
      });
      reportFigure({
        bench: BENCH,
        name: `package upgrade, NotReady window (the daemon down), ${mode} pre-staging`,
        value: down,
        unit: 'ms',
        note,
      });
    }
    const download = median(of('with').map((row) => row.download ?? Number.NaN));
    process.stdout.write(`pre-stage download (before the turn): ${ms(download)}\n`);
    reportFigure({
      bench: BENCH,
      name: 'pre-stage: ask → Downloaded (outside the turn)',
      value: download,
      unit: 'ms',
      note,
    });
  } finally {
    await node?.stop();
    mirror.server.close();
    await cp.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Without nspawn: the download alone, with the host's real apt-get into a private root. */
async function onTheHost(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'nodeherd-prestage-bench-'));
  const { key, mirror } = await buildRepository(dir, 2);
  try {
    const host = await privateAptRoot(dir);
    const apt = new AptPackageExecutor({
      rootDir: host.rootDir,
      allowLiveCommands: true,
      aptGetPath: host.aptGetPath,
      lockWaitMs: 0,
    });
    const repository = {
      name: 'bench',
      uri: mirror.url,
      suites: ['./'],
      components: [],
      signingKey: { data: key, encoding: 'armored' },
    } as RenderedRepository;
    const t0 = performance.now();
    await apt.download([{ name: PACKAGE, version: version(1) }], [repository]);
    const download = performance.now() - t0;
    process.stdout.write(`host apt-get --download-only of ${PAYLOAD_MB} MB: ${ms(download)}\n`);
    reportFigure({
      bench: BENCH,
      name: 'pre-stage download on the host (the time moved out of the turn)',
      value: download,
      unit: 'ms',
      note: `real apt-get on the host, ${PAYLOAD_MB} MB from a ${MIRROR_MBPS} MB/s loopback mirror; no nspawn, so no window figures`,
    });
  } finally {
    mirror.server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  for (const tool of ['dpkg-deb', 'dpkg-scanpackages', 'gpg']) {
    try {
      await run('which', [tool]);
    } catch {
      process.stdout.write(`${BENCH} bench skipped: ${tool} is missing (dpkg-dev, gpg)\n`);
      return;
    }
  }
  const skip = e2eSkipReason();
  if (skip) {
    process.stdout.write(`${BENCH}: nspawn cannot run here (${skip}); measuring on the host instead\n`);
    await onTheHost();
    return;
  }
  await inContainer();
}

await main();

// End to end on real systemd and real apt: two Debian bookworm containers booted with systemd-nspawn
// are bootstrapped by nodeherd-init against the embedded control plane on this host, then managed
// through revisions: files, units, restarts of exactly the affected units, removal, apt repositories
// and packages, a SIGKILLed agent that converges, and the agent replacing itself. Needs root,
// systemd-nspawn, debootstrap and overlayfs; skips otherwise (see support/host.ts).

import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { NodeConfigSpec } from '../../src/api/types.ts';
import { Container } from '../../src/nspawn/container.ts';
import { waitFor } from '../../src/nspawn/host.ts';
import { freePort } from '../../src/nspawn/ports.ts';
import { ensureRootfs, type Rootfs } from '../../src/nspawn/rootfs.ts';
import { buildArtefacts, ControlPlane } from './support/control-plane.ts';
import { e2eSkipReason } from './support/host.ts';
import { journalCursor, journalSince, serviceUnit, unitState } from './support/units.ts';

const skip = e2eSkipReason();
if (skip) process.stderr.write(`real-nodes e2e skipped: ${skip}\n`);

const AGENT_UNIT = 'nodeherd-agent.service';
const AGENT_BUNDLE = '/usr/local/lib/nodeherd/nodeherd-agent.mjs';

describe('real nodes: nodeherd-init, then the agent on systemd and apt', { skip, timeout: 480_000 }, () => {
  let rootfs: Rootfs;
  let cp: ControlPlane;
  let nodes: Container[] = [];
  let a: Container;
  let b: Container;

  before(async () => {
    rootfs = await ensureRootfs();
    cp = await ControlPlane.start();
    // Every container that did boot is kept for after(), even when the other one failed: a failed boot
    // must not leave a running container and its overlay mount behind.
    const boots = await Promise.allSettled(
      ['nh-node-a', 'nh-node-b'].map((name) => Container.boot({ name, rootfs: rootfs.path })),
    );
    nodes = boots.flatMap((boot) => (boot.status === 'fulfilled' ? [boot.value] : []));
    const failedBoot = boots.find((boot) => boot.status === 'rejected');
    if (failedBoot) throw failedBoot.reason;
    [a, b] = nodes as [Container, Container];
    await Promise.all(
      nodes.map(async (node) => {
        const token = await cp.registerNode(node.name);
        const env = [
          `NODEHERD_METRICS_ADDRESS=127.0.0.1:${await freePort()}`,
          'NODEHERD_LOG_LEVEL=debug',
          'NODEHERD_UNIT_TIMEOUT_SECONDS=30',
        ];
        const result = await cp.runInit(
          node,
          cp.initArgs(
            node.name,
            token,
            env.flatMap((e) => ['--agent-env', e]),
          ),
        );
        assert.equal(result.code, 0, `nodeherd-init on ${node.name}: ${result.stderr}`);
        // systemd runs every generator on each daemon-reload: this one counts them.
        await node.execChecked(['sh', '-c', COUNTING_GENERATOR]);
      }),
    );
  });

  after(async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    await cp?.stop();
  });

  /** cp.apply, with the agents' recent log in the error when a node does not get there. */
  async function apply(targets: Container[], spec: NodeConfigSpec, timeoutMs?: number): Promise<string> {
    try {
      return await cp.apply(
        targets.map((node) => node.name),
        'e2e',
        spec,
        timeoutMs,
      );
    } catch (error) {
      const logs = await Promise.all(
        targets.map(async (node) => {
          const log = await node.exec([
            'journalctl',
            '-u',
            AGENT_UNIT,
            '-n',
            '25',
            '-o',
            'cat',
            '--no-pager',
          ]);
          return `--- ${node.name}:\n${log.stdout}`;
        }),
      );
      throw new Error(`${(error as Error).message}\n${logs.join('\n')}`);
    }
  }

  /** Specs shared by both nodes: two services, one restarted by a file, one with a drop-in. */
  function baseSpec(web: string, unrelated: string, options: { other?: boolean } = {}): NodeConfigSpec {
    return {
      files: [
        {
          path: '/etc/e2e/web.conf',
          mode: 0o640,
          owner: 'nobody',
          group: 'nogroup',
          content: { inline: { data: web } },
        },
        { path: '/etc/e2e/unrelated.conf', content: { inline: { data: unrelated } } },
        {
          path: '/usr/local/bin/e2e-tool',
          mode: 0o755,
          content: {
            inline: { data: Buffer.from('#!/bin/sh\necho tool\n').toString('base64'), encoding: 'base64' },
          },
        },
      ],
      units: [
        { name: 'e2e-web.service', content: serviceUnit('e2e web'), filePaths: ['/etc/e2e/web.conf'] },
        ...(options.other === false
          ? []
          : [
              {
                name: 'e2e-other.service',
                content: serviceUnit('e2e other'),
                dropIns: [{ name: '10-env.conf', content: '[Service]\nEnvironment=E2E=1\n' }],
              },
            ]),
      ],
    };
  }

  test('nodeherd-init installed the agent as an enabled service that reports its Node', async () => {
    for (const node of nodes) {
      const agent = await unitState(node, AGENT_UNIT);
      assert.equal(agent.active, 'active');
      assert.equal(agent.enabled, 'enabled');
      assert.equal(agent.fragmentPath, `/etc/systemd/system/${AGENT_UNIT}`);
      const kubeconfig = await stat(node.hostPath('/etc/nodeherd/kubeconfig'));
      assert.equal(kubeconfig.mode & 0o777, 0o600);
      const unit = await readFile(node.hostPath(`/etc/systemd/system/${AGENT_UNIT}`), 'utf8');
      assert.match(unit, /^Restart=always$/m);
      assert.match(unit, /^RestartSec=5$/m);
      const object = await waitFor(`${node.name} reports Idle`, async () => {
        const n = await cp.getNode(node.name);
        return n.metadata?.annotations?.['nodeherd.io/state'] === 'Idle' ? n : undefined;
      });
      assert.equal(object.metadata?.annotations?.['nodeherd.io/message'], 'no desired revision');
    }
  });

  test('files get their content, mode and owner; units are started and enabled', async () => {
    await apply(nodes, baseSpec('v1\n', 'u1\n'));
    for (const node of nodes) {
      const web = await stat(node.hostPath('/etc/e2e/web.conf'));
      assert.equal(await readFile(node.hostPath('/etc/e2e/web.conf'), 'utf8'), 'v1\n');
      assert.equal(web.mode & 0o7777, 0o640);
      const ids = await node.execChecked(['sh', '-c', 'id -u nobody; getent group nogroup | cut -d: -f3']);
      assert.deepEqual(ids.trim().split('\n').map(Number), [web.uid, web.gid]);
      assert.equal((await node.execChecked(['/usr/local/bin/e2e-tool'])).trim(), 'tool');
      for (const unit of ['e2e-web.service', 'e2e-other.service']) {
        const state = await unitState(node, unit);
        assert.equal(state.active, 'active', unit);
        assert.equal(state.enabled, 'enabled', unit);
      }
      const env = await node.show('e2e-other.service', ['Environment', 'DropInPaths']);
      assert.equal(env.Environment, 'E2E=1');
      assert.equal(env.DropInPaths, '/etc/systemd/system/e2e-other.service.d/10-env.conf');
    }
  });

  test('a change to a file in filePaths restarts that unit only; an unrelated change restarts nothing', async () => {
    const units = ['e2e-web.service', 'e2e-other.service', AGENT_UNIT];
    const before = await Promise.all(units.map((unit) => unitState(a, unit)));
    await apply(nodes, baseSpec('v2\n', 'u1\n'));
    const afterWeb = await Promise.all(units.map((unit) => unitState(a, unit)));
    assert.notEqual(afterWeb[0]!.invocationId, before[0]!.invocationId, 'e2e-web restarted');
    assert.equal(afterWeb[0]!.active, 'active');
    assert.equal(afterWeb[1]!.invocationId, before[1]!.invocationId, 'e2e-other untouched');
    assert.equal(afterWeb[2]!.invocationId, before[2]!.invocationId, 'agent untouched');
    assert.equal(await readFile(a.hostPath('/etc/e2e/web.conf'), 'utf8'), 'v2\n');

    await apply(nodes, baseSpec('v2\n', 'u2\n'));
    const afterUnrelated = await Promise.all(units.map((unit) => unitState(a, unit)));
    assert.deepEqual(
      afterUnrelated.map((s) => s.invocationId),
      afterWeb.map((s) => s.invocationId),
      'nothing restarted',
    );
    assert.equal(await readFile(a.hostPath('/etc/e2e/unrelated.conf'), 'utf8'), 'u2\n');
  });

  test('an apply that changes several units and drop-ins reloads systemd once', async () => {
    const reloadsBefore = await reloadCount(b);
    const spec = baseSpec('v2\n', 'u2\n');
    spec.units = [
      {
        name: 'e2e-web.service',
        content: serviceUnit('e2e web, second edition'),
        filePaths: ['/etc/e2e/web.conf'],
        dropIns: [{ name: '20-limits.conf', content: '[Service]\nLimitNOFILE=4096\n' }],
      },
      {
        name: 'e2e-other.service',
        content: serviceUnit('e2e other, second edition'),
        dropIns: [{ name: '10-env.conf', content: '[Service]\nEnvironment=E2E=2\n' }],
      },
    ];
    await apply(nodes, spec);
    assert.equal((await reloadCount(b)) - reloadsBefore, 1, 'exactly one daemon-reload');
    assert.equal((await b.show('e2e-other.service', ['Environment'])).Environment, 'E2E=2');
    assert.equal((await b.show('e2e-web.service', ['LimitNOFILE'])).LimitNOFILE, '4096');
    // Nothing is left for systemd to reload: the files on disk are what it runs.
    for (const unit of ['e2e-web.service', 'e2e-other.service']) {
      assert.equal((await b.show(unit, ['NeedDaemonReload'])).NeedDaemonReload, 'no', unit);
    }
  });

  test('a unit removed from the config is stopped, disabled and deleted', async () => {
    await apply(nodes, baseSpec('v2\n', 'u2\n', { other: false }));
    for (const node of nodes) {
      const state = await unitState(node, 'e2e-other.service');
      assert.equal(state.active, 'inactive');
      assert.equal(state.fragmentPath, '', 'unit file gone');
      const left = await node.exec([
        'sh',
        '-c',
        'ls -d /etc/systemd/system/e2e-other.service* /etc/systemd/system/*/e2e-other.service 2>/dev/null',
      ]);
      assert.equal(left.stdout, '', 'no unit file, drop-in or [Install] link left');
      assert.equal((await unitState(node, 'e2e-web.service')).active, 'active');
    }
  });

  test('apt: a repository with its own keyring (its update waiting for a busy lock), a pinned package installed, held, released and removed; the repository on the system keyrings', async () => {
    const key = await readFile(`${rootfs.path}/usr/share/keyrings/debian-archive-bookworm-automatic.gpg`);
    const withApt = (packages: NodeConfigSpec['packages']): NodeConfigSpec => ({
      ...baseSpec('v2\n', 'u2\n', { other: false }),
      repositories: [
        {
          name: 'debian',
          uri: rootfs.mirror,
          suites: ['bookworm'],
          components: ['main'],
          signingKey: { data: key.toString('base64'), encoding: 'base64' },
        },
      ],
      packages,
    });
    // Another apt holds the package lists' lock (as apt-daily's update would) while the agent needs it.
    const holder = b.exec([
      'perl',
      '-e',
      holdLockScript('/var/lib/apt/lists/lock', '/var/tmp/e2e-lock-held', 4),
    ]);
    await waitFor('the lists lock to be held', () =>
      stat(b.hostPath('/var/tmp/e2e-lock-held')).then(() => true),
    );
    const cursor = await journalCursor(b);
    const started = performance.now();
    await apply([b], withApt([]), 180_000);
    const held = await holder;
    assert.equal(held.code, 0, held.stderr);
    assert.ok(performance.now() - started >= 3000, 'the apply waited for the lock');
    const actions = agentActions(await journalSince(b, cursor, { unit: AGENT_UNIT }));
    assert.ok(
      actions.includes('apt-update'),
      `apt-get update ran after the repository was added: ${actions}`,
    );
    const sources = await readFile(b.hostPath('/etc/apt/sources.list.d/nodeherd-debian.sources'), 'utf8');
    assert.match(sources, /^Signed-By: \/etc\/apt\/keyrings\/nodeherd-debian\.gpg$/m);
    assert.deepEqual(await readFile(b.hostPath('/etc/apt/keyrings/nodeherd-debian.gpg')), key);

    // The mirror's current version (asked of the lists the agent's update fetched), pinned.
    const policy = await b.execChecked(['apt-cache', 'policy', 'hello']);
    const version = /Candidate: (\S+)/.exec(policy)?.[1];
    assert.ok(version && version !== '(none)', `hello is in the repository: ${policy}`);
    await apply([b], withApt([{ name: 'hello', version }]), 180_000);
    assert.equal(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own ${Field} syntax
      await b.execChecked(['dpkg-query', '-W', '--showformat=${Status} ${Version}', 'hello']),
      // dpkg's selection is "hold" once apt-mark holds it: installed, and held.
      `hold ok installed ${version}`,
    );
    assert.equal((await b.execChecked(['hello'])).trim(), 'Hello, world!');

    // Pinned means held: apt itself refuses to move it (unattended-upgrades neither would).
    const showhold = async () => (await b.execChecked(['apt-mark', 'showhold'])).trim();
    assert.equal(await showhold(), 'hello', 'the pinned package is held');
    const refused = await b.exec(['apt-get', '-q', '-y', 'remove', 'hello']);
    assert.notEqual(refused.code, 0, 'apt refuses to remove a held package');
    assert.match(refused.stdout + refused.stderr, /held/i);

    // Unpinned: the hold goes, and nothing is fetched or installed.
    const unpinning = await journalCursor(b);
    await apply([b], withApt([{ name: 'hello' }]), 180_000);
    assert.equal(await showhold(), '', 'the hold went with the pin');
    const unpinActions = agentActions(await journalSince(b, unpinning, { unit: AGENT_UNIT }));
    assert.ok(unpinActions.includes('release-package:hello'), `${unpinActions}`);
    assert.ok(
      !unpinActions.some((a) => a === 'apt-update' || a.startsWith('install-package')),
      `${unpinActions}`,
    );
    // Pinned again (held again), then removed while held: the agent's removal releases it.
    await apply([b], withApt([{ name: 'hello', version }]), 180_000);
    assert.equal(await showhold(), 'hello');

    const removal = await journalCursor(b);
    await apply([b], withApt([{ name: 'hello', state: 'absent' }]), 180_000);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own ${Field} syntax
    const status = await b.exec(['dpkg-query', '-W', '--showformat=${Status}', 'hello']);
    assert.notEqual(status.stdout, 'install ok installed');
    assert.notEqual((await b.exec(['test', '-e', '/usr/bin/hello'])).code, 0, '/usr/bin/hello is gone');
    const removalActions = agentActions(await journalSince(b, removal, { unit: AGENT_UNIT }));
    assert.ok(removalActions.includes('remove-package:hello'), `${removalActions}`);
    assert.ok(!removalActions.includes('apt-update'), 'no apt-get update when no source changed');
    assert.equal(await showhold(), '', 'a removed package is not left held');

    // Without signingKey the mirror is verified with the system keyrings (debian-archive-keyring's in
    // /etc/apt/trusted.gpg.d): no Signed-By, the repository's own keyring gone, and apt-get update,
    // which fails on a repository it cannot verify (Error-Mode=any), succeeds.
    const systemKeyrings = await journalCursor(b);
    const [debian] = withApt([]).repositories ?? [];
    const { signingKey: _, ...unkeyed } = debian!;
    await apply([b], { ...withApt([]), repositories: [unkeyed] }, 180_000);
    const keyless = await readFile(b.hostPath('/etc/apt/sources.list.d/nodeherd-debian.sources'), 'utf8');
    assert.doesNotMatch(keyless, /Signed-By/);
    await assert.rejects(stat(b.hostPath('/etc/apt/keyrings/nodeherd-debian.gpg')), { code: 'ENOENT' });
    const keylessActions = agentActions(await journalSince(b, systemKeyrings, { unit: AGENT_UNIT }));
    assert.ok(keylessActions.includes('apt-update'), `${keylessActions}`);
    assert.match(await b.execChecked(['apt-cache', 'policy', 'hello']), /Candidate: \d/);
  });

  test('a unit whose disruption is Reload is reloaded, not restarted, when its file changes', async () => {
    // A shell service that records each SIGHUP (systemctl reload sends it through ExecReload).
    const reloadable = (config: string): NodeConfigSpec => {
      const spec = baseSpec('v2\n', 'u2\n', { other: false });
      spec.files!.push({ path: '/etc/e2e/reloadable.conf', content: { inline: { data: config } } });
      spec.units!.push({
        name: 'e2e-reloadable.service',
        content: [
          '[Service]',
          `ExecStart=/bin/sh -c 'trap "cat /etc/e2e/reloadable.conf >>/run/e2e-reloads" HUP; while :; do sleep 1 & wait $!; done'`,
          // minbase has no /bin/kill (procps): the shell's builtin.
          "ExecReload=/bin/sh -c 'kill -HUP $MAINPID'",
          '[Install]',
          'WantedBy=multi-user.target',
          '',
        ].join('\n'),
        filePaths: ['/etc/e2e/reloadable.conf'],
        disruption: 'Reload',
      });
      return spec;
    };
    await apply([a], reloadable('first\n'));
    const before = await unitState(a, 'e2e-reloadable.service');
    assert.equal(before.active, 'active');
    await apply([a], reloadable('second\n'));
    const after = await unitState(a, 'e2e-reloadable.service');
    assert.equal(after.invocationId, before.invocationId, 'not restarted');
    assert.equal(after.mainPid, before.mainPid);
    const seen = await waitFor('the service to handle SIGHUP', async () => {
      const out = await a.exec(['cat', '/run/e2e-reloads']);
      return out.code === 0 && out.stdout !== '' ? out.stdout : undefined;
    });
    assert.equal(seen, 'second\n', 'reloaded once, after the new file was written');
  });

  test('a unit that fails to start fails the apply and the Node says which; the next revision recovers', async () => {
    const failing = baseSpec('v2\n', 'u2\n', { other: false });
    failing.units!.push({
      name: 'e2e-broken.service',
      content:
        '[Service]\nExecStart=/bin/sh -c "echo broken >&2; exit 3"\n[Install]\nWantedBy=multi-user.target\n',
    });
    const revision = await cp.createRevision('e2e', failing);
    await cp.setDesired(b.name, revision.metadata.name);
    const node = await waitFor(
      'the apply to fail',
      async () => {
        const object = await cp.getNode(b.name);
        return object.metadata?.annotations?.['nodeherd.io/state'] === 'Failed' ? object : undefined;
      },
      60_000,
    );
    assert.match(node.metadata?.annotations?.['nodeherd.io/message'] ?? '', /e2e-broken\.service failed/);
    // issue 36: the unit's own words, from real journald (journalctl -u through the agent's executor).
    assert.match(node.metadata?.annotations?.['nodeherd.io/message'] ?? '', /: broken$/);
    const excerpt = node.status?.conditions?.find((c) => c.type === 'NodeConfigReady')?.message ?? '';
    assert.match(excerpt, /\njournalctl -u e2e-broken\.service -n 20:\n(.*\n)* {2}broken\n/);
    assert.match(excerpt, /status=3/);
    assert.equal((await unitState(b, 'e2e-broken.service')).active, 'failed');
    await apply([b], baseSpec('v2\n', 'u2\n', { other: false }));
    const gone = await unitState(b, 'e2e-broken.service');
    assert.equal(gone.fragmentPath, '', 'the broken unit is removed with the next revision');
  });

  test('an agent killed with SIGKILL in the middle of an apply converges after systemd restarts it', async () => {
    const spec = baseSpec('v2\n', 'u2\n', { other: false });
    for (let i = 0; i < 40; i++) {
      spec.files!.push({
        path: `/etc/e2e/crash/file-${i}.conf`,
        content: { inline: { data: `file ${i}\n` } },
      });
    }
    // Its start takes 4 s: the agent is inside `systemctl start` when it is killed.
    spec.units!.push({
      name: 'e2e-slow.service',
      content: serviceUnit('e2e slow', 'ExecStartPre=/bin/sleep 4'),
    });
    const before = await unitState(a, AGENT_UNIT);
    const cursor = await journalCursor(a);
    const revision = await cp.createRevision('e2e', spec);
    await cp.setDesired(a.name, revision.metadata.name);
    await waitFor('e2e-slow.service to be starting', async () =>
      (await unitState(a, 'e2e-slow.service')).active === 'activating' ? true : undefined,
    );
    const pid = (await unitState(a, AGENT_UNIT)).mainPid;
    assert.ok(pid > 0);
    await a.execChecked(['sh', '-c', `kill -KILL ${pid}`]);
    await cp.waitForApplied(a.name, revision.metadata.name, 120_000);

    const agent = await unitState(a, AGENT_UNIT);
    assert.ok(agent.nRestarts > before.nRestarts, 'systemd restarted the agent');
    assert.notEqual(agent.invocationId, before.invocationId);
    const log = await journalSince(a, cursor, { unit: AGENT_UNIT });
    assert.ok(
      log.some((line) => line.includes('resuming an interrupted apply')),
      'the restarted agent resumed the journal',
    );
    assert.equal((await unitState(a, 'e2e-slow.service')).active, 'active');
    for (let i = 0; i < 40; i++) {
      assert.equal(await readFile(a.hostPath(`/etc/e2e/crash/file-${i}.conf`), 'utf8'), `file ${i}\n`);
    }
  });

  test('a new agent version rolled out as a config change replaces the running agent', async () => {
    const next = await buildArtefacts('e2e-next');
    assert.notEqual(next.agent.sha256, cp.artefacts.agent.sha256);
    // nodeherd-init writes the same unit on every node (what differs is in /etc/nodeherd/agent.env).
    const unitText = await readFile(a.hostPath(`/etc/systemd/system/${AGENT_UNIT}`), 'utf8');
    assert.equal(await readFile(b.hostPath(`/etc/systemd/system/${AGENT_UNIT}`), 'utf8'), unitText);
    const selfManaged = async (bundlePath: string): Promise<NodeConfigSpec> => {
      const spec = baseSpec('v2\n', 'u2\n', { other: false });
      spec.files!.push({
        path: AGENT_BUNDLE,
        mode: 0o755,
        content: { inline: { data: (await readFile(bundlePath)).toString('base64'), encoding: 'base64' } },
      });
      spec.units!.push({ name: AGENT_UNIT, content: unitText, filePaths: [AGENT_BUNDLE] });
      return spec;
    };
    // The pool's config takes over the agent as installed, then ships the next build.
    await apply(nodes, await selfManaged(cp.artefacts.agent.path));
    const before = await Promise.all(nodes.map((node) => unitState(node, AGENT_UNIT)));
    await apply(nodes, await selfManaged(next.agent.path), 120_000);
    for (const [i, node] of nodes.entries()) {
      const agent = await unitState(node, AGENT_UNIT);
      assert.equal(agent.active, 'active');
      assert.notEqual(agent.invocationId, before[i]!.invocationId, 'the agent was restarted');
      // A restart asked for resets systemd's count of automatic restarts; a crash would add one.
      assert.equal(agent.nRestarts, 0, 'restarted on request, not after a crash');
      const bundle = await readFile(node.hostPath(AGENT_BUNDLE), 'utf8');
      assert.ok(bundle.startsWith('#!/usr/bin/env node\n// nodeherd-agent e2e-next\n'));
      // The process that runs now was started from the new file.
      const cmdline = await node.execChecked(['cat', `/proc/${agent.mainPid}/cmdline`]);
      assert.ok(
        cmdline.split('\0').includes(AGENT_BUNDLE),
        `the agent runs the installed bundle: ${cmdline}`,
      );
    }
  });
});

const COUNTING_GENERATOR = [
  'mkdir -p /etc/systemd/system-generators',
  `printf '#!/bin/sh\\necho reload >>/run/e2e-daemon-reloads\\n' >/etc/systemd/system-generators/e2e-count`,
  'chmod 755 /etc/systemd/system-generators/e2e-count',
  'systemctl daemon-reload',
].join(' && ');

/** How many times systemd reloaded since the counting generator was installed. */
async function reloadCount(node: Container): Promise<number> {
  const out = await node.execChecked(['sh', '-c', 'cat /run/e2e-daemon-reloads 2>/dev/null | wc -l']);
  return Number(out.trim());
}

/** Perl (in every Debian) holding an fcntl write lock like apt's, announcing it with a file. */
function holdLockScript(lock: string, announce: string, seconds: number): string {
  return [
    'use Fcntl;',
    `open(my $f, ">>", "${lock}") or die "open: $!";`,
    'my $l = pack("s s x4 q q l x4", F_WRLCK, 0, 0, 0, 0);',
    'fcntl($f, F_SETLKW, $l) or die "lock: $!";',
    `open(my $m, ">", "${announce}") or die; close($m);`,
    `sleep ${seconds};`,
    `unlink("${announce}");`,
  ].join(' ');
}

/** The action ids the agent logged (at debug level) as it executed them. */
function agentActions(lines: string[]): string[] {
  const ids: string[] = [];
  for (const line of lines) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as { msg?: string; action?: string };
      if (entry.msg === 'action' && entry.action) ids.push(entry.action);
    } catch {
      // not one of the agent's JSON lines
    }
  }
  return ids;
}

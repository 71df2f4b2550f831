// nodeherd-init on a real Debian node (a systemd-nspawn container): its one-line errors for what
// goes wrong at bootstrap (no systemd, an unreachable or untrusted API server, a rejected token, a
// wrong checksum), the cloud-init way of running it as nodeherd-init.service that disables itself
// (with wget, curl hidden), and a second run that changes nothing. Also shellcheck on the script.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ensurePki } from '../../src/apiserver/auth/certificates.ts';
import {
  artefactsOptions,
  type ControllerFlags,
  controllerCommand,
} from '../../src/controller/controller-command.ts';
import { ControllerManager } from '../../src/controller/controller-manager.ts';
import { loadKubeConfig } from '../../src/kube/kube-config.ts';
import { Container } from '../../src/nspawn/container.ts';
import { run, waitFor } from '../../src/nspawn/host.ts';
import { freePort } from '../../src/nspawn/ports.ts';
import { ensureRootfs, type Rootfs } from '../../src/nspawn/rootfs.ts';
import { ControlPlane, INIT_SCRIPT } from './support/control-plane.ts';
import { e2eSkipReason } from './support/host.ts';
import { unitState } from './support/units.ts';

const skip = e2eSkipReason();
if (skip) process.stderr.write(`nodeherd-init e2e skipped: ${skip}\n`);

const AGENT_UNIT = 'nodeherd-agent.service';
const PREFIX = '/usr/local/lib/nodeherd';

test('nodeherd-init.sh passes shellcheck as POSIX sh', async (t) => {
  const found = await run('sh', ['-c', 'command -v shellcheck']).catch(() => undefined);
  if (found?.code !== 0) {
    t.skip('shellcheck is not installed (test/e2e/setup-host.sh installs it)');
    return;
  }
  const result = await run('shellcheck', ['--shell=sh', '--severity=style', INIT_SCRIPT]);
  assert.equal(result.code, 0, result.stdout);
});

/** The one line nodeherd-init printed for its error, checking it is a single line. */
function errorLine(result: { code: number; stderr: string }): string {
  assert.equal(result.code, 1, `expected exit 1, got ${result.code}: ${result.stderr}`);
  const errors = result.stderr.split('\n').filter((line) => line.startsWith('nodeherd-init: error: '));
  assert.equal(errors.length, 1, result.stderr);
  return errors[0]!;
}

describe('nodeherd-init on a real node', { skip, timeout: 300_000 }, () => {
  let rootfs: Rootfs;
  let cp: ControlPlane;
  let node: Container | undefined;
  let token: string;
  const name = 'nh-init-a';

  before(async () => {
    rootfs = await ensureRootfs();
    cp = await ControlPlane.start();
    node = await Container.boot({ name, rootfs: rootfs.path });
    token = await cp.registerNode(name);
  });

  after(async () => {
    await node?.stop();
    await cp?.stop();
  });

  test('without systemd it stops at once and says so', async () => {
    // The same root filesystem started without --boot: a shell is PID 1, systemd does not run.
    const script = await readFile(INIT_SCRIPT);
    const result = await run(
      'systemd-nspawn',
      [
        '--quiet',
        '--register=no',
        '--keep-unit',
        '--volatile=overlay',
        `--machine=${name}-nosystemd`,
        `--directory=${rootfs.path}`,
        '--pipe',
        '/bin/sh',
        '-s',
        '--',
        ...cp.initArgs(name, token),
      ],
      { input: script, timeoutMs: 60_000 },
    );
    assert.equal(
      errorLine(result),
      'nodeherd-init: error: systemd is not running on this machine: nodeherd-agent runs as a systemd service',
    );
  });

  test('an unreachable API server is named in one line', async () => {
    const port = await freePort(); // nothing listens there
    const args = cp.initArgs(name, token);
    args[args.indexOf('--server') + 1] = `https://127.0.0.1:${port}`;
    const line = errorLine(await cp.runInit(node!, args));
    assert.match(
      line,
      new RegExp(
        `^nodeherd-init: error: cannot reach the API server at https://127\\.0\\.0\\.1:${port}: curl: \\(7\\) `,
      ),
    );
  });

  test('an API server whose certificate the given CA did not sign is refused', async () => {
    const other = await ControlPlane.start(); // its own, different CA
    try {
      const args = cp.initArgs(name, token);
      args[args.indexOf('--server') + 1] = other.serverUrl;
      const line = errorLine(await cp.runInit(node!, args));
      assert.match(
        line,
        /^nodeherd-init: error: cannot reach the API server at .*: curl: \(60\) SSL certificate problem/,
      );
    } finally {
      await other.stop();
    }
  });

  test('a rejected token, and a token of another node, are told apart', async () => {
    assert.equal(
      errorLine(await cp.runInit(node!, cp.initArgs(name, 'not-a-token'))),
      `nodeherd-init: error: the API server at ${cp.serverUrl} rejected the token`,
    );
    const otherToken = await cp.registerNode('nh-init-other');
    assert.equal(
      errorLine(await cp.runInit(node!, cp.initArgs(name, otherToken))),
      `nodeherd-init: error: the token may not act as node ${name}`,
    );
  });

  test('a wrong checksum stops before anything of the agent is installed', async () => {
    const wrong = '0'.repeat(64);
    const line = errorLine(await cp.runInit(node!, cp.initArgs(name, token, ['--agent-sha256', wrong])));
    assert.equal(
      line,
      `nodeherd-init: error: checksum mismatch for nodeherd-agent.mjs: expected ${wrong}, got ${cp.artefacts.agent.sha256}`,
    );
    await assert.rejects(stat(node!.hostPath(`${PREFIX}/nodeherd-agent.mjs`)), { code: 'ENOENT' });
    await assert.rejects(stat(node!.hostPath(`/etc/systemd/system/${AGENT_UNIT}`)), { code: 'ENOENT' });
  });

  test('run as nodeherd-init.service with wget only: installs and starts the agent, then disables itself', async () => {
    const c = node!;
    const env = cp
      .initArgs(name, token, ['--agent-env', `NODEHERD_METRICS_ADDRESS=127.0.0.1:${await freePort()}`])
      .reduce<string[]>((lines, value, i, all) => {
        if (i % 2 === 1) lines.push(`${envName(all[i - 1]!)}=${value}`);
        return lines;
      }, []);
    await c.execChecked(['install', '-d', '-m', '0700', '/etc/nodeherd'], {});
    await c.execChecked(['sh', '-c', 'cat >/etc/nodeherd/init.env && chmod 600 /etc/nodeherd/init.env'], {
      input: `${env.join('\n')}\n`,
    });
    await c.execChecked(
      ['sh', '-c', 'cat >/usr/local/sbin/nodeherd-init && chmod 755 /usr/local/sbin/nodeherd-init'],
      {
        input: await readFile(INIT_SCRIPT),
      },
    );
    await c.execChecked(['sh', '-c', 'cat >/etc/systemd/system/nodeherd-init.service'], {
      input: [
        '[Unit]',
        'Description=nodeherd bootstrap',
        'Wants=network-online.target',
        'After=network-online.target',
        '[Service]',
        'Type=oneshot',
        'EnvironmentFile=/etc/nodeherd/init.env',
        // Hide curl from the script: it must fall back to wget.
        'BindReadOnlyPaths=/dev/null:/usr/bin/curl',
        'ExecStart=/usr/local/sbin/nodeherd-init',
        '[Install]',
        'WantedBy=multi-user.target',
        '',
      ].join('\n'),
    });
    await c.execChecked(['systemctl', 'daemon-reload']);
    await c.execChecked(['systemctl', 'enable', 'nodeherd-init.service']);
    const started = await c.exec(['systemctl', 'start', 'nodeherd-init.service'], { timeoutMs: 180_000 });
    const log = await c.exec(['journalctl', '-u', 'nodeherd-init.service', '-o', 'cat', '--no-pager']);
    assert.equal(started.code, 0, log.stdout);
    assert.match(log.stdout, /nodeherd-init: downloading the agent with wget/);
    assert.match(log.stdout, /nodeherd-init: nodeherd-agent.service is running on node nh-init-a/);

    assert.equal((await unitState(c, 'nodeherd-init.service')).enabled, 'disabled', 'init disabled itself');
    const agent = await unitState(c, AGENT_UNIT);
    const agentLog = async () =>
      (await c.exec(['journalctl', '-u', AGENT_UNIT, '-o', 'cat', '--no-pager', '-n', '40'])).stdout;
    assert.equal(agent.active, 'active', agent.active === 'active' ? '' : await agentLog());
    assert.equal(agent.enabled, 'enabled');
    assert.equal(
      (await c.execChecked([`${PREFIX}/node`, '--version'])).trim(),
      cp.artefacts.runtime!.nodeVersion,
    );
    const bundle = await readFile(c.hostPath(`${PREFIX}/nodeherd-agent.mjs`));
    assert.equal(bundle.length, cp.artefacts.agent.size);
    assert.equal((await stat(c.hostPath('/etc/nodeherd/kubeconfig'))).mode & 0o777, 0o600);
    assert.equal(await readFile(c.hostPath('/etc/nodeherd/ca.crt'), 'utf8'), cp.caPem);
    await waitFor('the agent to report its Node', async () => {
      const object = await cp.getNode(name);
      return object.metadata?.annotations?.['nodeherd.io/state'] === 'Idle' ? true : undefined;
    });
  });

  test('a second run changes nothing and restarts nothing', async () => {
    const c = node!;
    const files = [
      '/etc/nodeherd/kubeconfig',
      '/etc/nodeherd/agent.env',
      `/etc/systemd/system/${AGENT_UNIT}`,
    ];
    const before = await Promise.all(files.map((file) => stat(c.hostPath(file))));
    const agentBefore = await unitState(c, AGENT_UNIT);
    const env = await readFile(c.hostPath('/etc/nodeherd/agent.env'), 'utf8');
    const port = /NODEHERD_METRICS_ADDRESS=(\S+)/.exec(env)?.[1];
    const result = await cp.runInit(
      c,
      cp.initArgs(name, token, ['--agent-env', `NODEHERD_METRICS_ADDRESS=${port}`]),
    );
    assert.equal(result.code, 0, result.stderr);
    assert.doesNotMatch(result.stderr, /downloading/);
    const after = await Promise.all(files.map((file) => stat(c.hostPath(file))));
    assert.deepEqual(
      after.map((s) => s.mtimeMs),
      before.map((s) => s.mtimeMs),
      'no file rewritten',
    );
    assert.equal(
      (await unitState(c, AGENT_UNIT)).invocationId,
      agentBefore.invocationId,
      'agent not restarted',
    );
  });

  test('a rotated token: a rerun replaces /etc/nodeherd/token only, and the running agent keeps working with it', async () => {
    const c = node!;
    const agentBefore = await unitState(c, AGENT_UNIT);
    const kubeconfigBefore = await stat(c.hostPath('/etc/nodeherd/kubeconfig'));
    const env = await readFile(c.hostPath('/etc/nodeherd/agent.env'), 'utf8');
    const port = /NODEHERD_METRICS_ADDRESS=(\S+)/.exec(env)?.[1];
    // The old token stops working at once.
    const rotated = (await cp.api.server.tokens.rotate('node', name)).token;
    const result = await cp.runInit(
      c,
      cp.initArgs(name, rotated, ['--agent-env', `NODEHERD_METRICS_ADDRESS=${port}`]),
    );
    assert.equal(result.code, 0, result.stderr);
    assert.equal((await readFile(c.hostPath('/etc/nodeherd/token'), 'utf8')).trim(), rotated);
    assert.equal((await stat(c.hostPath('/etc/nodeherd/token'))).mode & 0o777, 0o600);
    assert.equal((await stat(c.hostPath('/etc/nodeherd/kubeconfig'))).mtimeMs, kubeconfigBefore.mtimeMs);
    await cp.apply([name], 'rotation', {
      files: [{ path: '/etc/e2e/after-rotation.conf', content: { inline: { data: 'rotated\n' } } }],
    });
    assert.equal(await c.execChecked(['cat', '/etc/e2e/after-rotation.conf']), 'rotated\n');
    assert.equal(
      (await unitState(c, AGENT_UNIT)).invocationId,
      agentBefore.invocationId,
      'agent not restarted',
    );
  });
});

describe('nodeherd-init with the agent artefacts from the controller’s HTTPS endpoint', {
  skip,
  timeout: 300_000,
}, () => {
  let cp: ControlPlane;
  let node: Container | undefined;
  let manager: ControllerManager | undefined;
  let work: string;
  let artefactsCa: string;
  let token: string;
  const name = 'nh-init-ctl';

  before(async () => {
    const rootfs = await ensureRootfs();
    cp = await ControlPlane.start();
    work = await mkdtemp(join(tmpdir(), 'nodeherd-controller-artefacts-'));
    // The artefacts listener's own certificate, from a CA that is not the cluster's (as cert-manager's).
    const pki = await ensurePki(join(work, 'pki-home'));
    artefactsCa = pki.caPem;
    await writeFile(join(work, 'tls.crt'), pki.certPem);
    await writeFile(join(work, 'tls.key'), pki.keyPem, { mode: 0o600 });
    const flags = controllerCommand()
      .exitOverride()
      .parse([
        'node',
        'nodeherd-controller',
        `--artefacts-dir=${dirname(cp.artefacts.manifestPath)}`,
        '--artefacts-address=127.0.0.1:0',
        `--artefacts-tls-cert-file=${join(work, 'tls.crt')}`,
        `--artefacts-tls-key-file=${join(work, 'tls.key')}`,
      ])
      .opts<ControllerFlags>();
    const artefacts = artefactsOptions(flags);
    assert.ok(artefacts);
    manager = new ControllerManager({
      kubeConfig: loadKubeConfig({ kubeconfig: cp.api.kubeconfigPath }),
      leaderElect: false,
      artefacts,
    });
    await manager.start();
    node = await Container.boot({ name, rootfs: rootfs.path });
    token = await cp.registerNode(name);
  });

  after(async () => {
    await node?.stop();
    await manager?.stop();
    await cp?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  const fromController = (extra: string[] = []) =>
    cp.initArgs(name, token, [
      '--artefacts',
      manager!.artefactsUrl!,
      '--artefacts-ca-data',
      Buffer.from(artefactsCa).toString('base64'),
      ...extra,
    ]);

  test('the controller endpoint is refused under the cluster CA, which did not sign its certificate', async () => {
    const args = cp.initArgs(name, token, ['--artefacts', manager!.artefactsUrl!]);
    const line = errorLine(await cp.runInit(node!, args));
    assert.match(
      line,
      /^nodeherd-init: error: cannot download https:\/\/127\.0\.0\.1:\d+\/nodeherd\/agent\/node\.gz\.sha256: curl: \(60\) SSL certificate problem/,
    );
  });

  test('a wrong checksum for the controller’s agent stops before anything is installed', async () => {
    const wrong = 'f'.repeat(64);
    const line = errorLine(await cp.runInit(node!, fromController(['--agent-sha256', wrong])));
    assert.equal(
      line,
      `nodeherd-init: error: checksum mismatch for nodeherd-agent.mjs: expected ${wrong}, got ${cp.artefacts.agent.sha256}`,
    );
    await assert.rejects(stat(node!.hostPath(`${PREFIX}/nodeherd-agent.mjs`)), { code: 'ENOENT' });
  });

  test('downloads the runtime and the agent from the controller, checks their digests, and starts the agent', async () => {
    const c = node!;
    const result = await cp.runInit(
      c,
      fromController(['--agent-env', `NODEHERD_METRICS_ADDRESS=127.0.0.1:${await freePort()}`]),
    );
    assert.equal(result.code, 0, result.stderr);
    // The runtime came from the controller in the test before (it is fetched before the agent).
    assert.equal(
      (await readFile(c.hostPath(`${PREFIX}/node.gz.sha256`), 'utf8')).trim(),
      cp.artefacts.runtime!.sha256,
    );
    assert.match(result.stderr, /downloading the agent with curl/);
    const bundle = await readFile(c.hostPath(`${PREFIX}/nodeherd-agent.mjs`));
    assert.equal(createHash('sha256').update(bundle).digest('hex'), cp.artefacts.agent.sha256);
    assert.equal((await unitState(c, AGENT_UNIT)).active, 'active');
    await waitFor('the agent to report its Node', async () => {
      const object = await cp.getNode(name);
      return object.metadata?.annotations?.['nodeherd.io/state'] === 'Idle' ? true : undefined;
    });
  });
});

function envName(flag: string): string {
  const names: Record<string, string> = {
    '--server': 'NODEHERD_SERVER',
    '--token': 'NODEHERD_TOKEN',
    '--ca-data': 'NODEHERD_CA_DATA',
    '--artefacts': 'NODEHERD_ARTEFACTS',
    '--node-name': 'NODEHERD_NODE_NAME',
    '--agent-env': 'NODEHERD_AGENT_ENV',
  };
  const env = names[flag];
  if (!env) throw new Error(`no environment variable for ${flag}`);
  return env;
}

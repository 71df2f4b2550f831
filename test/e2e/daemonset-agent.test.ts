// The agent in DaemonSet mode on real systemd: started OUTSIDE a systemd-nspawn container, the way a
// privileged pod with hostPID and the node's root mounted at /host runs outside its node's systemd.
// --host-root is the container's root as the host sees it, --host-pid the container's systemd as the
// host sees it; the agent writes files under that root and runs systemctl, apt-get, dpkg-query and exec
// probes in the container's namespaces with nsenter. It authenticates with a ServiceAccount token the
// embedded server issued through TokenRequest, bound to a Pod on the container's Node, read from a
// tokenFile: replacing the file with a new token and revoking the old one (its pod deleted) keeps it
// working.

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { NodeConfigSpec } from '../../src/api/types.ts';
import { AGENT_DAEMONSET_SERVICE_ACCOUNT, AGENT_NAMESPACE } from '../../src/api/users.ts';
import type { KubeError } from '../../src/kube/kube-error.ts';
import { LightKubeClient } from '../../src/kube/light/light-kube-client.ts';
import type { KubeObject } from '../../src/kube/light/types.ts';
import { Container } from '../../src/nspawn/container.ts';
import { run } from '../../src/nspawn/host.ts';
import { ensureRootfs, type Rootfs } from '../../src/nspawn/rootfs.ts';
import { ControlPlane } from './support/control-plane.ts';
import { e2eSkipReason } from './support/host.ts';
import { serviceUnit, unitState } from './support/units.ts';

const skip = e2eSkipReason();
if (skip) process.stderr.write(`DaemonSet-mode e2e skipped: ${skip}\n`);

const NS = AGENT_NAMESPACE;
const SA = AGENT_DAEMONSET_SERVICE_ACCOUNT;

describe('the agent in DaemonSet mode manages a node from outside it', { skip, timeout: 300_000 }, () => {
  const name = 'nh-ds-a';
  let cp: ControlPlane;
  let rootfs: Rootfs;
  let node: Container | undefined;
  let agent: ChildProcess | undefined;
  let work: string;
  let tokenFile: string;
  let firstToken: string;
  const agentLog: string[] = [];

  async function createPod(pod: string): Promise<KubeObject> {
    return cp.admin.create(`/api/v1/namespaces/${NS}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: pod, labels: { 'app.kubernetes.io/name': 'nodeherd-agent' } },
      spec: {
        nodeName: name,
        serviceAccountName: SA,
        containers: [{ name: 'agent', image: 'nodeherd-agent' }],
      },
    });
  }

  /** What the kubelet does for a pod: a TokenRequest bound to it, written to the token file by rename. */
  async function mountTokenOf(pod: string): Promise<string> {
    const answer = await cp.admin.create<KubeObject & { status: { token: string } }>(
      `/api/v1/namespaces/${NS}/serviceaccounts/${SA}/token`,
      {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { expirationSeconds: 3600, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: pod } },
      },
    );
    await writeFile(`${tokenFile}.new`, answer.status.token, { mode: 0o600 });
    await rename(`${tokenFile}.new`, tokenFile);
    return answer.status.token;
  }

  before(async () => {
    rootfs = await ensureRootfs();
    cp = await ControlPlane.start();
    node = await Container.boot({ name, rootfs: rootfs.path });
    work = await mkdtemp(join(tmpdir(), 'nodeherd-ds-e2e-'));
    tokenFile = join(work, 'token');
    await cp.admin.create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name } });
    await cp.admin
      .create(`/api/v1/namespaces/${NS}/serviceaccounts`, {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: SA },
      })
      .catch((error: { status?: number }) => {
        if (error.status !== 409) throw error;
      });
    await createPod('nodeherd-agent-first');
    firstToken = await mountTokenOf('nodeherd-agent-first');
    const kubeconfig = join(work, 'kubeconfig');
    await writeFile(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'c',
            cluster: {
              server: cp.serverUrl,
              'certificate-authority-data': Buffer.from(cp.caPem).toString('base64'),
            },
          },
        ],
        users: [{ name: 'agent', user: { tokenFile } }],
        contexts: [{ name: 'c', context: { cluster: 'c', user: 'agent' } }],
        'current-context': 'c',
      }),
      { mode: 0o600 },
    );
    // The pod's view: the node's root at --host-root, its systemd at --host-pid, state on a hostPath.
    // The bundle nodes and the agent image run, on the pinned runtime.
    agent = spawn(
      process.execPath,
      [
        join(dirname(cp.artefacts.manifestPath), 'nodeherd-agent.mjs'),
        '--kubeconfig',
        kubeconfig,
        '--node-name',
        name,
        '--host-root',
        node.root,
        '--host-pid',
        String(node.leaderPid),
        '--state-dir',
        join(work, 'state'),
        '--metrics-address',
        'off',
        '--unit-timeout-seconds',
        '30',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_NAME: undefined } },
    );
    const keep = (chunk: Buffer) => {
      agentLog.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      if (agentLog.length > 100) agentLog.splice(0, agentLog.length - 100);
    };
    agent.stdout?.on('data', keep);
    agent.stderr?.on('data', keep);
  });

  after(async () => {
    agent?.kill('SIGTERM');
    await node?.stop();
    await cp?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  async function apply(spec: NodeConfigSpec): Promise<string> {
    try {
      return await cp.apply([name], 'ds', spec, 120_000);
    } catch (error) {
      throw new Error(`${(error as Error).message}\nagent log:\n${agentLog.slice(-20).join('\n')}`);
    }
  }

  const spec = (edition: string): NodeConfigSpec => ({
    files: [{ path: '/etc/e2e/ds.conf', mode: 0o644, content: { inline: { data: `edition ${edition}\n` } } }],
    units: [
      {
        name: 'e2e-ds.service',
        content: serviceUnit(`e2e DaemonSet-managed service, edition ${edition}`),
        filePaths: ['/etc/e2e/ds.conf'],
        // Passes only where the file is: inside the container, not on the host the agent runs on.
        healthProbe: { exec: { command: ['test', '-f', '/etc/e2e/ds.conf'] } },
      },
    ],
  });

  test('a NodeConfig with a file and a unit: the file is in the container and its systemd runs the unit', async () => {
    const c = node!;
    await apply(spec('one'));
    assert.equal(await c.execChecked(['cat', '/etc/e2e/ds.conf']), 'edition one\n');
    const state = await unitState(c, 'e2e-ds.service');
    assert.equal(state.active, 'active');
    assert.equal(state.enabled, 'enabled');
    assert.equal(state.fragmentPath, '/etc/systemd/system/e2e-ds.service');
    // Nothing leaked onto the host the agent runs on.
    await assert.rejects(readFile('/etc/e2e/ds.conf'), { code: 'ENOENT' });
  });

  test('the token rotates (new pod token in the file, the old pod deleted): the agent keeps working', async () => {
    const c = node!;
    const before = await unitState(c, 'e2e-ds.service');
    await createPod('nodeherd-agent-second');
    await mountTokenOf('nodeherd-agent-second');
    await cp.admin.delete(`/api/v1/namespaces/${NS}/pods/nodeherd-agent-first`, { gracePeriodSeconds: 0 });
    const old = new LightKubeClient({ server: cp.serverUrl, caPem: cp.caPem, token: firstToken });
    await assert.rejects(old.get(`/api/v1/nodes/${name}`), (error: KubeError) => error.status === 401);
    old.close();
    await apply(spec('two'));
    assert.equal(await c.execChecked(['cat', '/etc/e2e/ds.conf']), 'edition two\n');
    const restarted = await unitState(c, 'e2e-ds.service');
    assert.equal(restarted.active, 'active');
    assert.notEqual(restarted.invocationId, before.invocationId, 'the unit restarted for its changed file');
    assert.equal(agent!.exitCode, null, 'the same agent process throughout');
  });

  test('apt through nsenter: a repository and a package land in the container, not on the host', async () => {
    const c = node!;
    const key = await readFile(`${rootfs.path}/usr/share/keyrings/debian-archive-bookworm-automatic.gpg`);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own ${Field} syntax
    const statusFormat = '--showformat=${Status} ${Version}';
    const onHost = await run('dpkg-query', ['-W', statusFormat, 'hello']).catch(() => undefined);
    await apply({
      ...spec('two'),
      repositories: [
        {
          name: 'debian',
          uri: rootfs.mirror,
          suites: ['bookworm'],
          components: ['main'],
          signingKey: { data: key.toString('base64'), encoding: 'base64' },
        },
      ],
      packages: [{ name: 'hello' }],
    });
    assert.match(
      await c.execChecked(['dpkg-query', '-W', statusFormat, 'hello']),
      /^install ok installed \S+$/,
    );
    assert.equal((await c.execChecked(['hello'])).trim(), 'Hello, world!');
    const onHostAfter = await run('dpkg-query', ['-W', statusFormat, 'hello']).catch(() => undefined);
    assert.equal(onHostAfter?.stdout, onHost?.stdout, 'the host’s packages are untouched');
  });
});

// `nodeherd up --nspawn 1`: the local cluster with a real Debian container as its node. nodeherd-init
// installs the agent served by the API server, and the sample pool reaches the container on real
// systemd. Ctrl-C powers the container off and leaves no mount or process behind. Needs root,
// systemd-nspawn, debootstrap and overlayfs; skips otherwise (see support/host.ts).

import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';
import { CURRENT_REVISION_ANNOTATION, STATE_ANNOTATION } from '../../src/api/node-protocol.ts';
import { KubeClient } from '../../src/kube/kube-client.ts';
import { loadKubeConfig } from '../../src/kube/kube-config.ts';
import { waitFor } from '../../src/nspawn/host.ts';
import { e2eSkipReason } from './support/host.ts';

const skip = e2eSkipReason();
if (skip) process.stderr.write(`up --nspawn e2e skipped: ${skip}\n`);

const REPO = resolve(import.meta.dirname, '../..');
const GROUP = '/apis/nodeherd.io/v1alpha1';
const NODE = 'nspawn-0001';

interface NodeObject {
  metadata: { annotations?: Record<string, string> };
  status?: { conditions?: { type: string; status: string }[] };
}
interface PoolObject {
  status?: { targetRevision?: string; conditions?: { type: string; status: string }[] };
}

function mounted(path: string): boolean {
  return readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .some((line) => line.split(' ')[1]?.startsWith(path));
}

function nspawnRunning(stateDir: string): boolean {
  try {
    return execFileSync('pgrep', ['-f', `systemd-nspawn.*${stateDir}`], { encoding: 'utf8' }).trim() !== '';
  } catch {
    return false; // pgrep exits 1 when nothing matches
  }
}

describe('nodeherd up --nspawn', { skip, timeout: 600_000 }, () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'nodeherd-up-nspawn-'));
  let child: ChildProcess | undefined;
  let output = '';

  after(() => {
    child?.kill('SIGKILL');
    if (!mounted(stateDir)) rmSync(stateDir, { recursive: true, force: true });
  });

  test('the sample pool reaches a container node on real systemd; Ctrl-C cleans up', async () => {
    child = spawn(
      join(REPO, 'node_modules/.bin/node'),
      ['bin/nodeherd.ts', 'up', '--nspawn', '1', '--no-view', '--state-dir', stateDir, '--port', '0'],
      { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise<number | null>((done) => child!.once('exit', (code) => done(code)));
    let exitCode: number | null | undefined;
    void exited.then((code) => {
      exitCode = code;
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    await waitFor(
      'nodeherd up --nspawn to be ready',
      () => {
        if (exitCode !== undefined) throw new Error(`exited ${exitCode}:\n${output}`);
        return /^ready: 1 node, API server https:\/\/127\.0\.0\.1:\d+/m.test(output) ? true : undefined;
      },
      420_000,
      250,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${output}`);
    });

    const client = new KubeClient(loadKubeConfig({ kubeconfig: join(stateDir, 'apiserver/kubeconfig') }));
    try {
      const target = await waitFor(
        'the sample pool to be Complete on the container node',
        async () => {
          const pool = await client.get<PoolObject>(`${GROUP}/nodeconfigpools/workers`);
          const complete = pool.status?.conditions?.find((c) => c.type === 'Complete')?.status === 'True';
          const node = await client.get<NodeObject>(`/api/v1/nodes/${NODE}`);
          const annotations = node.metadata.annotations ?? {};
          return complete &&
            annotations[STATE_ANNOTATION] === 'Done' &&
            annotations[CURRENT_REVISION_ANNOTATION] === pool.status?.targetRevision
            ? pool.status?.targetRevision
            : undefined;
        },
        180_000,
        500,
      );
      assert.match(target, /^workers-/);
    } finally {
      client.close();
    }
    // What the agent wrote is on the container's disk (its overlay, kept in the state dir).
    const root = join(stateDir, 'containers', NODE, 'root');
    assert.match(readFileSync(join(root, 'etc/fleet-heartbeat/heartbeat.env'), 'utf8'), /MESSAGE=/);
    assert.ok(existsSync(join(root, 'etc/systemd/system/kubelet.service.d/20-nodeherd.conf')));

    child.kill('SIGINT');
    const code = await Promise.race([
      exited,
      new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 120_000).unref()),
    ]);
    assert.equal(code, 0, output);
    assert.equal(nspawnRunning(stateDir), false, 'no systemd-nspawn left running');
    assert.equal(mounted(stateDir), false, 'no overlay left mounted');
  });
});

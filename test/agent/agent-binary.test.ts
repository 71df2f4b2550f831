// bin/nodeherd-agent.ts as a process: applies what it is told, serves /healthz, /metrics (and /v1/update) on
// 127.0.0.1, refuses bad flags, and stops cleanly on SIGTERM.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AGENT_NODE_FLAGS, bundleAgent } from '../../src/dist/build-agent.ts';
import {
  type Cluster,
  createNode,
  createRevision,
  setDesired,
  startCluster,
  waitForState,
} from './agent-harness.ts';
import { agentPaths, killAllAgentProcesses, startAgentProcess } from './agent-process.ts';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('nodeherd-agent process', () => {
  let cluster: Cluster;

  before(async () => {
    cluster = await startCluster();
  });
  after(async () => {
    await killAllAgentProcesses();
    await cluster?.stop();
  });

  it('applies, serves /healthz and /metrics, and stops on SIGTERM', async () => {
    await createNode(cluster, 'binary-1');
    const paths = await agentPaths(cluster, 'binary-1');
    const port = await freePort();
    const revision = await createRevision(cluster, 'binary', {
      files: [{ path: '/etc/binary.conf', mode: 0o600, content: { inline: { data: 'hello\n' } } }],
      units: [
        {
          name: 'binary.service',
          content: '[Service]\nExecStart=/bin/binary\n',
          filePaths: ['/etc/binary.conf'],
        },
      ],
    });
    await setDesired(cluster, 'binary-1', revision.metadata.name);
    const agent = startAgentProcess(paths, { args: ['--metrics-address', `127.0.0.1:${port}`] });
    await waitForState(cluster, 'binary-1', 'Done');
    assert.equal(await readFile(join(paths.root, 'etc/binary.conf'), 'utf8'), 'hello\n');

    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    assert.equal(health.status, 200);
    const body = (await health.json()) as { node: string; state: string; currentRevision: string };
    assert.equal(body.node, 'binary-1');
    assert.equal(body.state, 'Done');
    assert.equal(body.currentRevision, revision.metadata.name);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    assert.match(metrics, /nodeherd_agent_state\{state="Done"\} 1/);
    assert.match(
      metrics,
      new RegExp(`nodeherd_agent_current_revision_info\\{revision="${revision.metadata.name}"`),
    );
    assert.match(metrics, /nodeherd_agent_apply_duration_seconds_count\{result="success"\} 1/);
    // One watch, its Node's; the revision, immutable, is read once.
    assert.match(metrics, /nodeherd_agent_api_requests_total\{verb="watch"\} 1/);
    assert.match(metrics, /nodeherd_agent_api_requests_total\{verb="get"\} 1/);
    // The node's OTA API is served beside them: nothing is offered to this node.
    const update = await fetch(`http://127.0.0.1:${port}/v1/update`);
    assert.equal(update.status, 404);
    assert.equal(((await update.json()) as { reason: string }).reason, 'NoUpdateAvailable');

    await agent.kill('SIGTERM');
    assert.equal((await agent.exited).code, 0);
    assert.ok(agent.lines.some((l) => l.msg === 'stopping'));
    assert.ok(
      agent.lines.every((l) => !JSON.stringify(l).includes('hello')),
      'file contents never reach the log',
    );
  });

  it("as shipped (the bundle, with the unit's Node flags) applies over HTTPS, reports and serves", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'nodeherd-agent-bundle-'));
    try {
      const bundle = join(dir, 'nodeherd-agent.mjs');
      await bundleAgent({
        entry: join(import.meta.dirname, '../../bin/nodeherd-agent.ts'),
        outFile: bundle,
        version: '0.0.0-test',
        minify: true,
      });
      await createNode(cluster, 'binary-3');
      const paths = await agentPaths(cluster, 'binary-3');
      const port = await freePort();
      const revision = await createRevision(cluster, 'binary-shipped', {
        files: [{ path: '/etc/shipped.conf', content: { inline: { data: 'as shipped\n' } } }],
        units: [{ name: 'shipped.service', content: '[Service]\nExecStart=/bin/shipped\n' }],
      });
      await setDesired(cluster, 'binary-3', revision.metadata.name);
      const agent = startAgentProcess(paths, {
        entry: bundle,
        nodeFlags: AGENT_NODE_FLAGS,
        args: ['--metrics-address', `127.0.0.1:${port}`],
      });
      await waitForState(cluster, 'binary-3', 'Done');
      assert.equal(await readFile(join(paths.root, 'etc/shipped.conf'), 'utf8'), 'as shipped\n');
      const health = (await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()) as { state: string };
      assert.equal(health.state, 'Done');
      assert.match(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text(), /nodeherd_agent_state/);
      await agent.kill('SIGTERM');
      assert.equal((await agent.exited).code, 0);
      assert.deepEqual(
        agent.lines.filter((l) => l.level === 'error' || l.level === 'raw'),
        [],
        'nothing on stderr but the log',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps managing the node when its metrics port is taken, and says why', async () => {
    const squatter = createServer();
    const port = await new Promise<number>((resolve) =>
      squatter.listen(0, '127.0.0.1', () => resolve((squatter.address() as { port: number }).port)),
    );
    try {
      await createNode(cluster, 'binary-2');
      const paths = await agentPaths(cluster, 'binary-2');
      const revision = await createRevision(cluster, 'binary-busy-port', {
        files: [{ path: '/etc/busy.conf', content: { inline: { data: 'still managed\n' } } }],
      });
      await setDesired(cluster, 'binary-2', revision.metadata.name);
      const agent = startAgentProcess(paths, { args: ['--metrics-address', `127.0.0.1:${port}`] });
      await waitForState(cluster, 'binary-2', 'Done');
      assert.equal(await readFile(join(paths.root, 'etc/busy.conf'), 'utf8'), 'still managed\n');
      assert.ok(agent.lines.some((l) => String(l.msg).startsWith('cannot serve /healthz and /metrics')));
      await agent.kill('SIGTERM');
      assert.equal((await agent.exited).code, 0);
    } finally {
      squatter.close();
    }
  });

  it('refuses unknown flags with the usage', async () => {
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [join(import.meta.dirname, '../../bin/nodeherd-agent.ts'), '--backend', 'nope'],
        (error, _stdout, stderr) =>
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stderr }),
      );
    });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--backend must be one of/);
    assert.match(result.stderr, /Usage: nodeherd-agent/);
  });
});

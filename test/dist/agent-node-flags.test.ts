// The agent runs with the same Node flags wherever it ships (issue 17: each was measured to save idle
// RSS): nodeherd-init.sh's unit and the agent image's entrypoint carry AGENT_NODE_FLAGS (which
// bench/agent-idle.bench.ts measures with), and the pinned runtime accepts them.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { AGENT_NODE_ENV, AGENT_NODE_FLAGS, bundleAgent, REPO_ROOT } from '../../src/dist/build-agent.ts';
import { imageSpecs } from '../../src/dist/images/build-images.ts';

const execFileAsync = promisify(execFile);

test("nodeherd-init.sh's unit starts the agent with AGENT_NODE_FLAGS", async () => {
  const script = await readFile(join(REPO_ROOT, 'init/nodeherd-init.sh'), 'utf8');
  const execStarts = script.split('\n').filter((line) => line.startsWith('ExecStart='));
  assert.deepEqual(execStarts, [
    `ExecStart=$PREFIX/node ${AGENT_NODE_FLAGS.join(' ')} $PREFIX/nodeherd-agent.mjs`,
  ]);
});

test("nodeherd-init.sh's unit gives Node AGENT_NODE_ENV", async () => {
  const script = await readFile(join(REPO_ROOT, 'init/nodeherd-init.sh'), 'utf8');
  const environment = script
    .split('\n')
    .filter((line) => line.startsWith('Environment='))
    .flatMap((line) => line.slice('Environment='.length).split(' '));
  for (const [name, value] of Object.entries(AGENT_NODE_ENV))
    assert.ok(environment.includes(`${name}=${value}`), `${name}=${value} in ${environment.join(' ')}`);
});

test("the agent image's entrypoint uses the same flags", () => {
  assert.deepEqual(imageSpecs().agent.nodeFlags, AGENT_NODE_FLAGS);
});

test('the runtime runs the bundle with those flags', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'nodeherd-flags-'));
  try {
    const bundle = join(dir, 'nodeherd-agent.mjs');
    await bundleAgent({
      entry: join(REPO_ROOT, 'bin/nodeherd-agent.ts'),
      outFile: bundle,
      version: '0.0.0-test',
      minify: true,
    });
    const { stdout, stderr } = await execFileAsync(process.execPath, [...AGENT_NODE_FLAGS, bundle, '--help']);
    assert.match(stdout, /^Usage: nodeherd-agent \[flags\]/);
    assert.equal(stderr, '');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

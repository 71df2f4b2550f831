// The build of what nodes run: one bundle that needs nothing but the Node runtime (it runs from an
// empty directory, far from node_modules), and the runtime itself, stripped and gzipped, each with a
// sha256 file that sha256sum accepts.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import {
  buildAgent,
  checksumLine,
  packageRuntime,
  parseChecksumLine,
  RUNTIME_FILE,
} from '../../src/dist/build-agent.ts';

const execFileAsync = promisify(execFile);
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nodeherd-build-'));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('checksum lines are sha256sum’s format and read back', () => {
  const digest = 'a'.repeat(64);
  assert.equal(checksumLine(digest, 'node.gz'), `${digest}  node.gz\n`);
  assert.equal(parseChecksumLine(checksumLine(digest, 'node.gz')), digest);
  assert.equal(parseChecksumLine('not a digest  node.gz\n'), undefined);
  assert.equal(parseChecksumLine(''), undefined);
});

test('the agent bundle is one self-contained module with its version and checksum', async () => {
  const out = join(dir, 'agent-only');
  const result = await buildAgent({ outDir: out, version: '1.2.3-test', runtime: false });
  assert.equal(result.runtime, undefined);
  const bundle = await readFile(result.agent.path);
  assert.equal(result.agent.sha256, sha256(bundle));
  assert.equal(result.agent.size, bundle.length);
  assert.ok(bundle.length < 1024 * 1024, `bundle fits in a NodeConfig file (${bundle.length} bytes)`);
  assert.ok(bundle.toString('utf8').startsWith('#!/usr/bin/env node\n// nodeherd-agent 1.2.3-test\n'));
  assert.equal(
    await readFile(join(out, 'nodeherd-agent.mjs.sha256'), 'utf8'),
    `${result.agent.sha256}  nodeherd-agent.mjs\n`,
  );
  const manifest = JSON.parse(await readFile(result.manifestPath, 'utf8'));
  assert.deepEqual(manifest, {
    version: '1.2.3-test',
    agent: { file: 'nodeherd-agent.mjs', sha256: result.agent.sha256, size: result.agent.size },
  });

  // Away from the repository and its node_modules, the bundle still runs.
  const lonely = join(dir, 'lonely');
  await rm(lonely, { recursive: true, force: true });
  await execFileAsync('mkdir', ['-p', lonely]);
  await copyFile(result.agent.path, join(lonely, 'agent.mjs'));
  const { stdout } = await execFileAsync(process.execPath, [join(lonely, 'agent.mjs'), '--help'], {
    cwd: lonely,
  });
  assert.match(stdout, /^Usage: nodeherd-agent \[flags\]/);
  await assert.rejects(
    execFileAsync(process.execPath, [join(lonely, 'agent.mjs'), '--no-such-flag'], { cwd: lonely }),
    (error: { code?: number; stderr?: string }) =>
      error.code === 2 && /no-such-flag/.test(error.stderr ?? ''),
  );
  await assert.rejects(
    buildAgent({ outDir: out, version: 'bad version', runtime: false }),
    /invalid version/,
  );
});

test('the runtime is the running node, stripped and gzipped, and is reused while the source is unchanged', async () => {
  const out = join(dir, 'runtime');
  const runtime = await packageRuntime(process.execPath, out);
  assert.equal(runtime.file, RUNTIME_FILE);
  const compressed = await readFile(runtime.path);
  assert.equal(runtime.sha256, sha256(compressed));
  const binary = gunzipSync(compressed);
  assert.equal(sha256(binary), runtime.binarySha256);
  assert.equal(binary.length, runtime.binarySize);
  assert.equal(runtime.nodeVersion, process.version);
  assert.ok(runtime.size < runtime.binarySize / 2, 'compressed to less than half');

  const written = (await stat(runtime.path)).mtimeMs;
  const again = await packageRuntime(process.execPath, out);
  assert.deepEqual(again, runtime);
  assert.equal((await stat(runtime.path)).mtimeMs, written, 'the cached runtime is reused, not rewritten');
});

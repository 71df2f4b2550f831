// The CLI as a user installs it: `npm pack` (which builds dist/bin first), `npm install -g` of the
// tarball into a temporary prefix, then the installed `nodeherd up --no-view` (and its dashboard) and `nodeherd status`
// (and `kubectl nodeherd status`) from a directory that is not the clone, with the clone's
// node_modules nowhere on PATH.
//
// The installed CLI runs on the pinned Node 24 by default. NODEHERD_TEST_CLI_NODE=<node binary> runs
// it on another Node instead (e.g. a Node 22 from `npm install --prefix /tmp/node22 node@22`).

import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { eventually } from '../support/eventually.ts';

const execFileAsync = promisify(execFile);
const REPO = resolve(import.meta.dirname, '../..');
const PINNED_NODE = join(REPO, 'node_modules/node/bin/node');
const CLI_NODE = process.env.NODEHERD_TEST_CLI_NODE ?? PINNED_NODE;
const work = mkdtempSync(join(tmpdir(), 'nodeherd-packed-'));
const prefix = join(work, 'prefix');
after(() => rmSync(work, { recursive: true, force: true }));

/** PATH as on a user's machine: the installed bins, a Node ≥ 22, the system's tools (kubectl). */
function userPath(node: string): string {
  const system = (process.env.PATH ?? '').split(':').filter((p) => !p.startsWith(REPO) && p !== '');
  return [join(prefix, 'bin'), dirname(node), ...system].join(':');
}

async function run(
  command: string,
  args: string[],
  options: { cwd?: string; path: string; timeoutMs?: number },
): Promise<{ stdout: string; stderr: string }> {
  return execFileAsync(command, args, {
    cwd: options.cwd ?? work,
    env: { ...process.env, PATH: options.path, NO_COLOR: '1', HOME: work },
    timeout: options.timeoutMs ?? 120_000,
    maxBuffer: 16 * 1024 * 1024,
  });
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

test('npm pack + npm install -g: nodeherd up, nodeherd status and kubectl nodeherd work from the installed prefix', async () => {
  // npm itself runs on the pinned Node (its scripts then find the pinned Node first, as in the clone).
  const npmPath = [dirname(PINNED_NODE), process.env.PATH].join(':');
  const packed = await run('npm', ['pack', '--pack-destination', work, '--json'], {
    cwd: REPO,
    path: npmPath,
  });
  // The prepack build prints first; the JSON report is what follows.
  const json = packed.stdout.slice(packed.stdout.search(/^\[/m));
  const [info] = JSON.parse(json) as { filename: string; files: { path: string }[] }[];
  assert.ok(info);
  const paths = info.files.map((f) => f.path);
  assert.ok(paths.includes('dist/bin/nodeherd.mjs'), paths.join(', '));
  assert.ok(paths.includes('deploy/samples/nodeconfigpool.yaml'), 'the samples `up` creates are packed');
  assert.ok(paths.includes('init/nodeherd-init.sh'));
  assert.deepEqual(
    paths.filter((p) => p.endsWith('.ts') || p.startsWith('src/') || p.startsWith('test/')),
    [],
    'no TypeScript sources in the package',
  );

  await run(
    'npm',
    [
      'install',
      '--global',
      '--prefix',
      prefix,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      join(work, info.filename),
    ],
    { path: npmPath, timeoutMs: 300_000 },
  );
  const installed = join(prefix, 'lib/node_modules/nodeherd');
  assert.equal(
    readlinkSync(join(prefix, 'bin/nodeherd')),
    '../lib/node_modules/nodeherd/dist/bin/nodeherd.mjs',
  );
  assert.deepEqual(
    filesUnder(installed).filter((f) => f.endsWith('.ts') && !f.includes('/node_modules/')),
    [],
  );

  const path = userPath(CLI_NODE);
  const { stdout: version } = await run('node', ['--version'], { path });
  const major = Number(/^v(\d+)/.exec(version)?.[1]);
  assert.ok(major >= 22, `the CLI runs on ${version.trim()}`);

  const stateDir = join(work, 'state');
  const up: ChildProcess = spawn(
    join(prefix, 'bin/nodeherd'),
    ['up', '--no-view', '--state-dir', stateDir, '--port', '0', '--node-api-port', '0', '--nodes', '2'],
    {
      cwd: work,
      env: { ...process.env, PATH: path, NO_COLOR: '1', HOME: work },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  up.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  up.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((done) => up.once('exit', (code) => done(code)));
  let exitCode: number | null | undefined;
  void exited.then((code) => {
    exitCode = code;
  });
  try {
    const kubeconfig = await eventually(
      'nodeherd up to print ready:',
      async () => {
        if (exitCode !== undefined) throw new Error(`nodeherd up exited (${exitCode}):\n${output}`);
        return /^ready: /m.test(output) ? /export KUBECONFIG=(\S+)/.exec(output)?.[1] : undefined;
      },
      180_000,
      200,
    );
    assert.equal(kubeconfig, join(stateDir, 'apiserver/kubeconfig'));
    // Out of a clone the hint names the installed command.
    assert.match(output, /^ {2}nodeherd status workers$/m);

    const status = await eventually(
      'the sample pool to complete, as nodeherd status shows it',
      async () => {
        const { stdout } = await run('nodeherd', ['status', 'workers', '--kubeconfig', kubeconfig], { path });
        return /Complete\s+True/.test(stdout) ? stdout : undefined;
      },
      120_000,
      500,
    );
    assert.match(status, /^pool workers {2}RollingUpdate/m);
    assert.match(status, /^ {2}2\s+2\s+2\s+0/m);

    // The dashboard ships in the bundle: `up` serves its page and script (bundled at build time).
    // Its address carries the secret only the starting user has; the page answers only with it.
    const printed = /^ {2}(http:\/\/127\.0\.0\.1:\d+\/dashboard\/\?token=[\w-]+)$/m.exec(output)?.[1];
    assert.ok(printed, `no dashboard address in:\n${output}`);
    const dashboardUrl = new URL(printed);
    dashboardUrl.search = '';
    assert.equal((await fetch(dashboardUrl)).status, 401, 'no page without the secret');
    const login = await fetch(printed, { redirect: 'manual' });
    assert.equal(login.status, 303);
    const cookie = login.headers.get('set-cookie')?.split(';')[0];
    assert.ok(cookie, 'the printed address sets the cookie');
    const page = await fetch(dashboardUrl, { headers: { cookie } });
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<title>nodeherd dashboard<\/title>/);
    const script = await fetch(new URL('app.js', dashboardUrl), { headers: { cookie } });
    assert.equal(script.status, 200);
    assert.match(await script.text(), /api\/events/);
    const timeline = await run('nodeherd', ['status', 'workers', '--timeline', '--kubeconfig', kubeconfig], {
      path,
    });
    assert.match(timeline.stdout, /^ {2}legend: /m);

    const plugin = await run('kubectl', ['nodeherd', 'status', 'workers', '--kubeconfig', kubeconfig], {
      path,
    });
    assert.match(plugin.stdout, /Complete\s+True/);

    const completion = await run('nodeherd', ['completion', 'bash'], { path });
    assert.match(completion.stdout, /complete -o default -F _nodeherd nodeherd kubectl-nodeherd/);
    // kubectl completes its plugin through kubectl_complete-nodeherd, installed beside it.
    const pluginCompletion = await run('kubectl', ['__complete', 'nodeherd', 'st'], { path });
    assert.match(pluginCompletion.stdout, /^status\n:4\n/);
  } finally {
    up.kill('SIGINT');
    const code = await Promise.race([
      exited,
      new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 60_000)),
    ]);
    if (code === 'timeout') up.kill('SIGKILL');
    assert.equal(code, 0, `nodeherd up exit after Ctrl-C:\n${output}`);
  }
});

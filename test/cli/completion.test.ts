// `nodeherd completion bash|zsh`: the generated script is sourced in the real shell and asked what it
// completes for partial command lines, as the shell would when the user presses TAB.

import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import {
  completeArgs,
  completeWithNames,
  completionScript,
  kubectlCompletion,
} from '../../src/cli/completion-command.ts';
import { nodeherdProgram } from '../../src/cli/main.ts';
import { CliCluster } from './support/cli-cluster.ts';

const execFileAsync = promisify(execFile);
const REPO = resolve(import.meta.dirname, '../..');
const NODE = join(REPO, 'node_modules/.bin/node');
const dir = mkdtempSync(join(tmpdir(), 'nodeherd-completion-'));

const hasShell = (shell: string) => spawnSync(shell, ['-c', 'true']).status === 0;

async function scriptFile(shell: 'bash' | 'zsh'): Promise<string> {
  const file = join(dir, `nodeherd.${shell}`);
  writeFileSync(file, completionScript(await nodeherdProgram(), shell));
  return file;
}

const quoted = (words: string[]) => words.map((w) => `'${w}'`).join(' ');

/** What bash completes for `line` (the cursor at its end), through the function `complete` registered. */
async function bashCompletes(file: string, line: string): Promise<string[]> {
  const words = line.split(' ');
  const program = [
    `source '${file}'`,
    // The function bash calls for nodeherd, exactly as registered by the script.
    `fn=$(complete -p nodeherd | sed -E 's/.* -F ([^ ]+) .*/\\1/')`,
    `COMP_WORDS=(${quoted(words)}); COMP_CWORD=${words.length - 1}; COMP_LINE='${line}'; COMP_POINT=${line.length}`,
    `"$fn" nodeherd "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"`,
    `printf '%s\\n' "\${COMPREPLY[@]}"`,
  ].join('\n');
  const { stdout } = await execFileAsync('bash', ['--norc', '--noprofile', '-c', program]);
  return stdout.split('\n').filter((w) => w !== '');
}

test('bash: the script registers for nodeherd and kubectl-nodeherd, and completes commands, options and values', async () => {
  const file = await scriptFile('bash');
  const { stdout } = await execFileAsync('bash', [
    '--norc',
    '-c',
    `source '${file}'; complete -p nodeherd; complete -p kubectl-nodeherd`,
  ]);
  assert.match(stdout, /complete -o default -F _nodeherd nodeherd/);
  assert.match(stdout, /complete -o default -F _nodeherd kubectl-nodeherd/);

  assert.deepEqual(await bashCompletes(file, 'nodeherd st'), ['status']);
  assert.deepEqual((await bashCompletes(file, 'nodeherd ')).sort(), [
    'apiserver',
    'completion',
    'dashboard',
    'pause',
    'plan',
    'resume',
    'rollback',
    'status',
    'token',
    'up',
    'upgrade',
  ]);
  assert.deepEqual((await bashCompletes(file, 'nodeherd upgrade ')).sort(), ['node', 'revision']);
  assert.deepEqual(await bashCompletes(file, 'nodeherd up --no-'), ['--no-view']);
  assert.deepEqual((await bashCompletes(file, 'nodeherd up --s')).sort(), ['--state-dir']);
  // An option's value: its choices; a value already given is skipped when finding the command.
  assert.deepEqual((await bashCompletes(file, 'nodeherd status -o ')).sort(), ['json', 'text']);
  assert.deepEqual(await bashCompletes(file, 'nodeherd status --kubeconfig /tmp/kc --con'), ['--context']);
  assert.deepEqual(await bashCompletes(file, 'nodeherd upgrade node --kubec'), ['--kubeconfig']);
  // A value that looks like a command name is still a value.
  assert.deepEqual(await bashCompletes(file, 'nodeherd status --context up --w'), ['--watch']);
  // No choices known: nothing from the script, so bash falls back to file names (-o default).
  assert.deepEqual(await bashCompletes(file, 'nodeherd up --state-dir '), []);
});

test('bash: the installed command prints the same script', async () => {
  const { stdout } = await execFileAsync(NODE, ['bin/nodeherd.ts', 'completion', 'bash'], { cwd: REPO });
  assert.equal(stdout, completionScript(await nodeherdProgram(), 'bash'));
  const bad = spawnSync(NODE, ['bin/nodeherd.ts', 'completion', 'fish'], { cwd: REPO, encoding: 'utf8' });
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /argument 'shell'.*must be one of bash, zsh/);
});

test('zsh: the script completes commands, options and values through compadd', async (t) => {
  if (!hasShell('zsh')) {
    t.skip('zsh is not installed (apt-get install zsh)');
    return;
  }
  const file = await scriptFile('zsh');
  // Outside an interactive shell compsys is not loaded: compdef, compadd and _files are stand-ins that
  // print what the completion function asked for.
  const zshCompletes = async (line: string): Promise<string[]> => {
    const words = line.split(' ');
    const program = [
      'compdef() { print -r -- "compdef $*" }',
      'compadd() { [[ $1 == -- ]] && shift; print -rl -- "$@" }',
      '_files() { print -r -- "<files>" }',
      `source '${file}' >/dev/null`,
      `words=(${quoted(words)}); CURRENT=${words.length}`,
      '_nodeherd',
    ].join('\n');
    const { stdout } = await execFileAsync('zsh', ['-f', '-c', program]);
    const cur = words[words.length - 1] ?? '';
    return stdout
      .split('\n')
      .filter((w) => w !== '' && (w === '<files>' || w.startsWith(cur)))
      .sort();
  };
  const { stdout } = await execFileAsync('zsh', [
    '-f',
    '-c',
    `compdef() { print -r -- "compdef $*" }; source '${file}'`,
  ]);
  assert.equal(stdout.trim(), 'compdef _nodeherd nodeherd kubectl-nodeherd');
  assert.deepEqual(await zshCompletes('nodeherd st'), ['status']);
  assert.deepEqual(await zshCompletes('nodeherd upgrade '), ['node', 'revision']);
  assert.deepEqual(await zshCompletes('nodeherd up --no-'), ['--no-view']);
  assert.deepEqual(await zshCompletes('nodeherd plan --output '), ['json', 'text']);
  assert.deepEqual(await zshCompletes('nodeherd status --kubeconfig /tmp/kc --con'), ['--context']);
  assert.deepEqual(await zshCompletes('nodeherd up --state-dir '), ['<files>']);
  // A command without subcommands: its arguments are files (or anything).
  assert.deepEqual(await zshCompletes('nodeherd status '), ['<files>']);
});

test('kubectl plugin completion (nodeherd __complete): the same answers in cobra’s format', async () => {
  const program = await nodeherdProgram();
  assert.deepEqual(completeArgs(program, ['st']), { candidates: ['status'], files: false });
  assert.deepEqual(completeArgs(program, ['upgrade', '']), {
    candidates: ['node', 'revision'],
    files: false,
  });
  assert.deepEqual(completeArgs(program, ['status', '-o', '']), {
    candidates: ['text', 'json'],
    files: false,
  });
  assert.deepEqual(completeArgs(program, ['status', '--context', 'up', '--w']), {
    candidates: ['--watch'],
    files: false,
  });
  assert.deepEqual(completeArgs(program, ['up', '--state-dir', '']), { candidates: [], files: true });
  // A pool's or node's name: looked up in the cluster by completeWithNames.
  assert.deepEqual(completeArgs(program, ['status', '']), { candidates: [], files: false, names: 'pools' });
  assert.deepEqual(completeArgs(program, ['upgrade', 'node', '--context', 'x', 's']), {
    candidates: [],
    files: false,
    names: 'nodes',
  });
  assert.deepEqual(completeArgs(program, ['plan', '--pool', '']), {
    candidates: [],
    files: false,
    names: 'pools',
  });
  assert.deepEqual(completeArgs(program, ['upgrade', 'revision', 'web', '']), {
    candidates: [],
    files: true,
  });
  assert.deepEqual(completeArgs(program, ['up', '--nodes', '']), { candidates: [], files: true });
  // kubectl reads the candidates, then ":<directive>": 4 = no file names, 0 = the shell's default.
  assert.equal(kubectlCompletion(program, ['st']), 'status\n:4\n');
  assert.equal(kubectlCompletion(program, ['up', '--state-dir', '']), ':0\n');
  const { stdout } = await execFileAsync(NODE, ['bin/nodeherd.ts', '__complete', 'pa'], { cwd: REPO });
  assert.equal(stdout, 'pause\n:4\n');
});

test('pool and node names complete from the cluster: bash, zsh and kubectl’s plugin completion', async (t) => {
  const cluster = await CliCluster.start();
  t.after(() => cluster.stop());
  await cluster.createPool('web', {
    nodeSelector: { matchLabels: { role: 'web' } },
    configSelector: { matchLabels: { role: 'web' } },
  });
  await cluster.createPool('workers', {
    nodeSelector: { matchLabels: { role: 'workers' } },
    configSelector: { matchLabels: { role: 'workers' } },
  });
  await cluster.createNode({ name: 'web-1', labels: { role: 'web' } });
  await cluster.createNode({ name: 'worker-1', labels: { role: 'workers' } });
  // `nodeherd` on the PATH, as installed: the scripts ask it (nodeherd __complete …) for the names.
  const bin = mkdtempSync(join(tmpdir(), 'nodeherd-completion-bin-'));
  writeFileSync(join(bin, 'nodeherd'), `#!/bin/sh\nexec '${NODE}' '${REPO}/bin/nodeherd.ts' "$@"\n`, {
    mode: 0o755,
  });
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, KUBECONFIG: cluster.kubeconfig };

  const program = await nodeherdProgram();
  const lister = async (kind: 'pools' | 'nodes') =>
    kind === 'pools' ? ['web', 'workers'] : ['web-1', 'worker-1'];
  assert.equal(await completeWithNames(program, ['status', 'w'], lister), 'web\nworkers\n:4\n');
  assert.equal(await completeWithNames(program, ['pause', 'wo'], lister), 'workers\n:4\n');
  assert.equal(await completeWithNames(program, ['upgrade', 'node', 'web'], lister), 'web-1\n:4\n');
  // A cluster that cannot be reached offers nothing, and no file names either.
  const failing = async () => {
    throw new Error('connection refused');
  };
  assert.equal(await completeWithNames(program, ['status', ''], failing), ':4\n');

  // The program against the real API server (as kubectl_complete-nodeherd runs it).
  const run = (args: string[]) =>
    execFileAsync(NODE, ['bin/nodeherd.ts', '__complete', ...args], { cwd: REPO, env });
  assert.equal((await run(['status', 'w'])).stdout, 'web\nworkers\n:4\n');
  assert.equal((await run(['rollback', '--kubeconfig', cluster.kubeconfig, 'we'])).stdout, 'web\n:4\n');
  assert.equal((await run(['upgrade', 'node', 'wor'])).stdout, 'worker-1\n:4\n');
  assert.equal((await run(['plan', '--pool', ''])).stdout, 'web\nworkers\n:4\n');
  assert.equal((await run(['status', '--kubeconfig', join(dir, 'missing'), ''])).stdout, ':4\n');

  // bash, through the function the script registers, with nodeherd on the PATH.
  const file = await scriptFile('bash');
  const bash = async (line: string): Promise<string[]> => {
    const words = line.split(' ');
    const script = [
      `source '${file}'`,
      `COMP_WORDS=(${quoted(words)}); COMP_CWORD=${words.length - 1}`,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's own ${…}, not a template
      '_nodeherd nodeherd "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"',
      `printf '%s\\n' "\${COMPREPLY[@]}"`,
    ].join('\n');
    const { stdout } = await execFileAsync('bash', ['--norc', '--noprofile', '-c', script], { env });
    return stdout.split('\n').filter((w) => w !== '');
  };
  assert.deepEqual(await bash('nodeherd status w'), ['web', 'workers']);
  assert.deepEqual(await bash('nodeherd resume wor'), ['workers']);
  assert.deepEqual(await bash('nodeherd upgrade node w'), ['web-1', 'worker-1']);
  assert.deepEqual(await bash('nodeherd plan -f x.yaml --pool we'), ['web']);
  assert.deepEqual(await bash('nodeherd token --node worker'), ['worker-1']);

  if (hasShell('zsh')) {
    const zshFile = await scriptFile('zsh');
    const zsh = async (line: string): Promise<string[]> => {
      const words = line.split(' ');
      const script = [
        'compdef() { :; }',
        'compadd() { [[ $1 == -- ]] && shift; print -rl -- "$@" }',
        '_files() { print -r -- "<files>" }',
        `source '${zshFile}' >/dev/null`,
        `words=(${quoted(words)}); CURRENT=${words.length}`,
        '_nodeherd',
      ].join('\n');
      const { stdout } = await execFileAsync('zsh', ['-f', '-c', script], { env });
      return stdout.split('\n').filter((w) => w !== '');
    };
    assert.deepEqual(await zsh('nodeherd status w'), ['web', 'workers']);
    assert.deepEqual(await zsh('nodeherd upgrade node web'), ['web-1']);
  }
});

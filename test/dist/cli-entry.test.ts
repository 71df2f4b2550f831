// The installed command's entry checks the Node version before the bundle loads: on a Node older
// than the engines field the bundle's imports fail inside undici with a stack trace, even for --help.

import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { CLI_NODE_MINIMUM, cliEntry } from '../../src/dist/build-cli.ts';

const execFileAsync = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'nodeherd-cli-entry-'));
after(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, 'nodeherd.mjs'), cliEntry('bundle.mjs'));
writeFileSync(
  join(dir, 'bundle.mjs'),
  "process.stdout.write('bundle ran: ' + process.argv.slice(2).join(' ') + '\\n');\n",
);

/** A Node binary on this machine older than the CLI's minimum, if there is one (Debian's, say). */
function olderNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node', '/bin/node', '/usr/bin/nodejs']) {
    if (!existsSync(candidate)) continue;
    const version = execFileSync(candidate, ['--version'], { encoding: 'utf8' }).trim();
    const [major, minor] = version.slice(1).split('.').map(Number) as [number, number];
    if (
      major < CLI_NODE_MINIMUM.major ||
      (major === CLI_NODE_MINIMUM.major && minor < CLI_NODE_MINIMUM.minor)
    )
      return candidate;
  }
  return undefined;
}

test('on a supported Node the entry loads the bundle with the arguments it was given', async () => {
  const { stdout } = await execFileAsync(process.execPath, [join(dir, 'nodeherd.mjs'), 'status', '--help']);
  assert.equal(stdout, 'bundle ran: status --help\n');
});

const old = olderNode();
test('on an older Node the entry refuses in one clear line, before the bundle loads', {
  skip: old === undefined ? 'no Node older than the CLI minimum on this machine' : false,
}, async () => {
  const result = await execFileAsync(old!, [join(dir, 'nodeherd.mjs'), '--help']).then(
    () => assert.fail('the entry ran on an old Node'),
    (err: { code: number; stdout: string; stderr: string }) => err,
  );
  assert.equal(result.code, 1);
  assert.equal(result.stdout, '');
  assert.match(result.stderr, /^nodeherd: needs Node\.js 22\.19 or newer; \S+ is v\d+\.\d+\.\d+\n$/);
});

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { repositoryRoot } from '../../src/api/generated-files.ts';
import { buildVersion } from '../../src/util/build-info.ts';

const packageVersion = (
  JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8')) as { version: string }
).version;

test('the build version is package.json’s from a clone, and nodeherd --version prints it', async () => {
  assert.equal(buildVersion, packageVersion);
  const { stdout } = await promisify(execFile)(process.execPath, [
    join(repositoryRoot, 'bin/nodeherd.ts'),
    '--version',
  ]);
  assert.equal(stdout, `${packageVersion}\n`);
});

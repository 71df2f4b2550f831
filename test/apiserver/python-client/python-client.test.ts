// The official Kubernetes Python client (Debian's python3-kubernetes, run with /usr/bin/python3) as a
// second real client: scenarios.py drives list/watch, custom resources, patches, delete options,
// Events of both APIs, Leases and leader election against a fresh embedded API server, and reports
// one JSON line per scenario; each becomes a subtest here.

import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startLocalApiServer } from '../../support/local-apiserver.ts';

const PYTHON = '/usr/bin/python3';
const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'scenarios.py');

function pythonClientProblem(): string | undefined {
  try {
    execFileSync(PYTHON, ['-c', 'import kubernetes'], { stdio: 'pipe' });
    return undefined;
  } catch (err) {
    return `${PYTHON} cannot import kubernetes (install Debian's python3-kubernetes): ${String((err as Error).message).split('\n')[0]}`;
  }
}

interface ScenarioResult {
  name: string;
  status: 'pass' | 'fail' | 'skip';
  detail: string;
}

const problem = pythonClientProblem();

test('the official Python client against the embedded API server', { skip: problem ?? false }, async (t) => {
  const local = await startLocalApiServer();
  try {
    const output = await new Promise<string>((resolve, reject) => {
      execFile(
        PYTHON,
        [SCRIPT, local.kubeconfigPath],
        {
          timeout: 240_000,
          maxBuffer: 16 * 1024 * 1024,
          env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
        },
        (err, stdout, stderr) => {
          if (err && stdout.trim() === '') reject(new Error(`${err.message}\n${stderr}`));
          else resolve(stdout);
        },
      );
    });
    const results: ScenarioResult[] = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
    assert.ok(results.length >= 10, `every scenario reported:\n${output}`);
    for (const result of results) {
      await t.test(
        result.name.replaceAll('_', ' '),
        { skip: result.status === 'skip' ? result.detail : false },
        () => {
          assert.equal(result.status, 'pass', result.detail);
        },
      );
    }
  } finally {
    await local.stop();
  }
});

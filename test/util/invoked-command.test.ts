// Hints name the command the user runs: npm's in a checkout, kubectl's plugin, or the installed one.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { invokedCommand } from '../../src/util/invoked-command.ts';

test('a hint names the command as the user runs it', () => {
  assert.equal(invokedCommand('/home/u/nodeherd/bin/nodeherd.ts', undefined), 'npm run nodeherd --');
  assert.equal(invokedCommand('/usr/lib/node_modules/nodeherd/dist/bin/nodeherd.mjs', undefined), 'nodeherd');
  assert.equal(invokedCommand('/usr/local/bin/nodeherd', undefined), 'nodeherd');
  assert.equal(invokedCommand('/usr/local/bin/kubectl-nodeherd', undefined), 'kubectl nodeherd');
  assert.equal(invokedCommand('/x/dist/bin/kubectl_complete-nodeherd.mjs', undefined), 'kubectl nodeherd');
  // The checkout's kubectl plugin is a shell script that runs bin/nodeherd.ts and says so.
  assert.equal(invokedCommand('/home/u/nodeherd/bin/nodeherd.ts', 'kubectl nodeherd'), 'kubectl nodeherd');
  assert.equal(invokedCommand(undefined, undefined), 'nodeherd');
});

// Package actions reach the node's package executor only when it is the manager the config names; the
// index refresh of a manager is its own plan action (apt-update for apt).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { executeAction } from '../../../src/agent/apply/action-executor.ts';
import { MemoryFileExecutor } from '../../../src/agent/executors/memory-file-executor.ts';
import { SimulatedPackages } from '../../../src/agent/executors/simulated-packages.ts';
import { SimulatedSystemd } from '../../../src/agent/executors/simulated-systemd.ts';
import type { PackageManagerName } from '../../../src/api/packages/registry.ts';

function executors(packages: SimulatedPackages) {
  return { files: new MemoryFileExecutor(), systemd: new SimulatedSystemd(), packages };
}

test("the default manager's actions reach the node's package executor", async () => {
  const packages = new SimulatedPackages({ available: { htop: ['3.2'] } });
  await executeAction(
    { kind: 'apt-update', id: 'apt-update', reason: 'packages to install' },
    executors(packages),
  );
  await executeAction(
    { kind: 'install-package', id: 'install-package:htop', name: 'htop', manager: 'apt', reason: 'added' },
    executors(packages),
  );
  assert.deepEqual(
    packages.calls.map((c) => c.op),
    ['update', 'install'],
  );
  assert.deepEqual(packages.installed(), { htop: '3.2' });
});

test("a node refuses another manager's package actions, naming both", async () => {
  class OtherManager extends SimulatedPackages {
    override readonly manager = 'dnf' as PackageManagerName;
  }
  const packages = new OtherManager({ available: { htop: ['3.2'] } });
  for (const action of [
    { kind: 'install-package', id: 'install-package:htop', name: 'htop', reason: 'added' },
    { kind: 'apt-update', id: 'apt-update', reason: 'packages to install' },
  ] as const) {
    await assert.rejects(
      executeAction(action, executors(packages)),
      /this node's package manager is dnf; the config asks for apt/,
    );
  }
  assert.deepEqual(packages.calls, []);
});

test('a pinned install holds the package; a release and a removal let it go', async () => {
  const packages = new SimulatedPackages({ available: { htop: ['3.2', '3.3'], jq: ['1.7'] } });
  const run = (action: Parameters<typeof executeAction>[0]) => executeAction(action, executors(packages));
  await run({
    kind: 'install-package',
    id: 'install-package:htop',
    name: 'htop',
    version: '3.2',
    reason: 'added',
  });
  await run({ kind: 'install-package', id: 'install-package:jq', name: 'jq', reason: 'added' });
  assert.deepEqual(packages.held(), ['htop'], 'only the pinned one');
  await run({
    kind: 'release-package',
    id: 'release-package:htop',
    name: 'htop',
    reason: 'version unpinned',
  });
  assert.deepEqual(packages.held(), []);
  assert.deepEqual(packages.installed(), { htop: '3.2', jq: '1.7' }, 'a release leaves the package as it is');
  await run({
    kind: 'install-package',
    id: 'install-package:htop',
    name: 'htop',
    version: '3.3',
    reason: 'version',
  });
  await run({ kind: 'remove-package', id: 'remove-package:htop', name: 'htop', reason: 'state absent' });
  assert.deepEqual(packages.held(), []);
  assert.deepEqual(packages.installed(), { jq: '1.7' });
});

test('enable, start, stop and disable actions reach the systemd calls of the same name, in order', async () => {
  const systemd = new SimulatedSystemd();
  const own = { files: new MemoryFileExecutor(), systemd, packages: new SimulatedPackages() };
  const unit = '[Service]\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\n';
  await executeAction(
    { kind: 'write-unit', id: 'w', name: 'a.service', content: unit, reason: 'added' },
    own,
  );
  await executeAction({ kind: 'daemon-reload', id: 'daemon-reload', reason: 'unit added' }, own);
  const ops = () => systemd.calls.map((c) => c.op).slice(2);
  for (const kind of ['enable-unit', 'start-unit', 'stop-unit', 'disable-unit'] as const) {
    const effect = await executeAction(
      { kind, id: `${kind}:a.service`, name: 'a.service', reason: 'test' },
      own,
    );
    assert.equal(effect, undefined);
  }
  assert.deepEqual(ops(), ['enable', 'start', 'stop', 'disable']);
  assert.equal(await systemd.isActive('a.service'), false);
  assert.equal(await systemd.unitFileState('a.service'), 'disabled');
});

// The snapshot files of a simulated node (files.json, packages.json): a file that cannot be read back
// is an error naming it and what it holds, and writes made at the same time land in order, so the
// file ends with the newest state.

import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { MemoryFileExecutor } from '../../src/agent/executors/memory-file-executor.ts';
import { SimulatedPackages } from '../../src/agent/executors/simulated-packages.ts';
import { DurableNodeFiles } from '../../src/sim/durable-node-files.ts';
import { DurableNodePackages } from '../../src/sim/durable-node-packages.ts';

const dir = await mkdtemp(join(tmpdir(), 'nodeherd-node-snapshot-'));
after(() => rm(dir, { recursive: true, force: true }));

test('a snapshot that does not parse is an error naming the file and what it holds', async () => {
  const files = join(dir, 'torn-files.json');
  await writeFile(files, '[{"path":');
  await assert.rejects(DurableNodeFiles.restore(new MemoryFileExecutor(), files), (error: Error) =>
    error.message.startsWith(`cannot read the simulated node's files from ${files}: `),
  );
  const packages = join(dir, 'torn-packages.json');
  await writeFile(packages, '{"installed":');
  await assert.rejects(DurableNodePackages.restore(new SimulatedPackages(), packages), (error: Error) =>
    error.message.startsWith(`cannot read the simulated node's packages from ${packages}: `),
  );
  const shapeless = join(dir, 'shapeless-packages.json');
  await writeFile(shapeless, '{}');
  await assert.rejects(
    DurableNodePackages.restore(new SimulatedPackages(), shapeless),
    /cannot read the simulated node's packages from .*shapeless-packages\.json: /,
    'parsed but not a packages state: still named',
  );
});

test('writes started together land in order: the file ends with the newest state', async () => {
  const path = join(dir, 'files.json');
  const files = await DurableNodeFiles.restore(new MemoryFileExecutor(), path);
  await Promise.all(
    Array.from({ length: 20 }, (_, i) => files.write(`/etc/f${i}`, Buffer.from(String(i)), { mode: 0o644 })),
  );
  const stored = JSON.parse(await readFile(path, 'utf8')) as { path: string }[];
  assert.equal(stored.length, 20, 'every file is in the snapshot');

  const packagesPath = join(dir, 'node-b', 'packages.json'); // its directory is made on the first save
  const simulated = new SimulatedPackages({ available: { jq: ['1.6', '1.7'] } });
  const packages = await DurableNodePackages.restore(simulated, packagesPath);
  await Promise.all([simulated.install('jq', '1.6'), simulated.hold('jq')]);
  await packages.saved();
  const state = JSON.parse(await readFile(packagesPath, 'utf8'));
  assert.deepEqual(state, JSON.parse(JSON.stringify(simulated.state())));
  assert.deepEqual(state.installed, { jq: '1.6' });
});

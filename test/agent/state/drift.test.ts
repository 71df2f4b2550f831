import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { chmod, chown, mkdir, mkdtemp, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { LocalFileExecutor } from '../../../src/agent/executors/local-file-executor.ts';
import { detectDrift, type ExpectedFile } from '../../../src/agent/state/drift.ts';

let root: string;
let files: LocalFileExecutor;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'nodeherd-drift-'));
  files = new LocalFileExecutor(root);
  await mkdir(join(root, 'etc'));
  await writeFile(join(root, 'etc/passwd'), 'root:x:0:0::/:/bin/sh\nkubelet:x:1500:1500::/:/bin/false\n');
  await writeFile(join(root, 'etc/group'), 'root:x:0:\nkubelet:x:1500:\n');
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

// What the last applied revision wrote, applied through the executor as the agent would.
const applied: ExpectedFile[] = [
  {
    path: '/etc/kubelet/config.yaml',
    content: 'kind: KubeletConfiguration\n',
    mode: 0o600,
    owner: 'kubelet',
    group: 'kubelet',
  },
  { path: '/etc/sysctl.d/90-nodeherd.conf', sha256: sha256('vm.max_map_count=262144\n'), mode: 0o644 },
  { path: '/etc/motd', content: 'managed\n' },
];

async function applyAll(): Promise<void> {
  await files.write('/etc/kubelet/config.yaml', Buffer.from('kind: KubeletConfiguration\n'), {
    mode: 0o600,
    owner: 'kubelet',
    group: 'kubelet',
  });
  await files.write('/etc/sysctl.d/90-nodeherd.conf', Buffer.from('vm.max_map_count=262144\n'));
  await files.write('/etc/motd', Buffer.from('managed\n'));
}

test('no drift right after an apply', async () => {
  await applyAll();
  assert.deepEqual(await detectDrift(applied, files), []);
});

test('a deleted file is missing, and only that', async () => {
  await applyAll();
  await unlink(join(root, 'etc/motd'));
  assert.deepEqual(await detectDrift(applied, files), [
    { path: '/etc/motd', reason: 'missing', detail: 'file does not exist' },
  ]);
});

test('edited content, changed mode and changed owner are each reported', async () => {
  await applyAll();
  await writeFile(join(root, 'etc/sysctl.d/90-nodeherd.conf'), 'vm.max_map_count=1\n'); // keeps mode and owner
  await chmod(join(root, 'etc/kubelet/config.yaml'), 0o644);
  await chown(join(root, 'etc/kubelet/config.yaml'), 0, 1500);
  const drift = await detectDrift(applied, files);
  assert.deepEqual(
    drift.map(({ path, reason }) => [path, reason]),
    [
      ['/etc/kubelet/config.yaml', 'mode'],
      ['/etc/kubelet/config.yaml', 'owner'],
      ['/etc/sysctl.d/90-nodeherd.conf', 'content'],
    ],
  );
  assert.equal(drift[0]?.detail, 'mode 0644, expected 0600');
  assert.equal(drift[1]?.detail, 'owner 0:1500, expected 1500:1500');
  assert.match(drift[2]?.detail ?? '', /^sha256 [0-9a-f]{12}, expected [0-9a-f]{12}$/);
});

test('a file replaced by a symlink is content drift, even if the target has the right bytes', async () => {
  await applyAll();
  await writeFile(join(root, 'etc/motd.real'), 'managed\n');
  await unlink(join(root, 'etc/motd'));
  await symlink('motd.real', join(root, 'etc/motd'));
  assert.deepEqual(await detectDrift(applied, files), [
    { path: '/etc/motd', reason: 'content', detail: 'a symlink is where a file belongs' },
  ]);
});

test('an owner that no longer exists in /etc/passwd is owner drift with the reason', async () => {
  await applyAll();
  await writeFile(join(root, 'etc/passwd'), 'root:x:0:0::/:/bin/sh\n');
  const drift = await detectDrift(applied, files);
  assert.equal(drift.length, 1);
  assert.equal(drift[0]?.reason, 'owner');
  assert.match(drift[0]?.detail ?? '', /unknown user "kubelet"/);
});

test('without expected content only metadata is checked', async () => {
  await files.write('/etc/free.conf', Buffer.from('anything'), { mode: 0o640 });
  assert.deepEqual(await detectDrift([{ path: '/etc/free.conf', mode: 0o640 }], files), []);
  assert.deepEqual(
    (await detectDrift([{ path: '/etc/free.conf' }], files)).map((d) => d.reason),
    ['mode'],
    'the default expected mode is 0644, as FileExecutor.write uses',
  );
});

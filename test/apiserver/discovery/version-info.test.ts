import assert from 'node:assert/strict';
import { test } from 'node:test';
import { versionInfo } from '../../../src/apiserver/discovery/version-info.ts';

test('/version reports kube 1.32 with build metadata, and Go-style platform names', () => {
  const info = versionInfo({
    platform: 'linux',
    arch: 'x64',
    gitCommit: 'abc123',
    buildDate: '2026-01-01T00:00:00Z',
  });
  assert.equal(info.major, '1');
  assert.equal(info.minor, '32');
  assert.equal(info.gitVersion, 'v1.32.0+nodeherd');
  // kubectl and client-go parse gitVersion as semver; build metadata keeps it a release version.
  assert.match(info.gitVersion, /^v(\d+)\.(\d+)\.(\d+)\+[0-9A-Za-z.-]+$/);
  assert.equal(info.platform, 'linux/amd64');
  assert.equal(info.gitCommit, 'abc123');
  assert.equal(info.gitTreeState, 'clean');
  assert.equal(info.buildDate, '2026-01-01T00:00:00Z');
  assert.equal(versionInfo({ platform: 'darwin', arch: 'arm64' }).platform, 'darwin/arm64');
  assert.equal(versionInfo({ platform: 'win32', arch: 'ia32' }).platform, 'windows/386');
});

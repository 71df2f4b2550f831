import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  kubeletPin,
  kubeletSkewProblem,
  kubeletVersionMatches,
  kubeletVersionOfPackage,
  upstreamVersion,
} from '../../src/api/kubelet-version.ts';
import type { RenderedPackage } from '../../src/api/types.ts';

const pkg = (name: string, version?: string, state: 'present' | 'absent' = 'present') =>
  ({ name, state, ...(version !== undefined ? { version } : {}) }) as RenderedPackage;
const server = (minor: string, gitVersion = `v1.${minor}.0`) => ({ major: '1', minor, gitVersion });

test("a package version's upstream part is the kubelet's version (Debian, RPM, epoch)", () => {
  assert.equal(upstreamVersion('1.33.2-1.1'), '1.33.2');
  assert.equal(upstreamVersion('1.33.2-150500.1.1'), '1.33.2');
  assert.equal(upstreamVersion('1:1.33.2-1.1'), '1.33.2');
  assert.equal(upstreamVersion('1.33.2'), '1.33.2');
  assert.equal(kubeletVersionOfPackage('1.32.9-1.1'), 'v1.32.9');
});

test('the pin is the present kubelet package with a version; others pin nothing', () => {
  assert.deepEqual(kubeletPin({ packages: [pkg('htop', '3.2'), pkg('kubelet', '1.33.2-1.1')] }), {
    package: 'kubelet',
    version: '1.33.2-1.1',
    upstream: '1.33.2',
    minor: { major: 1, minor: 33 },
  });
  assert.equal(kubeletPin({ packages: [pkg('kubelet')] }), undefined, 'unpinned');
  assert.equal(kubeletPin({ packages: [pkg('kubelet', undefined, 'absent')] }), undefined, 'removed');
  assert.equal(kubeletPin({ packages: [pkg('kubeadm', '1.33.2-1.1')] }), undefined);
  assert.equal(kubeletPin(undefined), undefined);
  assert.equal(kubeletPin({ packages: [pkg('kubelet:arm64', '1.33.2-1.1')] })?.package, 'kubelet:arm64');
  assert.deepEqual(kubeletPin({ packages: [pkg('kubelet', '1.33.*')] })?.minor, { major: 1, minor: 33 });
  assert.equal(kubeletPin({ packages: [pkg('kubelet', '1.*')] })?.minor, undefined, 'no fixed minor');
});

test("the Node's kubeletVersion matches the pin on major.minor.patch, a provider's suffix aside", () => {
  const pin = kubeletPin({ packages: [pkg('kubelet', '1.33.2-1.1')] })!;
  assert.equal(kubeletVersionMatches(pin, 'v1.33.2'), true);
  assert.equal(kubeletVersionMatches(pin, 'v1.33.2-eks-1234abc'), true);
  assert.equal(kubeletVersionMatches(pin, 'v1.33.2+k3s1'), true);
  assert.equal(kubeletVersionMatches(pin, 'v1.33.1'), false);
  assert.equal(kubeletVersionMatches(pin, 'v1.33.20'), false);
  assert.equal(kubeletVersionMatches(pin, undefined), false);
  assert.equal(kubeletVersionMatches(pin, 'garbage'), false);
  const wildcard = kubeletPin({ packages: [pkg('kubelet', '1.33.*')] })!;
  assert.equal(kubeletVersionMatches(wildcard, 'v1.33.7'), true);
  assert.equal(kubeletVersionMatches(wildcard, 'v1.34.0'), false);
});

test('the version skew policy: never newer than the API server, at most three minors older (two below 1.25)', () => {
  const at = (version: string) => kubeletPin({ packages: [pkg('kubelet', version)] })!;
  assert.equal(kubeletSkewProblem(at('1.32.9-1.1'), server('32')), undefined, 'same minor');
  assert.equal(kubeletSkewProblem(at('1.29.0-1.1'), server('32')), undefined, 'three older');
  const newer = kubeletSkewProblem(at('1.33.5-1.1'), server('32', 'v1.32.0+nodeherd'));
  assert.equal(
    newer,
    "kubelet 1.33.5-1.1 (kubelet v1.33) is newer than the API server's v1.32.0+nodeherd: the version skew policy says a kubelet must not be newer than the API server; upgrade the control plane first",
  );
  assert.match(
    kubeletSkewProblem(at('1.28.0-1.1'), server('32')) ?? '',
    /4 minor versions older .* at most 3/,
  );
  assert.equal(kubeletSkewProblem(at('1.22.0-1.1'), server('24')), undefined, 'two older before 1.25');
  assert.match(kubeletSkewProblem(at('1.21.0-1.1'), server('24')) ?? '', /at most 2 minor versions older/);
  assert.match(kubeletSkewProblem(at('2.0.0-1.1'), server('32')) ?? '', /another major version/);
  assert.match(
    kubeletSkewProblem(at('1.34.0-1.1'), server('33+', 'v1.33.2-eks-1')) ?? '',
    /newer than the API server's v1\.33\.2-eks-1/,
  );
  assert.equal(kubeletSkewProblem(at('1.*'), server('32')), undefined, 'no minor to judge');
  assert.equal(
    kubeletSkewProblem(at('1.33.0-1.1'), { major: '', minor: '', gitVersion: 'unknown' }),
    undefined,
    'no server version to judge against',
  );
});

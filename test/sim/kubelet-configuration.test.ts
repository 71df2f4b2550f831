// The simulated kubelet's reading of its configuration, by kubelet's rules: which files it accepts,
// which it refuses and with what message, what it only warns about, and how drop-ins merge.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import {
  decodeKubeletConfiguration,
  type KubeletConfigFileReader,
  loadKubeletConfiguration,
  mergeKubeletConfigurations,
  parseGoDuration,
  validateKubeletConfiguration,
} from '../../src/sim/kubelet-configuration.ts';
import { KUBEADM_KUBELET_CONFIG } from '../../src/sim/simulated-node.ts';

const HEAD = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';

/** The error kubelet exits with for one drop-in on top of the defaults; undefined when it starts. */
function startWith(body: string): string | undefined {
  const decoded = decodeKubeletConfiguration(HEAD + body);
  if (!decoded.ok) return decoded.error;
  return validateKubeletConfiguration(mergeKubeletConfigurations([decoded.config]));
}

function files(contents: Record<string, string>): KubeletConfigFileReader {
  return {
    read: async (path) => contents[path],
    list: async (dir) => Object.keys(contents).filter((p) => p.startsWith(`${dir}/`)),
  };
}

describe('decoding', () => {
  test('a YAML error names the line', () => {
    const result = decodeKubeletConfiguration(`${HEAD}maxPods: [110\n`);
    assert.equal(result.ok, false);
    assert.match(!result.ok ? result.error : '', /^error converting YAML to JSON: yaml: line \d+: /);
  });

  for (const [name, text, expected] of [
    ['no kind', 'apiVersion: kubelet.config.k8s.io/v1beta1\nmaxPods: 1\n', /Object 'Kind' is missing/],
    ['no apiVersion', 'kind: KubeletConfiguration\nmaxPods: 99\n', /Object 'apiVersion' is missing/],
    [
      'an unknown version',
      'apiVersion: kubelet.config.k8s.io/v1\nkind: KubeletConfiguration\n',
      /no kind "KubeletConfiguration" is registered for version "kubelet.config.k8s.io\/v1"/,
    ],
    [
      'another kind',
      'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeProxyConfiguration\n',
      /no kind "KubeProxyConfiguration" is registered/,
    ],
    ['an empty file', '', /Object 'Kind' is missing/],
  ] as const) {
    test(`${name} is refused`, () => {
      const result = decodeKubeletConfiguration(text);
      assert.equal(result.ok, false);
      assert.match(!result.ok ? result.error : '', expected);
    });
  }

  for (const [body, expected] of [
    [
      'maxPods: "110"\n',
      /cannot unmarshal string into Go struct field KubeletConfiguration.maxPods of type int32/,
    ],
    ['maxPods: 1.5\n', /cannot unmarshal number 1.5 into Go struct field KubeletConfiguration.maxPods/],
    ['serializeImagePulls: "no"\n', /KubeletConfiguration.serializeImagePulls of type bool/],
    ['syncFrequency: 1 minute\n', /time: invalid duration "1 minute"/],
    ['evictionHard: 10%\n', /KubeletConfiguration.evictionHard of type map\[string\]string/],
  ] as const) {
    test(`a value of the wrong type is refused: ${body.trim()}`, () => {
      assert.match(startWith(body) ?? '', expected);
    });
  }

  test('an unknown or duplicated field is a warning (lenient decoding), not a failure', () => {
    const result = decodeKubeletConfiguration(`${HEAD}maxPod: 5\nmaxPods: 10\nmaxPods: 20\n`);
    assert.equal(result.ok, true);
    assert.deepEqual(result.ok && result.warnings, [
      'Using lenient decoding as strict decoding failed: strict decoding error: unknown field "maxPod", duplicate field "maxPods"',
    ]);
    assert.equal(result.ok && result.config.maxPods, 20, 'the last one wins');
  });

  test('Go durations', () => {
    assert.equal(parseGoDuration('1h30m'), 5_400_000);
    assert.equal(parseGoDuration('-2m0s'), -120_000);
    assert.equal(parseGoDuration('0'), 0);
    assert.equal(parseGoDuration('1.5s'), 1500);
    assert.equal(parseGoDuration('300us'), 0.3);
    assert.equal(parseGoDuration('10'), undefined);
    assert.equal(parseGoDuration(''), undefined);
    assert.equal(parseGoDuration('1d'), undefined);
  });
});

describe('validation (ValidateKubeletConfiguration, ParseThresholdConfig)', () => {
  const cases: [string, string | RegExp | undefined][] = [
    ['maxPods: 110\n', undefined],
    ['maxPods: 0\n', undefined],
    ['maxPods: -1\n', /invalid configuration: maxPods \(--max-pods\) -1 must not be a negative number/],
    ['port: 0\n', /port \(--port\) 0 must be between 1 and 65535, inclusive/],
    ['port: 65536\n', /port \(--port\) 65536 must be between 1 and 65535/],
    ['healthzPort: 0\n', undefined],
    ['healthzPort: 70000\n', /healthzPort \(--healthz-port\) 70000 must be between 1 and 65535/],
    ['readOnlyPort: 10255\n', undefined],
    [
      'imageGCHighThresholdPercent: 101\n',
      /imageGCHighThresholdPercent \(--image-gc-high-threshold\) 101 must be between 0 and 100/,
    ],
    // The default low threshold is 80: a high threshold below it fails.
    [
      'imageGCHighThresholdPercent: 50\n',
      /imageGCLowThresholdPercent \(--image-gc-low-threshold\) 80 must be less than imageGCHighThresholdPercent \(--image-gc-high-threshold\) 50/,
    ],
    ['imageGCHighThresholdPercent: 50\nimageGCLowThresholdPercent: 40\n', undefined],
    ['imageMinimumGCAge: -1m\n', /imageMinimumGCAge -1m must not be negative/],
    ['imageMaximumGCAge: 1m\n', /imageMaximumGCAge 1m must be greater than imageMinimumGCAge 2m0s/],
    ['nodeLeaseDurationSeconds: 0\n', /nodeLeaseDurationSeconds must be greater than 0/],
    ['oomScoreAdj: -1001\n', /oomScoreAdj \(--oom-score-adj\) -1001 must be between -1000 and 1000/],
    ['iptablesDropBit: 32\n', /iptablesDropBit \(--iptables-drop-bit\) 32 must be between 0 and 31/],
    ['kubeAPIQPS: -5\n', /kubeAPIQPS \(--kube-api-qps\) -5 must not be a negative number/],
    ['maxParallelImagePulls: 0\n', /maxParallelImagePulls 0 must be a positive number/],
    [
      'maxParallelImagePulls: 5\n',
      /maxParallelImagePulls cannot be larger than 1 unless SerializeImagePulls/,
    ],
    ['maxParallelImagePulls: 5\nserializeImagePulls: false\n', undefined],
    [
      'topologyManagerPolicy: fastest\n',
      /topologyManagerPolicy \(--topology-manager-policy\) "fastest" must be one of/,
    ],
    ['hairpinMode: sideways\n', /option "sideways" specified for hairpinMode/],
    ['containerLogMaxFiles: 1\n', /containerLogMaxFiles must be greater than 1/],
    [
      'containerLogMonitorInterval: 1s\n',
      /containerLogMonitorInterval must be a positive time duration greater than or equal to 3s/,
    ],
    [
      'memoryThrottlingFactor: 1.5\n',
      /memoryThrottlingFactor 1.5 must be greater than 0 and less than or equal to 1.0/,
    ],
    ['systemCgroups: /system.slice\n', /systemCgroups \(--system-cgroups\) was specified and cgroupRoot/],
    ['evictionHard:\n  memory.available: 200Mi\n  nodefs.available: 10%\n', undefined],
    [
      'evictionHard:\n  nodefs.available: 150%\n',
      /failed to run Kubelet: eviction percentage threshold nodefs.available must be <= 100%: 150%/,
    ],
    [
      'evictionHard:\n  nodefs.available: -5%\n',
      /eviction percentage threshold nodefs.available must be >= 0%: -5%/,
    ],
    ['evictionHard:\n  nodefs.available: 100%\n', undefined],
    ['evictionHard:\n  memory.available: 0\n', /eviction threshold memory.available must be positive: 0/],
    ['evictionHard:\n  memory.free: 1Gi\n', /unsupported eviction signal memory.free/],
    ['evictionSoft:\n  memory.available: lots\n', /quantities must match the regular expression/],
    // cgroupDriver is not checked by kubelet's validation (see kubelet-configuration.ts).
    ['cgroupDriver: cgroupfs\n', undefined],
  ];
  for (const [body, expected] of cases) {
    test(`${body.replaceAll('\n', ' ').trim()} → ${expected ?? 'starts'}`, () => {
      const error = startWith(body);
      if (expected === undefined) assert.equal(error, undefined);
      else assert.match(error ?? '(started)', expected as RegExp);
    });
  }

  test('every problem is reported at once, as utilerrors.NewAggregate joins them', () => {
    assert.equal(
      startWith('maxPods: -1\nport: 0\n'),
      'failed to validate kubelet configuration, error: [invalid configuration: maxPods (--max-pods) -1 must not be a negative number, invalid configuration: port (--port) 0 must be between 1 and 65535, inclusive]',
    );
  });
});

describe('loading: --config, then --config-dir in lexical order', () => {
  test('kubeadm config plus a drop-in: the drop-in wins, later drop-ins win over earlier ones', async () => {
    const outcome = await loadKubeletConfiguration(
      { configFile: '/var/lib/kubelet/config.yaml', configDir: '/etc/kubernetes/kubelet.conf.d' },
      files({
        '/var/lib/kubelet/config.yaml': KUBEADM_KUBELET_CONFIG,
        '/etc/kubernetes/kubelet.conf.d/50-nodeherd.conf': `${HEAD}maxPods: 50\n`,
        '/etc/kubernetes/kubelet.conf.d/60-later.conf': `${HEAD}maxPods: 60\nevictionHard: null\n`,
        '/etc/kubernetes/kubelet.conf.d/README': 'not a .conf file: ignored',
      }),
    );
    assert.equal(outcome.error, undefined);
    assert.equal(outcome.config?.maxPods, 60);
    assert.equal(outcome.config?.cgroupDriver, 'systemd');
    assert.equal(outcome.config?.evictionHard, undefined, 'null removes a field (merge patch)');
  });

  test('a bad drop-in names its path; a bad value names the field', async () => {
    const dir = '/etc/kubernetes/kubelet.conf.d';
    const broken = await loadKubeletConfiguration(
      { configDir: dir },
      files({ [`${dir}/50-nodeherd.conf`]: 'kind: KubeletConfiguration\nmaxPods: 99\n' }),
    );
    assert.match(
      broken.error ?? '',
      /^failed to merge kubelet configs: failed to load kubelet dropin file, path: \/etc\/kubernetes\/kubelet.conf.d\/50-nodeherd.conf, error: Object 'apiVersion' is missing/,
    );
    const negative = await loadKubeletConfiguration(
      { configDir: dir },
      files({ [`${dir}/50-nodeherd.conf`]: `${HEAD}maxPods: -1\n` }),
    );
    assert.match(negative.error ?? '', /maxPods \(--max-pods\) -1 must not be a negative number/);
  });

  test('a missing --config file stops kubelet; a missing --config-dir is an empty one', async () => {
    const missing = await loadKubeletConfiguration({ configFile: '/var/lib/kubelet/config.yaml' }, files({}));
    assert.match(missing.error ?? '', /open \/var\/lib\/kubelet\/config.yaml: no such file or directory/);
    const noDir = await loadKubeletConfiguration({ configDir: '/etc/kubernetes/kubelet.conf.d' }, files({}));
    assert.equal(noDir.error, undefined);
  });

  test('an unknown field in the --config file is logged, and kubelet starts', async () => {
    const outcome = await loadKubeletConfiguration(
      { configFile: '/c.yaml' },
      files({ '/c.yaml': `${HEAD}maxpods: -1\n` }),
    );
    assert.equal(outcome.error, undefined);
    assert.match(outcome.warnings.join('\n'), /unknown field "maxpods"/);
  });
});

/** The KubeletConfiguration documents a NodeConfig file of the repository writes. */
function kubeletConfigsOf(source: string): { path: string; data: string }[] {
  const text = readFileSync(new URL(`../../${source}`, import.meta.url), 'utf8');
  const found: { path: string; data: string }[] = [];
  for (const document of parseAllDocuments(text)) {
    const object = document.toJS() as {
      spec?: { files?: { path: string; content: { inline?: { data?: string } } }[] };
    };
    for (const file of object.spec?.files ?? []) {
      const data = file.content.inline?.data;
      if (data?.includes('kind: KubeletConfiguration')) found.push({ path: file.path, data });
    }
  }
  return found;
}

test("the sample's kubelet configuration starts the simulated kubelet; the break-it example's does not", () => {
  const sample = kubeletConfigsOf('deploy/samples/nodeconfig.yaml');
  assert.equal(sample.length, 1);
  assert.equal(startWith(sample[0]!.data.replace(HEAD, '')), undefined);
  const broken = kubeletConfigsOf('examples/break-it/nodeconfig-bad-max-pods.yaml');
  assert.equal(broken.length, 1);
  assert.equal(broken[0]!.path, sample[0]!.path);
  assert.match(
    startWith(broken[0]!.data.replace(HEAD, '')) ?? '',
    /invalid configuration: maxPods \(--max-pods\) -1 must not be a negative number/,
  );
});

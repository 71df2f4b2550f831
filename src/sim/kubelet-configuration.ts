// What a simulated kubelet makes of its configuration files, by the real kubelet's rules, so a bad
// setting fails the way it fails on a real node: the kubelet exits at startup with an error naming the
// field, and the Node goes NotReady. Pure: the caller reads the files.
//
// The order and the wording follow kubelet (k8s.io/kubernetes):
//   - cmd/kubelet/app/server.go: load --config ("failed to load kubelet config file, path: …"), merge the
//     .conf files of --config-dir in lexical order as JSON merge patches ("failed to merge kubelet
//     configs: failed to load kubelet dropin file, path: …"), then validate the result ("failed to
//     validate kubelet configuration, error: invalid configuration: …").
//   - pkg/kubelet/kubeletconfig/util/codec/codec.go, DecodeKubeletConfiguration: strict decoding first;
//     on a strict error only (an unknown or duplicated field) it decodes leniently and logs "Using
//     lenient decoding as strict decoding failed": for v1beta1 an unknown field is a warning, not a
//     failure. A wrong apiVersion or kind, a YAML error, a value of the wrong type are failures.
//   - pkg/kubelet/apis/config/validation/validation.go, ValidateKubeletConfiguration: the range checks
//     below, with kubelet's messages, on the configuration after defaulting (v1beta1 defaults), so
//     imageGCHighThresholdPercent: 50 fails against the default low threshold of 80.
//   - pkg/kubelet/eviction/helpers.go, ParseThresholdConfig (run after validation): eviction signals and
//     thresholds (percentages 0–100%, quantities positive).
// Not simulated: feature gates, cgroupDriver (a value other than systemd is taken as cgroupfs by the
// container manager, and kubelet ≥ 1.31 takes the driver from the container runtime), and fields
// nested inside objects (authentication, logging, …), which are accepted as they are.

import { parseDocument } from 'yaml';
import { parseQuantity } from '../apiserver/cel/library-quantity.ts';
import { KUBE_YAML } from '../util/kube-yaml.ts';

export const KUBELET_CONFIG_API_VERSION = 'kubelet.config.k8s.io/v1beta1';
export const KUBELET_CONFIG_KIND = 'KubeletConfiguration';
/** Only files with this extension in --config-dir are read (kubelet's dropinFileExtension). */
export const KUBELET_DROP_IN_EXTENSION = '.conf';

type FieldType = 'int32' | 'int64' | 'bool' | 'string' | 'duration' | 'float' | 'map' | 'list' | 'object';

/** The v1beta1 fields nodeherd's users touch most, with their Go types. Others are known as 'object'. */
const FIELD_TYPES: Record<string, FieldType> = {
  enableServer: 'bool',
  staticPodPath: 'string',
  syncFrequency: 'duration',
  fileCheckFrequency: 'duration',
  httpCheckFrequency: 'duration',
  address: 'string',
  port: 'int32',
  readOnlyPort: 'int32',
  healthzPort: 'int32',
  healthzBindAddress: 'string',
  registryPullQPS: 'int32',
  registryBurst: 'int32',
  eventRecordQPS: 'int32',
  eventBurst: 'int32',
  oomScoreAdj: 'int32',
  clusterDomain: 'string',
  clusterDNS: 'list',
  streamingConnectionIdleTimeout: 'duration',
  nodeStatusUpdateFrequency: 'duration',
  nodeStatusReportFrequency: 'duration',
  nodeLeaseDurationSeconds: 'int32',
  imageMinimumGCAge: 'duration',
  imageMaximumGCAge: 'duration',
  imageGCHighThresholdPercent: 'int32',
  imageGCLowThresholdPercent: 'int32',
  volumeStatsAggPeriod: 'duration',
  cgroupsPerQOS: 'bool',
  cgroupDriver: 'string',
  cgroupRoot: 'string',
  systemCgroups: 'string',
  runtimeRequestTimeout: 'duration',
  hairpinMode: 'string',
  maxPods: 'int32',
  podPidsLimit: 'int64',
  podsPerCore: 'int32',
  resolvConf: 'string',
  cpuCFSQuota: 'bool',
  cpuCFSQuotaPeriod: 'duration',
  maxOpenFiles: 'int64',
  kubeAPIQPS: 'int32',
  kubeAPIBurst: 'int32',
  serializeImagePulls: 'bool',
  maxParallelImagePulls: 'int32',
  evictionHard: 'map',
  evictionSoft: 'map',
  evictionSoftGracePeriod: 'map',
  evictionPressureTransitionPeriod: 'duration',
  evictionMaxPodGracePeriod: 'int32',
  evictionMinimumReclaim: 'map',
  iptablesMasqueradeBit: 'int32',
  iptablesDropBit: 'int32',
  featureGates: 'map',
  failSwapOn: 'bool',
  containerLogMaxSize: 'string',
  containerLogMaxFiles: 'int32',
  containerLogMaxWorkers: 'int32',
  containerLogMonitorInterval: 'duration',
  systemReserved: 'map',
  kubeReserved: 'map',
  enforceNodeAllocatable: 'list',
  shutdownGracePeriod: 'duration',
  shutdownGracePeriodCriticalPods: 'duration',
  nodeStatusMaxImages: 'int32',
  topologyManagerPolicy: 'string',
  topologyManagerScope: 'string',
  rotateCertificates: 'bool',
  serverTLSBootstrap: 'bool',
  registerNode: 'bool',
  registerWithTaints: 'list',
  containerRuntimeEndpoint: 'string',
  imageServiceEndpoint: 'string',
  podLogsDir: 'string',
  memoryThrottlingFactor: 'float',
  // Accepted as they are (nested objects and lists this simulation does not look into).
  authentication: 'object',
  authorization: 'object',
  logging: 'object',
  tracing: 'object',
  memorySwap: 'object',
  reservedMemory: 'list',
  shutdownGracePeriodByPodPriority: 'list',
  allowedUnsafeSysctls: 'list',
  tlsCipherSuites: 'list',
  tlsMinVersion: 'string',
  tlsCertFile: 'string',
  tlsPrivateKeyFile: 'string',
  providerID: 'string',
  kubeletCgroups: 'string',
  systemReservedCgroup: 'string',
  kubeReservedCgroup: 'string',
  reservedSystemCPUs: 'string',
  cpuManagerPolicy: 'string',
  cpuManagerPolicyOptions: 'map',
  cpuManagerReconcilePeriod: 'duration',
  memoryManagerPolicy: 'string',
  enableControllerAttachDetach: 'bool',
  makeIPTablesUtilChains: 'bool',
  enableDebuggingHandlers: 'bool',
  enableProfilingHandler: 'bool',
  enableContentionProfiling: 'bool',
  enableSystemLogHandler: 'bool',
  enableSystemLogQuery: 'bool',
  localStorageCapacityIsolation: 'bool',
  seccompDefault: 'bool',
  protectKernelDefaults: 'bool',
  kernelMemcgNotification: 'bool',
  configMapAndSecretChangeDetectionStrategy: 'string',
  contentType: 'string',
  staticPodURL: 'string',
  staticPodURLHeader: 'map',
  podCIDR: 'string',
  runOnce: 'bool',
  volumePluginDir: 'string',
  imageMinimumGCAgeSeconds: 'int32',
};

/** v1beta1 defaults (pkg/kubelet/apis/config/v1beta1/defaults.go) of the validated fields. */
const DEFAULTS: Record<string, unknown> = {
  port: 10250,
  readOnlyPort: 0,
  healthzPort: 10248,
  registryPullQPS: 5,
  registryBurst: 10,
  eventRecordQPS: 50,
  eventBurst: 100,
  oomScoreAdj: -999,
  nodeLeaseDurationSeconds: 40,
  imageMinimumGCAge: '2m0s',
  imageMaximumGCAge: '0s',
  imageGCHighThresholdPercent: 85,
  imageGCLowThresholdPercent: 80,
  hairpinMode: 'promiscuous-bridge',
  maxPods: 110,
  podsPerCore: 0,
  maxOpenFiles: 1_000_000,
  kubeAPIQPS: 50,
  kubeAPIBurst: 100,
  serializeImagePulls: true,
  iptablesMasqueradeBit: 14,
  iptablesDropBit: 15,
  containerLogMaxFiles: 5,
  containerLogMaxWorkers: 1,
  containerLogMonitorInterval: '10s',
  nodeStatusMaxImages: 50,
  topologyManagerPolicy: 'none',
  topologyManagerScope: 'container',
  shutdownGracePeriod: '0s',
  shutdownGracePeriodCriticalPods: '0s',
  evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '10%', 'imagefs.available': '15%' },
  containerRuntimeEndpoint: 'unix:///run/containerd/containerd.sock',
  podLogsDir: '/var/log/pods',
  runOnce: false,
};

/** Eviction signals kubelet knows on Linux (pkg/kubelet/eviction/api/types.go). */
const EVICTION_SIGNALS = new Set([
  'memory.available',
  'allocatableMemory.available',
  'nodefs.available',
  'nodefs.inodesFree',
  'imagefs.available',
  'imagefs.inodesFree',
  'containerfs.available',
  'containerfs.inodesFree',
  'pid.available',
]);

export type KubeletConfigDocument = Record<string, unknown>;

/** A decoded file, or why kubelet refuses it; warnings are what kubelet logs and carries on after. */
export type DecodeResult =
  | { ok: true; config: KubeletConfigDocument; warnings: string[] }
  | { ok: false; error: string };

/** Decodes one KubeletConfiguration file (the --config file or a drop-in) as kubelet's codec does. */
export function decodeKubeletConfiguration(text: string): DecodeResult {
  const document = parseDocument(text, { ...KUBE_YAML, uniqueKeys: false, prettyErrors: false });
  if (document.errors.length > 0) {
    const error = document.errors[0]!;
    const line = text.slice(0, error.pos[0]).split('\n').length;
    return {
      ok: false,
      error: `error converting YAML to JSON: yaml: line ${line}: ${firstLine(error.message)}`,
    };
  }
  const value: unknown = document.toJS();
  if (value === null || value === undefined || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, error: `Object 'Kind' is missing in '${text.trim()}'` };
  }
  const object = value as KubeletConfigDocument;
  if (typeof object.kind !== 'string' || object.kind === '') {
    return { ok: false, error: `Object 'Kind' is missing in '${oneLine(text)}'` };
  }
  if (typeof object.apiVersion !== 'string' || object.apiVersion === '') {
    return { ok: false, error: `Object 'apiVersion' is missing in '${oneLine(text)}'` };
  }
  if (object.apiVersion !== KUBELET_CONFIG_API_VERSION || object.kind !== KUBELET_CONFIG_KIND) {
    return {
      ok: false,
      error: `no kind "${object.kind}" is registered for version "${object.apiVersion}" in scheme "pkg/kubelet/apis/config/scheme/scheme.go:32"`,
    };
  }
  const warnings: string[] = [];
  const unknown: string[] = [];
  const config: KubeletConfigDocument = {};
  for (const [field, fieldValue] of Object.entries(object)) {
    if (field === 'apiVersion' || field === 'kind') continue;
    const type = FIELD_TYPES[field];
    if (type === undefined) {
      unknown.push(field);
      continue;
    }
    const problem = typeProblem(field, type, fieldValue);
    if (problem) return { ok: false, error: problem };
    config[field] = fieldValue;
  }
  const duplicates = duplicateKeys(document.contents);
  if (unknown.length > 0 || duplicates.length > 0) {
    const reasons = [
      ...unknown.map((f) => `unknown field "${f}"`),
      ...duplicates.map((f) => `duplicate field "${f}"`),
    ];
    warnings.push(
      `Using lenient decoding as strict decoding failed: strict decoding error: ${reasons.join(', ')}`,
    );
  }
  return { ok: true, config, warnings };
}

/** A field path and a value of the wrong Go type: the JSON decoder's error. */
function typeProblem(field: string, type: FieldType, value: unknown): string | undefined {
  if (value === null) return undefined;
  const wrong = (goType: string) =>
    `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsonKind(value)} into Go struct field KubeletConfiguration.${field} of type ${goType}`;
  switch (type) {
    case 'int32':
    case 'int64':
      if (typeof value !== 'number' || !Number.isInteger(value)) return wrong(type);
      if (type === 'int32' && (value < -(2 ** 31) || value >= 2 ** 31)) return wrong(type);
      return undefined;
    case 'float':
      return typeof value === 'number' ? undefined : wrong('float64');
    case 'bool':
      return typeof value === 'boolean' ? undefined : wrong('bool');
    case 'string':
      return typeof value === 'string' ? undefined : wrong('string');
    case 'duration':
      if (typeof value !== 'string') return wrong('v1.Duration');
      return parseGoDuration(value) === undefined
        ? `error unmarshaling JSON: while decoding JSON: time: invalid duration "${value}"`
        : undefined;
    case 'map':
      return typeof value === 'object' && !Array.isArray(value) ? undefined : wrong('map[string]string');
    case 'list':
      return Array.isArray(value) ? undefined : wrong('[]string');
    case 'object':
      return typeof value === 'object' && !Array.isArray(value) ? undefined : wrong('struct');
  }
}

function jsonKind(value: unknown): string {
  if (typeof value === 'number') return Number.isInteger(value) ? 'number' : `number ${value}`;
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}

/**
 * The configuration kubelet would run with: defaults, then the --config file, then each drop-in
 * (already in lexical order) as a JSON merge patch (RFC 7386), as mergeKubeletConfigurations does.
 */
export function mergeKubeletConfigurations(documents: KubeletConfigDocument[]): KubeletConfigDocument {
  let merged: KubeletConfigDocument = structuredClone(DEFAULTS);
  for (const document of documents) merged = mergePatch(merged, document) as KubeletConfigDocument;
  return merged;
}

function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const result: Record<string, unknown> =
    target !== null && typeof target === 'object' && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/**
 * kubelet's checks of a merged configuration: ValidateKubeletConfiguration's range checks (its messages,
 * all of them, joined as utilerrors.NewAggregate does), then the eviction thresholds.
 */
export function validateKubeletConfiguration(config: KubeletConfigDocument): string | undefined {
  const errors: string[] = [];
  const int = (field: string) => (typeof config[field] === 'number' ? (config[field] as number) : 0);
  const invalid = (message: string) => errors.push(`invalid configuration: ${message}`);
  const isPort = (n: number) => n >= 1 && n <= 65535;
  const inRange = (n: number, low: number, high: number) => n >= low && n <= high;

  if (int('nodeLeaseDurationSeconds') <= 0) invalid('nodeLeaseDurationSeconds must be greater than 0');
  if (config.systemCgroups && !config.cgroupRoot) {
    invalid(
      'systemCgroups (--system-cgroups) was specified and cgroupRoot (--cgroup-root) was not specified',
    );
  }
  const notNegative: [string, string][] = [
    ['eventBurst', '--event-burst'],
    ['eventRecordQPS', '--event-qps'],
    ['kubeAPIBurst', '--kube-api-burst'],
    ['kubeAPIQPS', '--kube-api-qps'],
    ['maxOpenFiles', '--max-open-files'],
    ['maxPods', '--max-pods'],
    ['podsPerCore', '--pods-per-core'],
    ['registryBurst', '--registry-burst'],
    ['registryPullQPS', '--registry-qps'],
  ];
  const healthzPort = int('healthzPort');
  if (healthzPort !== 0 && !isPort(healthzPort)) {
    invalid(`healthzPort (--healthz-port) ${healthzPort} must be between 1 and 65535, inclusive`);
  }
  const high = int('imageGCHighThresholdPercent');
  const low = int('imageGCLowThresholdPercent');
  if (!inRange(high, 0, 100)) {
    invalid(
      `imageGCHighThresholdPercent (--image-gc-high-threshold) ${high} must be between 0 and 100, inclusive`,
    );
  }
  if (!inRange(low, 0, 100)) {
    invalid(
      `imageGCLowThresholdPercent (--image-gc-low-threshold) ${low} must be between 0 and 100, inclusive`,
    );
  }
  if (low >= high) {
    invalid(
      `imageGCLowThresholdPercent (--image-gc-low-threshold) ${low} must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) ${high}`,
    );
  }
  const minimumAge = durationOf(config.imageMinimumGCAge);
  const maximumAge = durationOf(config.imageMaximumGCAge);
  if (minimumAge < 0) invalid(`imageMinimumGCAge ${config.imageMinimumGCAge} must not be negative`);
  if (maximumAge < 0) invalid(`imageMaximumGCAge ${config.imageMaximumGCAge} must not be negative`);
  if (maximumAge > 0 && maximumAge <= minimumAge) {
    invalid(
      `imageMaximumGCAge ${config.imageMaximumGCAge} must be greater than imageMinimumGCAge ${config.imageMinimumGCAge}`,
    );
  }
  for (const field of ['iptablesDropBit', 'iptablesMasqueradeBit']) {
    const flag = field === 'iptablesDropBit' ? '--iptables-drop-bit' : '--iptables-masquerade-bit';
    if (!inRange(int(field), 0, 31))
      invalid(`${field} (${flag}) ${int(field)} must be between 0 and 31, inclusive`);
  }
  if (int('nodeStatusMaxImages') < -1) {
    invalid(
      `nodeStatusMaxImages (--node-status-max-images) ${int('nodeStatusMaxImages')} must be -1 or greater`,
    );
  }
  for (const [field, flag] of notNegative) {
    if (int(field) < 0) invalid(`${field} (${flag}) ${int(field)} must not be a negative number`);
  }
  if (!inRange(int('oomScoreAdj'), -1000, 1000)) {
    invalid(`oomScoreAdj (--oom-score-adj) ${int('oomScoreAdj')} must be between -1000 and 1000, inclusive`);
  }
  if (!isPort(int('port'))) invalid(`port (--port) ${int('port')} must be between 1 and 65535, inclusive`);
  const readOnlyPort = int('readOnlyPort');
  if (readOnlyPort !== 0 && !isPort(readOnlyPort)) {
    invalid(`readOnlyPort (--read-only-port) ${readOnlyPort} must be between 0 and 65535, inclusive`);
  }
  const parallelPulls = config.maxParallelImagePulls;
  if (typeof parallelPulls === 'number') {
    if (parallelPulls < 1) invalid(`maxParallelImagePulls ${parallelPulls} must be a positive number`);
    if (config.serializeImagePulls === true && parallelPulls > 1) {
      invalid(
        'maxParallelImagePulls cannot be larger than 1 unless SerializeImagePulls (--serialize-image-pulls) is set to false',
      );
    }
  }
  if (config.runOnce === true) {
    invalid('runOnce (--runOnce) true, Runonce mode has been deprecated and should not be set');
  }
  const policies = ['none', 'best-effort', 'restricted', 'single-numa-node'];
  if (!policies.includes(String(config.topologyManagerPolicy))) {
    invalid(
      `topologyManagerPolicy (--topology-manager-policy) "${config.topologyManagerPolicy}" must be one of: ["${policies.join('" "')}"]`,
    );
  }
  if (!['container', 'pod'].includes(String(config.topologyManagerScope))) {
    invalid(
      `topologyManagerScope (--topology-manager-scope) "${config.topologyManagerScope}" must be one of: "container", or "pod"`,
    );
  }
  const hairpin = ['none', 'hairpin-veth', 'promiscuous-bridge'];
  if (!hairpin.includes(String(config.hairpinMode))) {
    invalid(
      `option "${config.hairpinMode}" specified for hairpinMode (--hairpin-mode). Valid options are "none", "hairpin-veth" or "promiscuous-bridge"`,
    );
  }
  const throttling = config.memoryThrottlingFactor;
  if (typeof throttling === 'number' && (throttling <= 0 || throttling > 1)) {
    invalid(`memoryThrottlingFactor ${throttling} must be greater than 0 and less than or equal to 1.0`);
  }
  if (!config.containerRuntimeEndpoint) invalid('the containerRuntimeEndpoint was not specified or empty');
  if (int('containerLogMaxWorkers') < 1) invalid('containerLogMaxWorkers must be greater than or equal to 1');
  if (durationOf(config.containerLogMonitorInterval) < 3_000) {
    invalid('containerLogMonitorInterval must be a positive time duration greater than or equal to 3s');
  }
  if (int('containerLogMaxFiles') <= 1) invalid('containerLogMaxFiles must be greater than 1');
  if (errors.length === 1) return `failed to validate kubelet configuration, error: ${errors[0]}`;
  if (errors.length > 1) return `failed to validate kubelet configuration, error: [${errors.join(', ')}]`;

  for (const field of ['evictionHard', 'evictionSoft']) {
    const thresholds = config[field];
    if (thresholds === undefined || thresholds === null) continue;
    for (const [signal, value] of Object.entries(thresholds as Record<string, unknown>)) {
      const problem = evictionThresholdProblem(signal, String(value));
      if (problem) return `failed to run Kubelet: ${problem}`;
    }
  }
  return undefined;
}

/** parseThresholdStatement (pkg/kubelet/eviction/helpers.go). */
function evictionThresholdProblem(signal: string, value: string): string | undefined {
  if (!EVICTION_SIGNALS.has(signal)) return `unsupported eviction signal ${signal}`;
  if (value.endsWith('%')) {
    if (value === '0%' || value === '100%') return undefined;
    const percentage = Number(value.slice(0, -1));
    if (value.slice(0, -1).trim() === '' || Number.isNaN(percentage)) {
      return `invalid percentage: strconv.ParseFloat: parsing "${value.slice(0, -1)}": invalid syntax`;
    }
    if (percentage < 0) return `eviction percentage threshold ${signal} must be >= 0%: ${value}`;
    if (percentage > 100) return `eviction percentage threshold ${signal} must be <= 100%: ${value}`;
    return undefined;
  }
  const quantity = parseQuantity(value);
  if (!quantity)
    return "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  if (quantity.num <= 0n) return `eviction threshold ${signal} must be positive: ${value}`;
  return undefined;
}

const GO_DURATION_UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Go's time.ParseDuration, in milliseconds; undefined when Go would refuse the text. */
export function parseGoDuration(text: string): number | undefined {
  const match = /^([-+]?)(.*)$/s.exec(text)!;
  const body = match[2]!;
  if (body === '0') return 0;
  if (body === '' || !/^(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/.test(body)) return undefined;
  let total = 0;
  for (const part of body.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) {
    total += Number(part[1]) * GO_DURATION_UNITS[part[2]!]!;
  }
  return match[1] === '-' ? -total : total;
}

function durationOf(value: unknown): number {
  return typeof value === 'string' ? (parseGoDuration(value) ?? 0) : 0;
}

/** Keys that appear twice in a mapping (strict decoding refuses them; lenient takes the last). */
function duplicateKeys(contents: unknown): string[] {
  const items = (contents as { items?: { key?: { value?: unknown } }[] } | null)?.items ?? [];
  const seen = new Set<string>();
  const duplicates: string[] = [];
  for (const item of items) {
    const key = String(item.key?.value);
    if (seen.has(key)) duplicates.push(key);
    seen.add(key);
  }
  return duplicates;
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}

function oneLine(text: string): string {
  return text.trim().replaceAll('\n', '\\n');
}

/** Reads the node's files the way kubelet does: one file, or the files of a directory. */
export interface KubeletConfigFileReader {
  /** The file's text; undefined when it does not exist. */
  read(path: string): Promise<string | undefined>;
  /** Every file below `dir` (any depth), full paths. */
  list(dir: string): Promise<string[]>;
}

export interface KubeletConfigSources {
  /** --config */
  configFile?: string;
  /** --config-dir */
  configDir?: string;
}

export interface KubeletConfigOutcome {
  /** Why kubelet exits at startup; undefined when it starts. */
  error: string | undefined;
  /** What kubelet logs and carries on after. */
  warnings: string[];
  /** The configuration kubelet runs with (when it starts). */
  config: KubeletConfigDocument | undefined;
}

/** kubelet's startup, as far as its configuration goes: load, merge, validate. */
export async function loadKubeletConfiguration(
  sources: KubeletConfigSources,
  files: KubeletConfigFileReader,
): Promise<KubeletConfigOutcome> {
  const warnings: string[] = [];
  const documents: KubeletConfigDocument[] = [];
  const fail = (error: string): KubeletConfigOutcome => ({ error, warnings, config: undefined });
  if (sources.configFile) {
    const path = sources.configFile;
    const text = await files.read(path);
    if (text === undefined) {
      return fail(
        `failed to load kubelet config file, path: ${path}, error: failed to read kubelet config file "${path}", error: open ${path}: no such file or directory`,
      );
    }
    const decoded = decodeKubeletConfiguration(text);
    if (!decoded.ok) {
      return fail(
        `failed to load kubelet config file, path: ${path}, error: failed to decode: ${decoded.error}`,
      );
    }
    warnings.push(...decoded.warnings);
    documents.push(decoded.config);
  }
  if (sources.configDir) {
    const dir = sources.configDir.replace(/\/+$/, '');
    const paths = (await files.list(dir)).filter((p) => p.endsWith(KUBELET_DROP_IN_EXTENSION)).sort();
    for (const path of paths) {
      const decoded = decodeKubeletConfiguration((await files.read(path)) ?? '');
      if (!decoded.ok) {
        return fail(
          `failed to merge kubelet configs: failed to load kubelet dropin file, path: ${path}, error: ${decoded.error}`,
        );
      }
      // Drop-ins are decoded into unstructured JSON: an unknown field is carried along, not reported.
      documents.push(decoded.config);
    }
  }
  const config = mergeKubeletConfigurations(documents);
  const error = validateKubeletConfiguration(config);
  return error ? fail(error) : { error: undefined, warnings, config };
}

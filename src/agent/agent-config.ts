// The agent's command line: flags, each with an environment variable fallback (systemd units and
// containers set env more easily than arguments). Parsed with node:util's parseArgs; commander
// would cost ~5 MB of RSS (measured with node 24.21: 53.4 → 58.8 MB) for a dozen flags.

import { isLogLevel, type LogLevel } from './logger.ts';
import { DEFAULT_SELF_UNIT } from './node-agent.ts';
import { DEFAULT_STATE_DIR } from './state/state-directory.ts';

// Through process.getBuiltinModule, not an import: an import of node:util once loaded its lazy parts
// (util.diff, worker_threads for setTraceSigInt, …) in the bundle, ~0.4 MB of the agent's idle RSS
// (issue 17); src/dist/build-agent.ts's bundling no longer does, but the sources run unbundled too.
const { parseArgs } = process.getBuiltinModule('node:util') as typeof import('node:util');

/**
 * real: files under --root-dir, systemctl, apt-get, real reboots.
 * simulated-systemd: real files under --root-dir; systemd, apt and reboots simulated, their state
 *   kept in --simulation-dir so it survives the agent's restarts (crash tests, local clusters).
 * simulated: everything in memory.
 */
const BACKENDS = ['real', 'simulated-systemd', 'simulated'] as const;
export type Backend = (typeof BACKENDS)[number];

const ROLLBACK_MODES = ['pool', 'always', 'never'] as const;
export type RollbackMode = (typeof ROLLBACK_MODES)[number];

export interface AgentConfig {
  kubeconfig: string;
  /** Use the pod's ServiceAccount token and the cluster CA instead of a kubeconfig (DaemonSet). */
  inCluster: boolean;
  nodeName: string;
  stateDir: string;
  rootDir: string;
  /**
   * Host-root mode (DaemonSet): rootDir is the node's root mounted in the pod, and systemctl, apt and
   * probes run in the namespaces of this PID (the node's systemd, 1 with hostPID). Undefined otherwise.
   */
  hostPid: number | undefined;
  backend: Backend;
  simulationDir: string;
  /** Milliseconds per simulated operation, e.g. { restart: 50 }. */
  simulatedDurations: Record<string, number>;
  /** undefined: no HTTP endpoint. */
  metricsAddress: { host: string; port: number } | undefined;
  /** File of the node owner's token for state-changing local API requests; undefined: none needed. */
  localApiTokenFile: string | undefined;
  logLevel: LogLevel;
  selfUnit: string;
  rollback: RollbackMode;
  /** After requesting a reboot or self-restart, exit instead of waiting (simulated child processes). */
  exitOnRestart: boolean;
  bookmarkIntervalMs: number | undefined;
  watchTimeoutSeconds: [number, number] | undefined;
  unitTimeoutMs: number;
  /** Period of the full drift check; 0: only at start, after applies and on file changes. */
  driftIntervalMs: number;
  /** Period of the reboot sentinel check; 0: only at start, after applies and reboots. */
  rebootCheckIntervalMs: number;
}

export const DEFAULT_METRICS_ADDRESS = '127.0.0.1:9469';

const FLAGS = {
  kubeconfig: {
    type: 'string',
    env: 'NODEHERD_KUBECONFIG',
    help: 'kubeconfig with the agent’s credential (token or tokenFile)',
  },
  'in-cluster': {
    type: 'boolean',
    env: 'NODEHERD_IN_CLUSTER',
    help: 'authenticate with the pod’s ServiceAccount token instead of a kubeconfig',
  },
  'node-name': { type: 'string', env: 'NODEHERD_NODE_NAME', help: 'this node’s name (default: host name)' },
  'state-dir': {
    type: 'string',
    env: 'NODEHERD_STATE_DIR',
    help: `state directory (default ${DEFAULT_STATE_DIR})`,
  },
  'root-dir': {
    type: 'string',
    env: 'NODEHERD_ROOT_DIR',
    help: 'root of the managed filesystem (default /)',
  },
  'host-root': {
    type: 'string',
    env: 'NODEHERD_HOST_ROOT',
    help: 'DaemonSet mode: the node’s root as mounted in the pod, e.g. /host (systemctl, apt via nsenter)',
  },
  'host-pid': {
    type: 'string',
    env: 'NODEHERD_HOST_PID',
    help: 'with --host-root: the process whose namespaces commands run in (default 1, the node’s systemd)',
  },
  backend: { type: 'string', env: 'NODEHERD_BACKEND', help: `${BACKENDS.join('|')} (default real)` },
  'simulation-dir': {
    type: 'string',
    env: 'NODEHERD_SIMULATION_DIR',
    help: 'where simulated systemd/apt/host keep state (default <state-dir>/simulation)',
  },
  'simulated-durations': {
    type: 'string',
    env: 'NODEHERD_SIMULATED_DURATIONS',
    help: 'JSON: milliseconds per simulated operation, e.g. {"restart":50}',
  },
  'metrics-address': {
    type: 'string',
    env: 'NODEHERD_METRICS_ADDRESS',
    help: `host:port of /healthz and /metrics, "off" for none (default ${DEFAULT_METRICS_ADDRESS})`,
  },
  'local-api-token-file': {
    type: 'string',
    env: 'NODEHERD_LOCAL_API_TOKEN_FILE',
    help: 'require the token in this file (created 0600 if missing) as "Authorization: Bearer" for POSTs to the local API (default: none)',
  },
  'log-level': { type: 'string', env: 'NODEHERD_LOG_LEVEL', help: 'debug|info|warn|error (default info)' },
  'self-unit': {
    type: 'string',
    env: 'NODEHERD_SELF_UNIT',
    help: `the agent’s unit (default ${DEFAULT_SELF_UNIT})`,
  },
  rollback: {
    type: 'string',
    env: 'NODEHERD_ROLLBACK',
    help: `local rollback on failure: ${ROLLBACK_MODES.join('|')} (default pool)`,
  },
  'exit-on-restart': {
    type: 'boolean',
    env: 'NODEHERD_EXIT_ON_RESTART',
    help: 'exit after requesting a (simulated) reboot or self-restart',
  },
  'bookmark-interval-ms': {
    type: 'string',
    env: 'NODEHERD_BOOKMARK_INTERVAL_MS',
    help: 'the API server’s bookmark interval (default 60000)',
  },
  'watch-timeout-seconds': {
    type: 'string',
    env: 'NODEHERD_WATCH_TIMEOUT_SECONDS',
    help: 'range of watch lifetimes, low:high (default 1800:3600)',
  },
  'unit-timeout-seconds': {
    type: 'string',
    env: 'NODEHERD_UNIT_TIMEOUT_SECONDS',
    help: 'time units get to become active (default 60)',
  },
  'drift-interval-seconds': {
    type: 'string',
    env: 'NODEHERD_DRIFT_INTERVAL_SECONDS',
    help: 'period of the full drift check of units, enablement, state and packages; 0: none (default 300)',
  },
  'reboot-check-interval-seconds': {
    type: 'string',
    env: 'NODEHERD_REBOOT_CHECK_INTERVAL_SECONDS',
    help: 'period of the check whether the OS asks for a reboot (the pool’s sentinel file and command); 0: only at start and after applies (default 300)',
  },
  help: { type: 'boolean', env: '', help: 'show this help' },
} as const;

export function usage(): string {
  const lines = ['Usage: nodeherd-agent [flags]', ''];
  for (const [name, flag] of Object.entries(FLAGS)) {
    lines.push(`  --${name.padEnd(24)} ${flag.help}${flag.env ? ` [$${flag.env}]` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Parses argv (without node and script) and env; undefined when --help was asked for. */
export function parseAgentConfig(
  argv: string[],
  env: Record<string, string | undefined>,
): AgentConfig | undefined {
  const options = Object.fromEntries(
    Object.entries(FLAGS).map(([name, flag]) => [name, { type: flag.type }]),
  ) as {
    [K in keyof typeof FLAGS]: { type: (typeof FLAGS)[K]['type'] };
  };
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  if (values.help) return undefined;
  const get = (name: keyof typeof FLAGS): string | undefined => {
    const value = values[name];
    if (typeof value === 'string') return value;
    const fromEnv = FLAGS[name].env ? env[FLAGS[name].env] : undefined;
    return fromEnv === '' ? undefined : fromEnv;
  };
  const flag = (name: keyof typeof FLAGS): boolean => {
    if (values[name] === true) return true;
    const fromEnv = FLAGS[name].env ? env[FLAGS[name].env] : undefined;
    return fromEnv === '1' || fromEnv === 'true';
  };

  const backend = get('backend') ?? 'real';
  if (!(BACKENDS as readonly string[]).includes(backend))
    throw new ConfigError(`--backend must be one of ${BACKENDS.join(', ')}`);
  const rollback = get('rollback') ?? 'pool';
  if (!(ROLLBACK_MODES as readonly string[]).includes(rollback))
    throw new ConfigError(`--rollback must be one of ${ROLLBACK_MODES.join(', ')}`);
  const logLevel = get('log-level') ?? 'info';
  if (!isLogLevel(logLevel)) throw new ConfigError('--log-level must be debug, info, warn or error');
  const stateDir = get('state-dir') ?? DEFAULT_STATE_DIR;
  const kubeconfig = get('kubeconfig') ?? '/etc/nodeherd/kubeconfig';
  const inCluster = flag('in-cluster');
  if (inCluster && get('kubeconfig') !== undefined)
    throw new ConfigError('--in-cluster and --kubeconfig exclude each other');
  const hostRoot = get('host-root');
  const hostPidText = get('host-pid');
  if (hostPidText !== undefined && hostRoot === undefined)
    throw new ConfigError('--host-pid needs --host-root');
  if (hostRoot !== undefined) {
    if (!hostRoot.startsWith('/')) throw new ConfigError('--host-root must be an absolute path');
    if (get('root-dir') !== undefined) throw new ConfigError('--host-root and --root-dir exclude each other');
    if (backend !== 'real') throw new ConfigError('--host-root needs --backend real');
  }
  const hostPid = hostRoot === undefined ? undefined : Number(hostPidText ?? '1');
  if (hostPid !== undefined && !(Number.isInteger(hostPid) && hostPid >= 1))
    throw new ConfigError('--host-pid must be a process id (a positive integer)');

  return {
    kubeconfig,
    inCluster,
    // node:os only when the host name is needed: a node's unit names the node (issue 17, idle RSS).
    nodeName:
      get('node-name') ??
      env.NODE_NAME ??
      (process.getBuiltinModule('node:os') as typeof import('node:os')).hostname(),
    stateDir,
    rootDir: hostRoot ?? get('root-dir') ?? '/',
    hostPid,
    backend: backend as Backend,
    simulationDir: get('simulation-dir') ?? `${stateDir}/simulation`,
    simulatedDurations: parseDurations(get('simulated-durations')),
    metricsAddress: parseAddress(get('metrics-address') ?? DEFAULT_METRICS_ADDRESS),
    localApiTokenFile: get('local-api-token-file') || undefined,
    logLevel,
    selfUnit: get('self-unit') ?? DEFAULT_SELF_UNIT,
    rollback: rollback as RollbackMode,
    exitOnRestart: flag('exit-on-restart'),
    bookmarkIntervalMs: optionalNumber('bookmark-interval-ms', get('bookmark-interval-ms')),
    watchTimeoutSeconds: parseRange(get('watch-timeout-seconds')),
    unitTimeoutMs: (optionalNumber('unit-timeout-seconds', get('unit-timeout-seconds')) ?? 60) * 1000,
    driftIntervalMs: parseInterval('drift-interval-seconds', get('drift-interval-seconds')),
    rebootCheckIntervalMs: parseInterval(
      'reboot-check-interval-seconds',
      get('reboot-check-interval-seconds'),
    ),
  };
}

function parseDurations(text: string | undefined): Record<string, number> {
  if (text === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError('--simulated-durations must be JSON, e.g. {"restart":50}');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new ConfigError('--simulated-durations must be a JSON object');
  for (const [op, ms] of Object.entries(parsed)) {
    if (typeof ms !== 'number' || !(ms >= 0))
      throw new ConfigError(`--simulated-durations: ${op} must be a number ≥ 0`);
  }
  return parsed as Record<string, number>;
}

function parseAddress(text: string): { host: string; port: number } | undefined {
  if (text === 'off' || text === '') return undefined;
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(text);
  if (!match) throw new ConfigError('--metrics-address must be host:port (or "off")');
  const port = Number(match[3]);
  if (port > 65535) throw new ConfigError('--metrics-address: port out of range');
  return { host: match[1] ?? (match[2] || '127.0.0.1'), port };
}

function parseRange(text: string | undefined): [number, number] | undefined {
  if (text === undefined) return undefined;
  const [low, high = low] = text.split(':').map(Number);
  if (!(low !== undefined && low > 0 && high !== undefined && high >= low))
    throw new ConfigError('--watch-timeout-seconds must be low:high with 0 < low <= high');
  return [low, high];
}

function parseInterval(name: string, text: string | undefined): number {
  if (text === undefined) return 300_000;
  const seconds = Number(text);
  if (!(seconds >= 0) || !Number.isFinite(seconds))
    throw new ConfigError(`--${name} must be a number of seconds ≥ 0`);
  return seconds * 1000;
}

function optionalNumber(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!(value > 0)) throw new ConfigError(`--${name} must be a positive number`);
  return value;
}

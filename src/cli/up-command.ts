// `nodeherd up`: the whole system on one machine in one command. Starts the local cluster, prints how
// to reach it with kubectl, shows the fleet until Ctrl-C, then stops everything in order. A second
// Ctrl-C exits at once (everything written so far is durable; the next run resumes).

import { resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import type { ContainerNodes } from '../nspawn/container-nodes.ts';
import { LocalCluster } from '../up/local-cluster.ts';
import { printIntroduction, printReady } from '../up/messages.ts';
import { invokedCommand } from '../util/invoked-command.ts';
import { serveUpDashboard } from './dashboard/up-dashboard.ts';
import { showFleet } from './status/show-fleet.ts';

export interface UpOptions {
  nodes: number;
  /** The last this many simulated nodes are RPM (dnf) nodes. */
  rpmNodes?: number;
  stateDir: string;
  port: number;
  nodeApiPort: number;
  view: boolean;
  nspawn?: number;
  logLevel: string;
}

function port(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535)
    throw new InvalidArgumentError('must be a port number from 0 to 65535');
  return n;
}

const LOG_LEVELS = ['debug', 'info', 'warn', 'error'];

/** Checked here: the logger would throw deep in the start, with a stack trace. */
function logLevel(value: string): string {
  if (!LOG_LEVELS.includes(value)) throw new InvalidArgumentError(`must be one of ${LOG_LEVELS.join(', ')}`);
  return value;
}

function nodeCount(max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < 1 || n > max) {
      throw new InvalidArgumentError(`must be a whole number from 1 to ${max}`);
    }
    return n;
  };
}

const DEFAULT_NODES = 5;
const DEFAULT_PORT = 6443;
/** The port a real agent serves its local API on, so `…/v1/update` reads the same here. */
const DEFAULT_NODE_API_PORT = 9469;

export function upCommand(): Command {
  return new Command('up')
    .description(
      'start a local cluster: the API server, the rollout controller and nodes running the real agent, with a sample pool',
    )
    .option(
      '--nodes <n>',
      'simulated nodes (with --nspawn: containers instead)',
      nodeCount(1000),
      DEFAULT_NODES,
    )
    .option(
      '--state-dir <dir>',
      'where everything is kept between runs (a rerun resumes from it)',
      '.nodeherd',
    )
    .option(
      '--port <port>',
      'HTTPS port of the API server on 127.0.0.1 (0 picks a free one)',
      port,
      DEFAULT_PORT,
    )
    .option(
      '--node-api-port <port>',
      "HTTP port on 127.0.0.1 of the simulated nodes' agent APIs, under /nodes/<node>/ (0 picks a free one)",
      port,
      DEFAULT_NODE_API_PORT,
    )
    .option(
      '--rpm-nodes <n>',
      'of the simulated nodes, the last n are RPM nodes (dnf, labelled os-family=rpm)',
      nodeCount(1000),
    )
    .option('--no-view', 'print the startup text only, no live view of the fleet')
    .option(
      '--nspawn <n>',
      'real systemd-nspawn containers instead of simulated nodes (root only)',
      nodeCount(16),
    )
    .option(
      '--log-level <level>',
      `level of the log file in the state dir (${LOG_LEVELS.join(', ')})`,
      logLevel,
      'info',
    )
    .action(async (opts: UpOptions) => {
      await runUp(opts);
    });
}

export async function runUp(options: UpOptions): Promise<void> {
  if (options.rpmNodes !== undefined && options.nspawn === undefined && options.rpmNodes > options.nodes) {
    throw new InvalidArgumentError(`--rpm-nodes ${options.rpmNodes} is more than --nodes ${options.nodes}`);
  }
  const stateDir = resolve(options.stateDir);
  const containers =
    options.nspawn !== undefined ? await prepareContainers(options.nspawn, stateDir) : undefined;
  const out = process.stdout;
  const signals = new ShutdownSignals();
  let cluster: LocalCluster;
  try {
    cluster = await LocalCluster.start({
      stateDir,
      nodes: options.nodes,
      ...(options.rpmNodes !== undefined ? { rpmNodes: options.rpmNodes } : {}),
      port: options.port,
      nodeApiPort: options.nodeApiPort,
      logLevel: options.logLevel,
      ...(containers ? { nodeSet: containers.nodeSet, artefactDirectory: containers.artefactDirectory } : {}),
      onStep: (message) => {
        if (!signals.requested) out.write(`  ${message}…\n`);
      },
    });
  } catch (error) {
    signals.dispose();
    throw error;
  }
  const dashboard = await serveUpDashboard(cluster);
  printIntroduction(out, cluster, options.nspawn !== undefined ? 'container' : 'simulated');
  out.write(
    `Watch rollouts in a browser (timeline, plan; pause, resume, roll back):\n  ${dashboard.url}\n\n`,
  );
  printReady(out, cluster);
  const view = options.view && !signals.requested ? showFleet(cluster.admin, out) : undefined;
  await signals.first;
  view?.stop();
  await dashboard.stop();
  out.write('\nstopping: agents, controller, API server… (Ctrl-C again to exit at once)\n');
  await cluster.stop();
  signals.dispose();
  out.write(`stopped; \`${rerunCommand(options)}\` resumes\n`);
}

/**
 * The command that resumes this cluster: the fleet flags as given, since a rerun with the default
 * node count would change the fleet (a smaller count deletes the extra nodes and their state).
 */
function rerunCommand(options: UpOptions): string {
  const flags = [`--state-dir ${options.stateDir}`];
  if (options.nspawn !== undefined) flags.push(`--nspawn ${options.nspawn}`);
  else if (options.nodes !== DEFAULT_NODES) flags.push(`--nodes ${options.nodes}`);
  if (options.nspawn === undefined && options.rpmNodes) flags.push(`--rpm-nodes ${options.rpmNodes}`);
  // A rerun serves where the user's kubeconfig and tools already point.
  if (options.port !== DEFAULT_PORT) flags.push(`--port ${options.port}`);
  if (options.nodeApiPort !== DEFAULT_NODE_API_PORT) flags.push(`--node-api-port ${options.nodeApiPort}`);
  return `${invokedCommand()} up ${flags.join(' ')}`;
}

/** First SIGINT/SIGTERM: stop cleanly. Second: exit at once. */
class ShutdownSignals {
  readonly first: Promise<void>;
  requested = false;
  private resolveFirst: () => void = () => {};
  private readonly handler = (signal: NodeJS.Signals) => {
    if (this.requested) {
      process.stderr.write(`\n${signal} again: exiting without waiting\n`);
      process.exit(130);
    }
    this.requested = true;
    this.resolveFirst();
  };

  constructor() {
    this.first = new Promise((resolve) => {
      this.resolveFirst = resolve;
    });
    process.on('SIGINT', this.handler);
    process.on('SIGTERM', this.handler);
  }

  dispose(): void {
    process.off('SIGINT', this.handler);
    process.off('SIGTERM', this.handler);
  }
}

// Loaded only for --nspawn: the simulated default never needs the container machinery.
async function prepareContainers(count: number, stateDir: string): Promise<ContainerNodes> {
  const { prepareContainerNodes } = await import('../nspawn/container-nodes.ts');
  return prepareContainerNodes(count, (message) => process.stdout.write(`  ${message}…\n`), stateDir);
}

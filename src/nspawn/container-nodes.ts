// Nodes of `nodeherd up --nspawn`: Debian containers booted with systemd-nspawn, each bootstrapped
// by nodeherd-init from the local API server (the agent bundle it serves), so the agent manages real
// systemd. A container runs no kubelet: a simulated kubelet on the host registers each container's
// Node and keeps its Lease and Ready condition, and a stand-in kubelet.service inside the container
// gives configs that manage kubelet (the sample does) a unit to drop into and restart.
// Each container writes to an overlay kept in the state directory, so a rerun boots the same disk:
// the agent finds its journal and last-applied revision and applies nothing again.

import { mkdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { STATE_ANNOTATION } from '../api/node-protocol.ts';
import { buildAgent } from '../dist/build-agent.ts';
import type { KubeClient } from '../kube/kube-client.ts';
import { Fleet } from '../sim/fleet.ts';
import { embeddedKubeletIdentities } from '../sim/node-clients.ts';
import type { NodeSet, NodeSetContext } from '../sim/node-set.ts';
import { writeFileAtomic } from '../util/atomic-write.ts';
import { Container } from './container.ts';
import { nspawnUnavailableReason, waitFor, writeText } from './host.ts';
import { freePort } from './ports.ts';
import { ensureRootfs } from './rootfs.ts';

export const CONTAINER_NAME_PREFIX = 'nspawn-';
const INIT_SCRIPT = new URL('../../init/nodeherd-init.sh', import.meta.url).pathname;

/** Where a package would ship kubelet's unit; the agent only adds drop-ins to it. */
const STAND_IN_KUBELET_PATH = '/lib/systemd/system/kubelet.service';
const STAND_IN_KUBELET = [
  '[Unit]',
  'Description=kubelet stand-in (nodeherd up --nspawn: the Node is kept Ready from the host)',
  '',
  '[Service]',
  'Type=exec',
  'ExecStart=/bin/sleep infinity',
  '',
  '[Install]',
  'WantedBy=multi-user.target',
  '',
].join('\n');

export function containerNodeName(index: number): string {
  return `${CONTAINER_NAME_PREFIX}${String(index).padStart(4, '0')}`;
}

export interface ContainerNodes {
  /** The built agent (bundle, runtime, checksums), for the API server to serve to nodeherd-init. */
  artefactDirectory: string;
  nodeSet: (context: NodeSetContext) => Promise<NodeSet>;
}

/**
 * Checks the host, makes sure the root filesystem exists and builds the agent; the containers boot
 * once the API server runs (nodeSet).
 */
export async function prepareContainerNodes(
  count: number,
  step: (message: string) => void,
  stateDir: string,
): Promise<ContainerNodes> {
  const missing = nspawnUnavailableReason();
  if (missing) throw new Error(`--nspawn: containers need ${missing}`);
  step('preparing the container root filesystem (the first time: debootstrap, a few minutes)');
  const rootfs = await ensureRootfs();
  step('building the agent (npm run build:agent)');
  const artefactDirectory = join(stateDir, 'agent-dist');
  await buildAgent({ outDir: artefactDirectory });
  return {
    artefactDirectory,
    nodeSet: (context) => ContainerNodeSet.start(context, count, rootfs.path, step),
  };
}

class ContainerNodeSet implements NodeSet {
  private readonly fleet: Fleet;
  private readonly containers: Container[];
  private readonly admin: KubeClient;

  private constructor(fleet: Fleet, containers: Container[], admin: KubeClient) {
    this.fleet = fleet;
    this.containers = containers;
    this.admin = admin;
  }

  get names(): string[] {
    return this.containers.map((c) => c.name);
  }

  static async start(
    context: NodeSetContext,
    count: number,
    rootfs: string,
    step: (message: string) => void,
  ): Promise<ContainerNodeSet> {
    const { server, state } = context;
    const log = context.log.child({ component: 'nspawn' });
    const kubelets = new Fleet({
      // The Fleet here is only the containers' kubelet stand-in: kubelet identities.
      clientFor: embeddedKubeletIdentities(server, state.nodes),
      adminClient: context.adminLight,
      namePrefix: CONTAINER_NAME_PREFIX,
      onError: (node, error) => log.warn({ node, err: error }, 'kubelet stand-in error'),
    });
    const containers: Container[] = [];
    const set = new ContainerNodeSet(kubelets, containers, context.admin);
    try {
      const names = Array.from({ length: count }, (_, i) => containerNodeName(i + 1));
      for (const name of names) await kubelets.create({ name, roles: ['worker'], zone: 'zone-a' });
      await kubelets.startAll();
      // Before the containers boot: an agent from the last run starts with its container and holds its port.
      const metricsPorts = new Map<string, number>();
      for (const name of names) {
        metricsPorts.set(name, await stableMetricsPort(join(state.root, 'containers', `${name}.json`)));
      }
      step(`booting ${count} container${count === 1 ? '' : 's'} with systemd-nspawn`);
      for (const name of names) {
        const container = await Container.boot({
          name,
          rootfs,
          directory: join(state.root, 'containers', name),
        });
        containers.push(container);
        log.info({ node: name, bootMs: Math.round(container.bootMs) }, 'container booted');
      }
      step('installing the agent in each container (nodeherd-init)');
      await Promise.all(
        containers.map(async (container) => {
          await installStandInKubelet(container);
          const token = await server.issueCredential(
            'node',
            container.name,
            join(state.nodes, `${container.name}.kubeconfig`),
          );
          const script = await readFile(INIT_SCRIPT);
          const result = await container.exec(
            [
              'sh',
              '-s',
              '--',
              '--server',
              server.url,
              '--token',
              token,
              '--ca-data',
              Buffer.from(server.caPem).toString('base64'),
              '--node-name',
              container.name,
              '--agent-env',
              `NODEHERD_METRICS_ADDRESS=127.0.0.1:${metricsPorts.get(container.name)}`,
            ],
            { input: script, timeoutMs: 180_000 },
          );
          if (result.code !== 0) {
            throw new Error(
              `nodeherd-init in ${container.name} exited ${result.code}: ${result.stderr.trim()}`,
            );
          }
        }),
      );
      return set;
    } catch (error) {
      await set.stop();
      throw error;
    }
  }

  /** Every agent has reported on its Node (it runs and has looked at its desired revision). */
  async settled(): Promise<void> {
    await Promise.all(
      this.names.map((name) =>
        waitFor(
          `the agent in ${name} to report`,
          async () => {
            const node = await this.admin.get<{ metadata: { annotations?: Record<string, string> } }>(
              `/api/v1/nodes/${name}`,
            );
            return node.metadata.annotations?.[STATE_ANNOTATION];
          },
          180_000,
          250,
        ),
      ),
    );
  }

  /** Powers the containers off (their agents stop with them), then the kubelet stand-ins. */
  async stop(): Promise<void> {
    await Promise.all(this.containers.map((container) => container.stop()));
    await this.fleet.close();
  }
}

async function installStandInKubelet(container: Container): Promise<void> {
  await writeText(container.hostPath(STAND_IN_KUBELET_PATH), STAND_IN_KUBELET);
  await container.execChecked(['systemctl', 'daemon-reload']);
  await container.execChecked(['systemctl', 'enable', '--now', 'kubelet.service']);
}

/**
 * The agent's metrics port on the shared host network: the same one on every run (so nodeherd-init
 * finds nothing changed and leaves the agent running), a new one if another process took it.
 */
async function stableMetricsPort(recordPath: string): Promise<number> {
  let port: number | undefined;
  try {
    port = (JSON.parse(await readFile(recordPath, 'utf8')) as { metricsPort?: number }).metricsPort;
  } catch {
    port = undefined;
  }
  if (port === undefined || !(await portFree(port))) {
    port = await freePort();
    await mkdir(dirname(recordPath), { recursive: true });
    await writeFileAtomic(recordPath, `${JSON.stringify({ metricsPort: port })}\n`, { mode: 0o600 });
  }
  return port;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

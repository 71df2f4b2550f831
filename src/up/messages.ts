// What `nodeherd up` tells the user once the cluster runs: where things are, how to use kubectl with
// it, and how to start a first rollout. The last line starts with "ready:" (scripts and tests wait
// for it).

import { relative } from 'node:path';
import { invokedCommand } from '../util/invoked-command.ts';
import type { LocalCluster } from './local-cluster.ts';

export type NodeKind = 'simulated' | 'container';

/** A path as short as it can be said from here (relative inside the working directory). */
function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel !== '' && !rel.startsWith('..') ? rel : path;
}

export function printIntroduction(out: NodeJS.WritableStream, cluster: LocalCluster, kind: NodeKind): void {
  const names = cluster.nodes.names;
  const nodes =
    names.length <= 3 ? names.join(', ') : `${names[0]} … ${names[names.length - 1]} (${names.length})`;
  const created = cluster.samples.filter((s) => s.created).map((s) => s.key);
  const kept = cluster.samples.filter((s) => !s.created).map((s) => s.key);
  const pool = cluster.samples
    .find((s) => s.key.startsWith('NodeConfigPool/'))
    ?.key.slice('NodeConfigPool/'.length);
  const config = cluster.samples
    .find((s) => s.key.startsWith('NodeConfig/'))
    ?.key.slice('NodeConfig/'.length);
  const lines = [
    '',
    `nodeherd up: a local cluster in ${cluster.state.root}`,
    `  API server   ${cluster.url}`,
    `  nodes        ${nodes}: ${kind === 'simulated' ? 'simulated machines' : 'systemd-nspawn containers'}, each running the real agent`,
    `  controller   in this process (identity "controller")`,
    ...(cluster.nodeApi
      ? [`  node APIs    ${cluster.nodeApi.url}/<node>/… (each node's agent API, as served on the node)`]
      : []),
    ...(created.length > 0 ? [`  samples      created ${created.join(', ')} (deploy/samples)`] : []),
    ...(kept.length > 0 ? [`  samples      kept as they are: ${kept.join(', ')}`] : []),
    `  logs         ${shown(cluster.state.logFile)}`,
    '',
    'Use it with kubectl (in another terminal):',
    `  export KUBECONFIG=${cluster.kubeconfigPath}`,
    '  kubectl get nodeconfigpools,nodes',
    ...(config
      ? [
          '',
          'A first rollout: change the sample config (e.g. maxPods) and watch it reach one node after another:',
          `  kubectl edit nodeconfig ${config}`,
          `  ${invokedCommand()} status${pool ? ` ${pool}` : ''}`,
        ]
      : []),
    ...(config && kind === 'simulated'
      ? [
          '',
          'Break it on purpose: a bad kubelet setting fails the canary and the pool rolls back by itself:',
          `  kubectl apply -f examples/break-it/nodeconfig-bad-max-pods.yaml   # in a nodeherd checkout (README)`,
        ]
      : []),
    ...(cluster.nodeApi && names[0]
      ? [
          '',
          "A node's own API (over-the-air updates of OTA pools, DaemonSet pod upgrades, health):",
          `  curl ${cluster.nodeApi.url}/${names[0]}/v1/update            # what an OTA pool offers the node`,
          `  curl -X POST ${cluster.nodeApi.url}/${names[0]}/v1/update    # take it`,
        ]
      : []),
    '',
  ];
  out.write(`${lines.join('\n')}\n`);
}

export function printReady(out: NodeJS.WritableStream, cluster: LocalCluster): void {
  const count = cluster.nodes.names.length;
  out.write(
    `ready: ${count} node${count === 1 ? '' : 's'}, API server ${cluster.url}; Ctrl-C stops (a rerun resumes from ${shown(cluster.state.root)})\n`,
  );
}

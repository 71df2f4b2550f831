// The systemd agent's token rotated under it: the agent process (bin/nodeherd-agent.ts) runs with a
// kubeconfig whose user has a tokenFile. The node's token is rotated in the embedded server (the old
// one revoked at once) and the new one written to the file: the same process applies the next
// revision. No restart, no lost watch for longer than one request.

import assert from 'node:assert/strict';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { CURRENT_REVISION_ANNOTATION } from '../../src/api/node-protocol.ts';
import type { KubeError } from '../../src/kube/kube-error.ts';
import { LightKubeClient } from '../../src/kube/light/light-kube-client.ts';
import { eventually } from '../support/eventually.ts';
import {
  type Cluster,
  createNode,
  createRevision,
  demoServiceSpec,
  getNode,
  setDesired,
  startCluster,
} from './agent-harness.ts';
import { type AgentProcess, agentPaths, killAllAgentProcesses, startAgentProcess } from './agent-process.ts';

let cluster: Cluster;
let agent: AgentProcess | undefined;

before(async () => {
  cluster = await startCluster();
});

after(async () => {
  await killAllAgentProcesses();
  await cluster?.stop();
});

async function writeToken(path: string, token: string): Promise<void> {
  await writeFile(`${path}.new`, `${token}\n`, { mode: 0o600 });
  await rename(`${path}.new`, path);
}

async function applied(node: string, revision: string): Promise<void> {
  await eventually(`${node} on ${revision}`, async () => {
    const annotations = (await getNode(cluster, node)).metadata?.annotations ?? {};
    return annotations[CURRENT_REVISION_ANNOTATION] === revision &&
      annotations['nodeherd.io/state'] === 'Done'
      ? true
      : undefined;
  });
}

test('a token replaced in the kubeconfig’s tokenFile, the old one revoked: the running agent keeps applying', async () => {
  const node = 'rotating-1';
  await createNode(cluster, node);
  const paths = await agentPaths(cluster, node);
  const tokenFile = join(cluster.dir, `${node}.token`);
  const first = await cluster.api.server.tokens.rotate('node', node);
  await writeToken(tokenFile, first.token);
  const kubeconfig = join(cluster.dir, `${node}.tokenfile.kubeconfig`);
  await writeFile(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: local',
      '  cluster:',
      `    server: ${cluster.api.server.url}`,
      `    certificate-authority-data: ${Buffer.from(cluster.api.server.caPem).toString('base64')}`,
      'users:',
      `- name: ${node}`,
      '  user:',
      `    tokenFile: ${node}.token`,
      'contexts:',
      '- name: local',
      '  context:',
      '    cluster: local',
      `    user: ${node}`,
      'current-context: local',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  agent = startAgentProcess({ ...paths, kubeconfig });

  const one = await createRevision(cluster, 'rotation', demoServiceSpec('one'));
  await setDesired(cluster, node, one.metadata.name);
  await applied(node, one.metadata.name);

  // The server revokes the old token at once, before the file holds the new one: a request the agent
  // sends in that gap may be refused. Once the file is written, none may be (the client re-reads it).
  const second = await cluster.api.server.tokens.rotate('node', node);
  await writeToken(tokenFile, second.token);
  const writtenAt = Date.now();
  const old = new LightKubeClient({
    server: cluster.api.server.url,
    caPem: cluster.api.server.caPem,
    token: first.token,
  });
  await assert.rejects(old.get(`/api/v1/nodes/${node}`), (error: KubeError) => error.status === 401);
  old.close();

  const two = await createRevision(cluster, 'rotation', demoServiceSpec('two'));
  await setDesired(cluster, node, two.metadata.name);
  await applied(node, two.metadata.name);
  assert.equal(agent.hasExited(), false, 'the same agent process throughout');
  // A request in flight when the file was written may still answer afterwards: one second of grace.
  const refused = agent.lines.filter(
    (line) =>
      /"(status|code)":401\b|Unauthorized/.test(JSON.stringify(line)) &&
      (typeof line.time !== 'string' || Date.parse(line.time) > writtenAt + 1_000),
  );
  assert.deepEqual(refused, [], 'no request was refused once the new token was in the file');
});

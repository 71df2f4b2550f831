// OTA end to end on simulated nodes: the controller only announces the pool's new revision
// (available-revision); a node moves when its owner asks through the agent's NodeUpdateApi (here
// without HTTP, as `nodeherd up` drives simulated nodes), and the others stay where they are.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  AVAILABLE_REVISION_ANNOTATION,
  CURRENT_REVISION_ANNOTATION,
  STATE_ANNOTATION,
} from '../../../src/api/node-protocol.ts';
import {
  type SimulatedNodeAgentFactory,
  simulatedNodeAgents,
} from '../../../src/sim/simulated-node-agents.ts';
import {
  ClusterHarness,
  eventually,
  kubeletConfig,
  revisionNameFor,
} from '../../controller/support/cluster-harness.ts';

describe('OTA on simulated nodes', () => {
  let h: ClusterHarness;
  let agents: SimulatedNodeAgentFactory;
  let stateRoot: string;

  before(async () => {
    stateRoot = mkdtempSync(join(tmpdir(), 'nodeherd-ota-sim-'));
    agents = simulatedNodeAgents({
      stateRoot,
      agent: { unitTimeoutMs: 2_000 },
    });
    h = await ClusterHarness.start({ fleet: { agent: agents } });
    await h.startController();
  });
  after(async () => {
    await h?.stop();
    rmSync(stateRoot, { recursive: true, force: true });
  });

  test('a node pulls the announced revision; the others keep theirs', async () => {
    const nodes = [];
    for (let i = 0; i < 3; i++)
      nodes.push(await h.fleet.create({ name: `ota-${i}`, zone: 'zone-a', labels: { pool: 'ota' } }));
    await h.fleet.startAll(nodes);
    await h.applyConfig('ota-kubelet', kubeletConfig('1'), { pool: 'ota' });
    await h.createPool('ota', {
      nodeSelector: { matchLabels: { pool: 'ota' } },
      configSelector: { matchLabels: { pool: 'ota' } },
      updateStrategy: { type: 'OTA' },
    });
    const first = revisionNameFor('ota', { 'ota-kubelet': kubeletConfig('1') });
    const second = revisionNameFor('ota', { 'ota-kubelet': kubeletConfig('2') });
    await eventually('joining nodes get the first revision', async () =>
      (await h.nodes('pool=ota')).every(
        (n) => n.metadata.annotations?.[CURRENT_REVISION_ANNOTATION] === first,
      ),
    );
    const api = agents.agentOf('ota-1')?.updates;
    assert.ok(api, 'the simulated node exposes its agent');
    assert.equal((await api.available()).status, 404);

    await h.applyConfig('ota-kubelet', kubeletConfig('2'), { pool: 'ota' });
    await eventually('the new revision is announced on every node', async () =>
      (await h.nodes('pool=ota')).every(
        (n) => n.metadata.annotations?.[AVAILABLE_REVISION_ANNOTATION] === second,
      ),
    );
    const offered = await eventually('the agent sees the offer', async () => {
      const answer = await api.available();
      return answer.status === 200 ? answer : undefined;
    });
    const update = offered.body as { availableRevision: string; plan: { restartedUnits: string[] } };
    assert.equal(update.availableRevision, second);
    assert.deepEqual(update.plan.restartedUnits, ['kubelet.service']);

    const accepted = await api.apply(second);
    assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
    await eventually('ota-1 on the new revision', async () => {
      const [node] = (await h.nodes('pool=ota')).filter((n) => n.metadata.name === 'ota-1');
      const a = node?.metadata.annotations ?? {};
      return a[CURRENT_REVISION_ANNOTATION] === second && a[STATE_ANNOTATION] === 'Done';
    });
    const others = (await h.nodes('pool=ota')).filter((n) => n.metadata.name !== 'ota-1');
    for (const node of others)
      assert.equal(
        node.metadata.annotations?.[CURRENT_REVISION_ANNOTATION],
        first,
        `${node.metadata.name} stays`,
      );
  });
});

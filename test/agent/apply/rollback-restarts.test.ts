// A failed apply that killed a unit nodeherd does not run itself (kubelet: drop-ins only, its state
// not managed) must not leave it dead after the local rollback: the rollback restarts the units the
// failed apply restarted even when they are down, so the node comes back Ready.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { restartAfterRollback } from '../../../src/agent/apply/rollback-restarts.ts';
import type { NodeConfigSpec } from '../../../src/api/types.ts';
import { plan } from '../../../src/plan/plan.ts';
import {
  type Cluster,
  createPool,
  createRevision,
  setDesired,
  startCluster,
  startNode,
  type TestNode,
  waitForMessage,
  waitForState,
} from '../agent-harness.ts';

function kubeletSpec(value: string): NodeConfigSpec {
  return {
    files: [{ path: '/etc/kubernetes/extra.conf', content: { inline: { data: `value: ${value}\n` } } }],
    units: [
      {
        name: 'kubelet.service',
        dropIns: [{ name: '20-nodeherd.conf', content: `[Service]\nEnvironment=V=${value}\n` }],
        filePaths: ['/etc/kubernetes/extra.conf'],
      },
    ],
  };
}

describe('local rollback restarts what the failed apply restarted', () => {
  it('turns try-restarts of those units into restarts, and adds one the rollback plan lacks', async () => {
    const { renderConfigs } = await import('../../../src/api/render.ts');
    const config = (spec: NodeConfigSpec) =>
      renderConfigs([
        { apiVersion: 'nodeherd.io/v1alpha1', kind: 'NodeConfig', metadata: { name: 'k' }, spec },
      ]).config!;
    const back = plan({ config: config(kubeletSpec('2')) }, { config: config(kubeletSpec('1')) });
    const restart = back.actions.find((a) => a.kind === 'restart-unit');
    assert.equal(
      restart?.kind === 'restart-unit' && restart.ifRunning,
      true,
      'plan() alone only try-restarts',
    );
    const fixed = restartAfterRollback(back, ['kubelet.service', 'other.service']);
    const restarts = fixed.actions.filter((a) => a.kind === 'restart-unit');
    assert.deepEqual(
      restarts.map((a) => [a.name, a.kind === 'restart-unit' && a.ifRunning]),
      [
        ['kubelet.service', false],
        ['other.service', false],
      ],
    );
    assert.equal(new Set(fixed.actions.map((a) => a.id)).size, fixed.actions.length, 'ids stay unique');
    assert.deepEqual(restartAfterRollback(back, []), back);
  });
});

describe('node agent rollback of a unit the failed apply killed', () => {
  let cluster: Cluster;
  let node: TestNode;

  before(async () => {
    cluster = await startCluster();
    await createPool(cluster, 'kube', {
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { failurePolicy: { action: 'Rollback' } } },
    });
    node = await startNode(cluster, 'rollback-kubelet', {
      systemd: { units: { 'kubelet.service': { enabled: true, active: true } } },
    });
  });
  after(async () => {
    await cluster?.stop();
  });

  it('the kubelet runs again after the rollback', async () => {
    const good = await createRevision(cluster, 'kube', kubeletSpec('1'));
    await setDesired(cluster, node.name, good.metadata.name);
    await waitForState(cluster, node.name, 'Done');
    assert.equal(node.systemd.unit('kubelet.service')?.activeState, 'active');

    // The new drop-in makes the kubelet die on its restart (once).
    node.systemd.fail('restart', 'kubelet.service', { times: 1 });
    const bad = await createRevision(cluster, 'kube', kubeletSpec('2'));
    await setDesired(cluster, node.name, bad.metadata.name);
    const failed = await waitForMessage(cluster, node.name, /rolled back to/);
    assert.equal(failed.metadata?.annotations?.['nodeherd.io/current-revision'], good.metadata.name);
    assert.equal(
      node.systemd.unit('kubelet.service')?.activeState,
      'active',
      'kubelet restarted by the rollback',
    );
  });
});

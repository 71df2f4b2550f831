// `kubectl get nodeconfigpools` through the embedded API server: the Progress column shows the Progressing
// condition's reason (why a rollout moves or not), and -o wide adds the gated (Waiting) and OTA
// (Available) counts the controller writes into the status.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { NodeConfigPoolStatus } from '../../../src/api/types.ts';
import { LightKubeClient } from '../../../src/kube/light/light-kube-client.ts';
import { type LocalApiServer, startLocalApiServer } from '../../support/local-apiserver.ts';

const POOLS = '/apis/nodeherd.io/v1alpha1/nodeconfigpools';

/** Rows of kubectl's table as column name → cell, by the header's column starts. */
function table(stdout: string): Record<string, string>[] {
  const [header = '', ...lines] = stdout.trimEnd().split('\n');
  const starts = [...header.matchAll(/\S+/g)].map((m) => ({ name: m[0], at: m.index ?? 0 }));
  return lines.map((line) =>
    Object.fromEntries(
      starts.map((c, i) => [c.name, line.slice(c.at, starts[i + 1]?.at ?? line.length).trim()]),
    ),
  );
}

describe('kubectl get nodeconfigpools', () => {
  let local: LocalApiServer;
  let admin: LightKubeClient;

  before(async () => {
    local = await startLocalApiServer();
    admin = LightKubeClient.fromKubeconfig(local.kubeconfigPath);
    const pools: { name: string; type: string; status: NodeConfigPoolStatus }[] = [
      {
        name: 'stalled',
        type: 'RollingUpdate',
        status: {
          nodes: 4,
          failed: 1,
          waiting: 0,
          updateAvailable: 0,
          conditions: [
            {
              type: 'Progressing',
              status: 'False',
              observedGeneration: 1,
              reason: 'Stalled',
              message: '1/4 nodes on p-2; stalled: 1 failed node (a) holds the budget',
              lastTransitionTime: '2030-01-01T00:00:00Z',
            },
          ],
        },
      },
      {
        name: 'serial',
        type: 'Serial',
        status: {
          nodes: 5,
          waiting: 3,
          updateAvailable: 0,
          conditions: [
            {
              type: 'Progressing',
              status: 'True',
              observedGeneration: 1,
              reason: 'Serial',
              message: '2/5 nodes on s-2',
              lastTransitionTime: '2030-01-01T00:00:00Z',
            },
          ],
        },
      },
      {
        name: 'ota',
        type: 'OTA',
        status: {
          nodes: 2,
          waiting: 0,
          updateAvailable: 2,
          conditions: [
            {
              type: 'Progressing',
              status: 'False',
              observedGeneration: 1,
              reason: 'WaitingForNodeOwners',
              message: '2 nodes have an update available',
              lastTransitionTime: '2030-01-01T00:00:00Z',
            },
          ],
        },
      },
    ];
    for (const p of pools) {
      await admin.create(POOLS, {
        apiVersion: 'nodeherd.io/v1alpha1',
        kind: 'NodeConfigPool',
        metadata: { name: p.name },
        spec: { nodeSelector: {}, configSelector: {}, updateStrategy: { type: p.type } },
      });
      await admin.patch(`${POOLS}/${p.name}/status`, { status: p.status }, 'merge');
    }
  });
  after(async () => {
    admin?.close();
    await local?.stop();
  });

  test('shows why each rollout progresses or not, and the gated and OTA counts in -o wide', async () => {
    const plain = await local.kubectl(['get', 'nodeconfigpools']);
    assert.equal(plain.code, 0, plain.stderr);
    const rows = Object.fromEntries(table(plain.stdout).map((r) => [r.NAME, r]));
    assert.equal(rows.stalled?.PROGRESS, 'Stalled');
    assert.equal(rows.serial?.PROGRESS, 'Serial');
    assert.equal(rows.ota?.PROGRESS, 'WaitingForNodeOwners');
    assert.equal(rows.stalled?.WAITING, undefined, 'the counts are in -o wide only');

    const wide = await local.kubectl(['get', 'nodeconfigpools', '-o', 'wide']);
    assert.equal(wide.code, 0, wide.stderr);
    const wideRows: Record<string, Record<string, string>> = Object.fromEntries(
      table(wide.stdout).map((r) => [r.NAME, r]),
    );
    assert.deepEqual(
      Object.fromEntries(
        Object.entries(wideRows).map(([name, r]) => [name, [r.PROGRESS, r.WAITING, r['OTA-OFFERED']]]),
      ),
      {
        ota: ['WaitingForNodeOwners', '0', '2'],
        serial: ['Serial', '3', '0'],
        stalled: ['Stalled', '0', '0'],
      },
    );
  });
});

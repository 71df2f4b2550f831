// `nodeherd plan` across pools in waves: the order in which the changing pools would start their new
// revision (canary first), pools that never would (a cycle) or hold (a missing pool), and each pool's
// own note; from the pure order and through the CLI against an API server.

import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { stringify } from 'yaml';
import type { NodeConfigPool } from '../../../src/api/types.ts';
import { planPoolOrder } from '../../../src/cli/plan/pool-order.ts';
import { CliCluster } from '../support/cli-cluster.ts';

const pool = (name: string, after: string[] = []): NodeConfigPool => ({
  apiVersion: 'nodeherd.io/v1alpha1',
  kind: 'NodeConfigPool',
  metadata: { name },
  spec: {
    nodeSelector: {},
    configSelector: {},
    ...(after.length ? { updateStrategy: { wave: { after } } } : {}),
  },
});

describe('planPoolOrder', () => {
  test('no pool waits for another: no order to show', () => {
    assert.equal(planPoolOrder([pool('a'), pool('b')], ['a', 'b']), undefined);
  });

  test('the changing pools in waves; unchanged pools drop out, cycles and missing pools are named', () => {
    const pools = [
      pool('canary'),
      pool('a', ['canary']),
      pool('b', ['a']),
      pool('quiet', ['canary']),
      pool('x', ['y']),
      pool('y', ['x']),
      pool('lonely', ['ghost']),
    ];
    assert.deepEqual(planPoolOrder(pools, ['canary', 'b', 'x', 'lonely']), {
      waves: [{ pools: ['canary', 'lonely'] }, { pools: ['b'] }],
      blocked: ['x'],
      missing: { lonely: ['ghost'] },
    });
  });
});

describe('nodeherd plan with waves', () => {
  let cluster: CliCluster;
  const dir = mkdtempSync(join(tmpdir(), 'nodeherd-plan-waves-'));
  const files = (data: string) => ({ files: [{ path: '/etc/wave', content: { inline: { data } } }] });

  before(async () => {
    cluster = await CliCluster.start();
    await cluster.createConfig('wave-base', files('one\n'), { wave: 'w' });
    for (const [name, after] of [
      ['canary', []],
      ['eu', ['canary']],
      ['us', ['eu']],
    ] as const) {
      await cluster.createPool(name, {
        nodeSelector: { matchLabels: { pool: name } },
        configSelector: { matchLabels: { wave: 'w' } },
        updateStrategy: {
          type: 'RollingUpdate',
          ...(after.length ? { wave: { after: [...after], soakSeconds: 600 } } : {}),
        },
      });
      const revision = await cluster.createRevision(name, 1, { 'wave-base': files('one\n') });
      await cluster.setPoolStatus(name, { targetRevision: revision });
      await cluster.createNode({
        name: `${name}-1`,
        labels: { pool: name },
        current: revision,
        state: 'Done',
      });
    }
  });
  after(() => cluster?.stop());

  test('shows the waves in order, and each follower when it may start', async () => {
    const file = join(dir, 'wave.yaml');
    writeFileSync(
      file,
      stringify({
        apiVersion: 'nodeherd.io/v1alpha1',
        kind: 'NodeConfig',
        metadata: { name: 'wave-base', labels: { wave: 'w' } },
        spec: files('two\n'),
      }),
    );
    const result = await cluster.cli(['plan', '-f', file]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stdout,
      /order across pools \(a pool starts once those it waits for completed and soaked\):\n {2}wave 1: canary\n {2}wave 2: eu\n {2}wave 3: us\n/,
    );
    assert.match(
      result.stdout,
      /pool us {2}RollingUpdate[\s\S]*starts only after pool eu completed their current revision and soaked 600s/,
    );
    const json = JSON.parse((await cluster.cli(['plan', '-f', file, '-o', 'json'])).stdout);
    assert.deepEqual(json.order.waves, [{ pools: ['canary'] }, { pools: ['eu'] }, { pools: ['us'] }]);
  });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { revisionName } from '../../../src/api/hash.ts';
import { CURRENT_REVISION_ANNOTATION } from '../../../src/api/node-protocol.ts';
import { renderConfigs } from '../../../src/api/render.ts';
import type {
  NodeConfig,
  NodeConfigPool,
  NodeConfigPoolSpec,
  NodeConfigRevision,
  NodeConfigSpec,
} from '../../../src/api/types.ts';
import { renderPoolPlan } from '../../../src/cli/plan/plan-render.ts';
import { planPool } from '../../../src/cli/plan/pool-plan.ts';
import type { Node } from '../../../src/kube/types.ts';

const LABELS = { app: 'x' };

function config(name: string, spec: NodeConfigSpec, labels: Record<string, string> = LABELS): NodeConfig {
  return { apiVersion: 'nodeherd.io/v1alpha1', kind: 'NodeConfig', metadata: { name, labels }, spec };
}

function file(path: string, data: string): NodeConfigSpec {
  return { files: [{ path, content: { inline: { data } } }] };
}

function revision(pool: string, number: number, configs: NodeConfig[]): NodeConfigRevision {
  const r = renderConfigs(configs);
  return {
    apiVersion: 'nodeherd.io/v1alpha1',
    kind: 'NodeConfigRevision',
    metadata: { name: revisionName(pool, r.hash!) },
    spec: {
      pool,
      revision: number,
      hash: r.hash!,
      hashAlgorithm: r.hashAlgorithm,
      config: r.config!,
      sources: r.sources,
    },
  };
}

function node(name: string, current?: string, zone = ''): Node {
  return {
    metadata: {
      name,
      labels: { 'topology.kubernetes.io/zone': zone },
      annotations: current ? { [CURRENT_REVISION_ANNOTATION]: current } : {},
    },
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

function pool(
  updateStrategy: NodeConfigPoolSpec['updateStrategy'],
  target: string,
  extra: Partial<NodeConfigPoolSpec> = {},
): NodeConfigPool {
  return {
    apiVersion: 'nodeherd.io/v1alpha1',
    kind: 'NodeConfigPool',
    metadata: { name: 'p' },
    spec: { nodeSelector: {}, configSelector: { matchLabels: LABELS }, updateStrategy, ...extra },
    status: { targetRevision: target },
  };
}

const base = config('base', file('/etc/a', 'one'));
const r1 = revision('p', 1, [base]);
const nodes = ['n1', 'n2', 'n3', 'n4', 'n5'].map((n) => node(n, r1.metadata.name));
const change = config('base', file('/etc/a', 'two'));

test('Serial: waves of `slots` nodes, with the note that who goes first is not fixed', () => {
  const plan = planPool({
    pool: pool({ type: 'Serial', serial: { slots: 2 } }, r1.metadata.name),
    configs: [base],
    fileConfigs: [change],
    revisions: [r1],
    nodes,
  });
  assert.deepEqual(
    plan.batches.map((b) => b.nodes),
    [['n1', 'n2'], ['n3', 'n4'], ['n5']],
  );
  assert.match(plan.strategyNotes.join('\n'), /2 slots: at most 2 at once/);
  assert.deepEqual(plan.groups[0]?.changes.files.changed, ['/etc/a']);
  assert.equal(plan.revision?.number, 2);
});

test('OnDelete: nothing changes now; the action applies when a node is upgraded; new nodes get the revision', () => {
  const plan = planPool({
    pool: pool({ type: 'OnDelete' }, r1.metadata.name),
    configs: [base],
    fileConfigs: [change],
    revisions: [r1],
    nodes,
  });
  assert.equal(plan.batches.length, 0);
  assert.match(
    plan.strategyNotes[0]!,
    /existing nodes keep their revision: none of the 5 nodes below changes now; new nodes joining the pool get revision 2/,
  );
  assert.match(plan.strategyNotes[1]!, /nodeherd upgrade node <name>/);
  assert.ok(plan.nodes.every((n) => n.action === 'none' && n.batch === undefined));
});

test('OTA: the revision is offered to the owners; a paused pool says nothing starts', () => {
  const plan = planPool({
    pool: pool({ type: 'OTA' }, r1.metadata.name, { paused: true }),
    configs: [base],
    fileConfigs: [
      config('extra', {
        packages: [{ name: 'htop' }],
        units: [{ name: 'a.service', content: '[Service]\nExecStart=/bin/true\n' }],
      }),
    ],
    revisions: [r1],
    nodes,
  });
  assert.match(plan.strategyNotes.join('\n'), /offered to each node's owner .*POST \/v1\/update/);
  assert.match(plan.strategyNotes.join('\n'), /the pool is paused: nothing starts until nodeherd resume p/);
  assert.deepEqual(plan.configChanges, [{ name: 'extra', change: 'added' }]);
  assert.deepEqual(plan.groups[0]?.changes.packages.added, ['htop']);
  assert.deepEqual(plan.groups[0]?.changes.units.added, ['a.service']);
});

test('a conflict with another config of the pool is a problem and nothing is planned', () => {
  const plan = planPool({
    pool: pool({ type: 'RollingUpdate' }, r1.metadata.name),
    configs: [base],
    fileConfigs: [config('other', file('/etc/a', 'different'))],
    revisions: [r1],
    nodes,
  });
  assert.equal(plan.revision, undefined);
  assert.match(
    plan.problems[0]!,
    /^conflict: file \/etc\/a: content differs between NodeConfigs base and other/,
  );
  assert.equal(plan.nodes.length, 0);
});

test('a config whose new labels leave the pool is planned as removed; a node on a pruned revision plans from scratch', () => {
  const plan = planPool({
    pool: pool({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '40%' } }, r1.metadata.name),
    configs: [base, config('keep', file('/etc/k', 'k'))],
    fileConfigs: [config('base', file('/etc/a', 'one'), { app: 'elsewhere' })],
    revisions: [r1],
    nodes: [...nodes, node('n6', 'p-0000000000')],
  });
  assert.deepEqual(plan.configChanges, [{ name: 'base', change: 'removed' }]);
  assert.deepEqual(plan.sources, ['keep']);
  const fromR1 = plan.groups.find((g) => g.from === r1.metadata.name)!;
  assert.deepEqual(fromR1.changes.files, { added: ['/etc/k'], changed: [], removed: ['/etc/a'] });
  const pruned = plan.groups.find((g) => g.from === 'p-0000000000')!;
  assert.equal(pruned.fromMissing, true);
  // 40% of 6 nodes, rounded down: 2 at a time.
  assert.deepEqual(
    plan.batches.map((b) => b.nodes.length),
    [2, 2, 2],
  );
});

test('RollingUpdate with a monthly window: the plan says when it next opens, in UTC and its zone', () => {
  const windowed = (now: number) =>
    planPool({
      pool: pool(
        {
          type: 'RollingUpdate',
          rollingUpdate: {
            maintenanceWindows: [{ schedule: '0 2 1 * *', duration: '4h', timeZone: 'Europe/Berlin' }],
          },
        },
        r1.metadata.name,
      ),
      configs: [base],
      fileConfigs: [change],
      revisions: [r1],
      nodes,
      now,
    }).strategyNotes.join('\n');
  assert.match(
    windowed(Date.parse('2030-01-15T12:00:00Z')),
    /maintenance windows: 0 2 1 \* \* for 4h \(Europe\/Berlin\); the next opens 2030-02-01T01:00:00.000Z \(Fri 2030-02-01 02:00 Europe\/Berlin\)/,
  );
  assert.match(
    windowed(Date.parse('2030-02-01T02:00:00Z')),
    /; one is open until 2030-02-01T05:00:00.000Z, the next opens 2030-03-01T01:00:00.000Z/,
  );
  const wave = planPool({
    pool: pool({ type: 'RollingUpdate', wave: { after: ['canary'], soakSeconds: 600 } }, r1.metadata.name),
    configs: [base],
    fileConfigs: [change],
    revisions: [r1],
    nodes,
  });
  assert.match(
    wave.strategyNotes.join('\n'),
    /starts only after pool canary completed their current revision and soaked 600s/,
  );
});

test('a pool that selects no node: the plan warns that it updates nothing and is not Complete (NoNodes)', () => {
  const plan = planPool({
    pool: pool({ type: 'RollingUpdate' }, r1.metadata.name),
    configs: [base],
    fileConfigs: [change],
    revisions: [r1],
    nodes: [],
  });
  assert.equal(plan.nodes.length, 0);
  assert.ok(
    plan.warnings.some((w) => /nodeSelector selects no node.*Complete False \(NoNodes\)/.test(w)),
    JSON.stringify(plan.warnings),
  );
  const withNodes = planPool({
    pool: pool({ type: 'RollingUpdate' }, r1.metadata.name),
    configs: [base],
    fileConfigs: [change],
    revisions: [r1],
    nodes,
  });
  assert.ok(!withNodes.warnings.some((w) => /NoNodes/.test(w)));
});

test('a node whose OS asks for a reboot, in a pool that reboots them, gets the revision and the reboot in one step', () => {
  const asking = node('n2', r1.metadata.name);
  asking.status!.conditions!.push({
    type: 'nodeherd.io/RebootRequired',
    status: 'True',
    reason: 'SentinelFile',
  } as never);
  const members = [node('n1', r1.metadata.name), asking, node('n3', r1.metadata.name)];
  const planned = (policy: 'Reboot' | 'Report') =>
    planPool({
      pool: pool({ type: 'RollingUpdate' }, r1.metadata.name, {
        reboots: { osRequested: { policy } },
      } as never),
      configs: [base],
      fileConfigs: [change],
      revisions: [r1],
      nodes: members,
    });
  const reboot = planned('Reboot');
  assert.deepEqual(
    reboot.nodes.map((n) => [n.name, n.action]),
    [
      ['n1', 'none'],
      ['n2', 'reboot'],
      ['n3', 'none'],
    ],
  );
  assert.match(reboot.strategyNotes.join('\n'), /1 node waits for a reboot the OS asks for: .*rebooted once/);
  const report = planned('Report');
  assert.equal(report.nodes.find((n) => n.name === 'n2')?.action, 'none');
  assert.doesNotMatch(report.strategyNotes.join('\n'), /reboot the OS asks/);
});

test('a pool that pre-stages says so, and shows which nodes have downloaded the new revision’s packages', () => {
  const newName = planPool({
    pool: pool({ type: 'RollingUpdate' }, r1.metadata.name),
    configs: [base],
    fileConfigs: [change],
    revisions: [r1],
    nodes: [],
  }).revision?.name;
  assert.ok(newName);
  const told = (name: string, report?: object): Node => {
    const n = node(name, r1.metadata.name);
    n.metadata.annotations = {
      ...n.metadata.annotations,
      'nodeherd.io/prestage-revision': newName,
      ...(report ? { 'nodeherd.io/prestaged': JSON.stringify({ revision: newName, ...report }) } : {}),
    };
    return n;
  };
  const members = [
    told('n1', { outcome: 'Downloaded' }),
    told('n2'),
    told('n3', { outcome: 'Failed', message: 'E: x' }),
    node('n4', r1.metadata.name),
  ];
  const planned = planPool({
    pool: pool({ type: 'RollingUpdate' }, r1.metadata.name, { prestage: { maxConcurrent: 2 } } as never),
    configs: [base],
    fileConfigs: [change],
    revisions: [r1],
    nodes: members,
  });
  assert.deepEqual(
    planned.nodes.map((n) => [n.name, n.prestage]),
    [
      ['n1', 'pre-staged'],
      ['n2', 'downloading'],
      ['n3', 'download failed'],
      ['n4', undefined],
    ],
  );
  assert.match(
    planned.strategyNotes.join('\n'),
    /pre-staging: .*at most 2 at once.*unanswered after 900s.*before any drain/,
  );
  assert.match(renderPoolPlan(planned, { color: false, width: 0 }), /n1 .*\(pre-staged\)/);
});
test('the pool order: nodes listed and batched by a label value (or fewest pods), and said in a note', () => {
  const ranked = nodes.map((n, i) => ({
    ...n,
    metadata: { ...n.metadata, labels: { ...n.metadata.labels, rank: String(50 - i * 10) } },
  }));
  const byLabel = planPool({
    pool: pool({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } }, r1.metadata.name, {
      rolloutOrder: { by: 'Label', label: 'rank', preferNoScheduleNext: true },
    }),
    configs: [base],
    fileConfigs: [change],
    revisions: [r1],
    nodes: ranked,
  });
  assert.deepEqual(
    byLabel.nodes.map((n) => n.name),
    ['n5', 'n4', 'n3', 'n2', 'n1'],
  );
  assert.ok(
    byLabel.strategyNotes.some(
      (n) => /^order: by the value of node label rank/.test(n) && /PreferNoSchedule/.test(n),
    ),
    byLabel.strategyNotes.join('\n'),
  );
  const pod = (name: string, nodeName: string) => ({
    metadata: { name, namespace: 'default' },
    spec: { nodeName, containers: [] },
    status: { phase: 'Running' },
  });
  const fewest = planPool({
    pool: pool({ type: 'RollingUpdate' }, r1.metadata.name, { rolloutOrder: { by: 'FewestPods' } }),
    configs: [base],
    fileConfigs: [change],
    revisions: [r1],
    nodes,
    pods: [
      pod('a', 'n1'),
      pod('b', 'n1'),
      pod('c', 'n2'),
      pod('d', 'n4'),
      pod('e', 'n4'),
      pod('f', 'n4'),
    ] as never,
  });
  assert.deepEqual(
    fewest.nodes.map((n) => n.name),
    ['n3', 'n5', 'n2', 'n1', 'n4'],
  );
  const unread = planPool({
    pool: pool({ type: 'RollingUpdate' }, r1.metadata.name, { rolloutOrder: { by: 'FewestPods' } }),
    configs: [base],
    fileConfigs: [change],
    revisions: [r1],
    nodes,
  });
  assert.ok(unread.warnings.some((w) => /FewestPods but the pods could not be read/.test(w)));
  assert.ok(!fewest.warnings.some((w) => /FewestPods/.test(w)));
  const plain = planPool({
    pool: pool({ type: 'RollingUpdate' }, r1.metadata.name),
    configs: [base],
    fileConfigs: [change],
    revisions: [r1],
    nodes,
  });
  assert.ok(plain.strategyNotes.includes('order: zones interleaved, node names within a zone'));
});

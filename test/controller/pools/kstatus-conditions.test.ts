// GitOps tools can wait on a pool's rollout: the Ready, Reconciling and Stalled conditions judged by
// kstatus's rules (cli-utils pkg/kstatus, written here as a table), and Argo CD's health check run by
// Debian's lua5.1, the dialect Argo CD embeds, over the same fixtures.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { kstatusConditions } from '../../../src/controller/pools/kstatus-conditions.ts';

const REPO = join(import.meta.dirname, '../../..');
const LUA_FILE = join(REPO, 'examples/gitops/argocd/nodeconfigpool-health.lua');

type Cond = { type: string; status: 'True' | 'False' | 'Unknown'; reason: string; message: string };
type Pool = {
  metadata: { generation: number };
  spec: { paused?: boolean };
  status?: { observedGeneration?: number; conditions?: Cond[] };
};

/** kstatus's rules for a resource it has no special case for (generic.go), in their order. */
function kstatus(pool: Pool): 'InProgress' | 'Failed' | 'Current' {
  const status = pool.status;
  if (status?.observedGeneration !== undefined && status.observedGeneration !== pool.metadata.generation)
    return 'InProgress';
  const by = new Map((status?.conditions ?? []).map((c) => [c.type, c]));
  if (by.get('Reconciling')?.status === 'True') return 'InProgress';
  if (by.get('Stalled')?.status === 'True') return 'Failed';
  const ready = by.get('Ready');
  if (ready?.status === 'False') return 'InProgress';
  return 'Current';
}

const cond = (type: string, status: Cond['status'], reason: string, message = ''): Cond => ({
  type,
  status,
  reason,
  message,
});
const NOT_PAUSED = cond('Paused', 'False', 'NotPaused');
const NOT_ROLLED_BACK = cond('RolledBack', 'False', 'NotRolledBack');
const RENDERED = cond('RenderDegraded', 'False', 'Rendered');

const fixtures: {
  name: string;
  nodeherd: Cond[];
  paused?: boolean;
  observedGeneration?: number;
  kstatus: string;
  argo: string;
}[] = [
  {
    name: 'every node on the target',
    nodeherd: [
      cond('Progressing', 'False', 'RolloutComplete', 'every node runs workers-abc'),
      cond('Complete', 'True', 'RolloutComplete', '5 nodes on workers-abc'),
      NOT_PAUSED,
      NOT_ROLLED_BACK,
      RENDERED,
    ],
    kstatus: 'Current',
    argo: 'Healthy',
  },
  {
    name: 'a batch in flight',
    nodeherd: [
      cond('Progressing', 'True', 'RollingUpdate', '2/5 nodes on workers-abc, 1 node in flight'),
      cond('Complete', 'False', 'RolloutInProgress', '2/5'),
      NOT_PAUSED,
      NOT_ROLLED_BACK,
      RENDERED,
    ],
    kstatus: 'InProgress',
    argo: 'Progressing',
  },
  {
    name: 'outside its maintenance window',
    nodeherd: [
      cond('Progressing', 'False', 'OutsideMaintenanceWindow', 'next window opens at 02:00'),
      cond('Complete', 'False', 'RolloutInProgress', '2/5'),
      NOT_PAUSED,
      NOT_ROLLED_BACK,
      RENDERED,
    ],
    kstatus: 'InProgress',
    argo: 'Progressing',
  },
  {
    name: 'paused by the user mid-rollout',
    paused: true,
    nodeherd: [
      cond('Progressing', 'False', 'Paused', 'paused'),
      cond('Complete', 'False', 'RolloutInProgress', '2/5'),
      cond('Paused', 'True', 'PausedByUser', 'spec.paused is true'),
      NOT_ROLLED_BACK,
      RENDERED,
    ],
    kstatus: 'InProgress',
    argo: 'Suspended',
  },
  {
    name: 'paused by the failure policy',
    paused: true,
    nodeherd: [
      cond('Progressing', 'False', 'FailurePolicy', 'stopped'),
      cond('Complete', 'False', 'RolloutInProgress', '2/5'),
      cond('Paused', 'True', 'FailurePolicy', 'node-2 failed: unit kubelet.service failed'),
      NOT_ROLLED_BACK,
      RENDERED,
    ],
    kstatus: 'Failed',
    argo: 'Degraded',
  },
  {
    name: 'rolled back and pinned',
    nodeherd: [
      cond('Progressing', 'False', 'RolloutComplete', 'every node runs workers-old'),
      cond('Complete', 'True', 'RolloutComplete', '5 nodes on workers-old'),
      NOT_PAUSED,
      cond('RolledBack', 'True', 'AutomaticRollback', 'canary node-1 failed workers-new'),
      RENDERED,
    ],
    kstatus: 'Failed',
    argo: 'Degraded',
  },
  {
    name: 'configs that conflict',
    nodeherd: [
      cond('Progressing', 'False', 'RolloutComplete', 'every node runs workers-abc'),
      cond('Complete', 'True', 'RolloutComplete', '5 nodes on workers-abc'),
      NOT_PAUSED,
      NOT_ROLLED_BACK,
      cond('RenderDegraded', 'True', 'ConfigConflict', 'a and b both write /etc/x'),
    ],
    kstatus: 'Failed',
    argo: 'Degraded',
  },
  {
    name: 'failed nodes hold the budget',
    nodeherd: [
      cond('Progressing', 'False', 'Stalled', '3/5; stalled: 2 failed nodes hold the budget'),
      cond('Complete', 'False', 'RolloutInProgress', '3/5'),
      NOT_PAUSED,
      NOT_ROLLED_BACK,
      RENDERED,
    ],
    kstatus: 'Failed',
    argo: 'Degraded',
  },
  {
    // A typo in a nodeSelector does not fix itself (issue 33); nodes joining later end it.
    name: 'a nodeSelector that selects no node',
    nodeherd: [
      cond('Progressing', 'False', 'NoNodes', 'spec.nodeSelector selects no node'),
      cond('Complete', 'False', 'NoNodes', 'spec.nodeSelector selects no node'),
      NOT_PAUSED,
      NOT_ROLLED_BACK,
      RENDERED,
    ],
    kstatus: 'Failed',
    argo: 'Degraded',
  },
  {
    name: 'a rollout held while its configs settle',
    nodeherd: [
      cond('Progressing', 'False', 'RenderHeld', 'rollout of workers-abc held while the NodeConfigs settle'),
      cond('Complete', 'False', 'RenderHeld', 'rollout of workers-abc held'),
      NOT_PAUSED,
      NOT_ROLLED_BACK,
      cond('RenderDegraded', 'False', 'Settling', 'waiting for the NodeConfigs to settle'),
    ],
    kstatus: 'InProgress',
    argo: 'Progressing',
  },
  {
    name: 'a spec change the controller has not seen yet',
    observedGeneration: 1,
    nodeherd: [
      cond('Progressing', 'False', 'RolloutComplete', 'every node runs workers-abc'),
      cond('Complete', 'True', 'RolloutComplete', '5 nodes on workers-abc'),
      NOT_PAUSED,
      NOT_ROLLED_BACK,
      RENDERED,
    ],
    kstatus: 'InProgress',
    argo: 'Progressing',
  },
];

function poolOf(fixture: (typeof fixtures)[number]): Pool {
  return {
    metadata: { generation: 2 },
    spec: fixture.paused ? { paused: true } : {},
    status: {
      observedGeneration: fixture.observedGeneration ?? 2,
      conditions: [...fixture.nodeherd, ...kstatusConditions(fixture.nodeherd)],
    },
  };
}

test('kstatus judges each pool state as a GitOps tool should wait on it', () => {
  for (const fixture of fixtures) assert.equal(kstatus(poolOf(fixture)), fixture.kstatus, fixture.name);
});

test('Reconciling and Stalled are never both True, and Ready is True only when Complete is', () => {
  for (const fixture of fixtures) {
    const by = new Map(kstatusConditions(fixture.nodeherd).map((c) => [c.type, c.status]));
    assert.ok(!(by.get('Reconciling') === 'True' && by.get('Stalled') === 'True'), fixture.name);
    const complete = fixture.nodeherd.find((c) => c.type === 'Complete')?.status === 'True';
    if (by.get('Ready') === 'True') assert.ok(complete, fixture.name);
  }
});

/** A JSON value as a Lua table constructor. */
function lua(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `{${value.map(lua).join(', ')}}`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `[${JSON.stringify(k)}] = ${lua(v)}`)
    .join(', ')}}`;
}

const hasLua = spawnSync('lua5.1', ['-v']).status === 0;

test('the Argo CD health check (lua5.1) says Healthy, Progressing, Suspended or Degraded as kstatus does', {
  skip: hasLua ? false : 'lua5.1 is not installed (Debian package lua5.1)',
}, () => {
  const check = readFileSync(LUA_FILE, 'utf8');
  for (const fixture of fixtures) {
    const script = `obj = ${lua(poolOf(fixture))}\nlocal hs = (function()\n${check}\nend)()\nprint(hs.status)\nprint(hs.message)\n`;
    const [status, message] = execFileSync('lua5.1', ['-'], { input: script, encoding: 'utf8' }).split('\n');
    assert.equal(status, fixture.argo, `${fixture.name}: ${message}`);
  }
  // A pool the controller has not written a status for yet.
  const fresh = execFileSync('lua5.1', ['-'], {
    input: `obj = ${lua({ metadata: { generation: 1 }, spec: {} })}\nlocal hs = (function()\n${check}\nend)()\nprint(hs.status)\n`,
    encoding: 'utf8',
  });
  assert.equal(fresh.trim(), 'Progressing');
});

test('the argocd-cm example carries the same Lua as the file the test runs', () => {
  const cm = parse(readFileSync(join(REPO, 'examples/gitops/argocd/argocd-cm-patch.yaml'), 'utf8'));
  assert.equal(
    cm.data['resource.customizations.health.nodeherd.io_NodeConfigPool'],
    readFileSync(LUA_FILE, 'utf8'),
  );
});

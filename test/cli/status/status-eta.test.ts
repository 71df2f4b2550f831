// `nodeherd status`'s ETA of a rollout under way puts the waiting nodes in the pool's own order
// (spec.rolloutOrder), as the controller will move them: the batches, hence the time, depend on it.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { revisionName } from '../../../src/api/hash.ts';
import { CURRENT_REVISION_ANNOTATION } from '../../../src/api/node-protocol.ts';
import { renderConfigs } from '../../../src/api/render.ts';
import type {
  NodeConfigPool,
  NodeConfigPoolSpec,
  NodeConfigRevision,
  NodeConfigSpec,
} from '../../../src/api/types.ts';
import { APPLY_SECONDS } from '../../../src/cli/rollout-eta.ts';
import { statusEta } from '../../../src/cli/status/status-eta.ts';
import type { Node } from '../../../src/kube/types.ts';

// A change of /etc/a reboots; a change of /etc/b alone disrupts nothing.
const POLICIES: NodeConfigSpec['disruptionPolicies'] = {
  files: [{ path: '/etc/b', action: 'None' }],
  default: 'Reboot',
};

function revision(number: number, a: string, b: string): NodeConfigRevision {
  const r = renderConfigs([
    {
      apiVersion: 'nodeherd.io/v1alpha1',
      kind: 'NodeConfig',
      metadata: { name: 'base', labels: { app: 'x' } },
      spec: {
        files: [
          { path: '/etc/a', content: { inline: { data: a } } },
          { path: '/etc/b', content: { inline: { data: b } } },
        ],
        disruptionPolicies: POLICIES,
      },
    },
  ]);
  return {
    apiVersion: 'nodeherd.io/v1alpha1',
    kind: 'NodeConfigRevision',
    metadata: { name: revisionName('p', r.hash!) },
    spec: {
      pool: 'p',
      revision: number,
      hash: r.hash!,
      hashAlgorithm: r.hashAlgorithm,
      config: r.config!,
      sources: r.sources,
    },
  };
}

const rebooting = revision(1, 'one', 'same'); // → target: /etc/a changes, a reboot
const quiet = revision(2, 'two', 'old'); // → target: only /etc/b changes, nothing disrupted
const target = revision(3, 'two', 'same');

function node(name: string, from: NodeConfigRevision, tier: string): Node {
  return {
    metadata: { name, labels: { tier }, annotations: { [CURRENT_REVISION_ANNOTATION]: from.metadata.name } },
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

// By name (the interleaved default) they alternate: each batch of two holds a reboot.
const members = [
  node('n1', rebooting, 'a'),
  node('n2', quiet, 'b'),
  node('n3', rebooting, 'a'),
  node('n4', quiet, 'b'),
];

function pool(extra: Partial<NodeConfigPoolSpec>): NodeConfigPool {
  return {
    apiVersion: 'nodeherd.io/v1alpha1',
    kind: 'NodeConfigPool',
    metadata: { name: 'p' },
    spec: {
      nodeSelector: {},
      configSelector: { matchLabels: { app: 'x' } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2, minReadySeconds: 10 } },
      ...extra,
    },
    status: { targetRevision: target.metadata.name },
  };
}

const now = Date.parse('2030-01-01T00:00:00Z');
const revisions = [rebooting, quiet, target];

test('status ETA: the interleaved order puts a reboot in both batches', () => {
  const eta = statusEta(pool({}), members, revisions, now);
  assert.ok(eta && 'eta' in eta, JSON.stringify(eta));
  assert.equal(eta.eta.seconds, 2 * (APPLY_SECONDS.reboot + 10));
});

test('status ETA: rolloutOrder by Label moves tier a together, so only the first batch reboots', () => {
  const eta = statusEta(pool({ rolloutOrder: { by: 'Label', label: 'tier' } }), members, revisions, now);
  assert.ok(eta && 'eta' in eta, JSON.stringify(eta));
  assert.equal(eta.eta.seconds, APPLY_SECONDS.reboot + 10 + APPLY_SECONDS.none + 10);
});

test('status ETA: rolloutOrder by Zone with one zone is the interleaved order', () => {
  const eta = statusEta(pool({ rolloutOrder: { by: 'Zone' } }), members, revisions, now);
  assert.ok(eta && 'eta' in eta, JSON.stringify(eta));
  assert.equal(eta.eta.seconds, 2 * (APPLY_SECONDS.reboot + 10));
});

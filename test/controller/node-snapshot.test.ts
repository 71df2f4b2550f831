import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { NodeHealthTracker } from '../../src/controller/node-health-tracker.ts';
import {
  agentReport,
  kubeTimestamp,
  readNodeFacts,
  snapshotNode,
} from '../../src/controller/node-snapshot.ts';
import type { Node } from '../../src/kube/types.ts';

function node(annotations: Record<string, string>, ready = 'True', over: Partial<Node> = {}): Node {
  return {
    metadata: {
      name: 'n1',
      creationTimestamp: '2030-01-01T00:00:00Z',
      labels: { 'topology.kubernetes.io/zone': 'z1' },
      annotations,
    },
    spec: {},
    status: {
      conditions: [
        { type: 'Ready', status: ready as 'True', lastTransitionTime: '2030-01-01T00:10:00Z' },
        { type: 'NodeConfigReady', status: 'True', lastTransitionTime: '2030-01-01T00:10:05Z' },
      ],
    },
    ...over,
  };
}

const done = (rev: string) => ({
  'nodeherd.io/desired-revision': rev,
  'nodeherd.io/current-revision': rev,
  'nodeherd.io/state': 'Done',
  'nodeherd.io/message': `revision ${rev} applied`,
});

function context(health = new NodeHealthTracker(), now = Date.parse('2030-01-01T01:00:00Z')) {
  return {
    zoneLabel: 'topology.kubernetes.io/zone',
    target: 'p-2',
    needsDrain: (from: string | undefined, to: string) => from === 'p-1' && to === 'p-2',
    podsReady: () => true,
    drainBlocked: () => undefined,
    health,
    now,
  };
}

describe('node snapshot', () => {
  test('Kubernetes times of second precision count as the end of their second', () => {
    assert.equal(kubeTimestamp('2030-01-01T00:00:00Z'), Date.parse('2030-01-01T00:00:00Z') + 999);
    assert.equal(kubeTimestamp('2030-01-01T00:00:00.250Z'), Date.parse('2030-01-01T00:00:00.250Z'));
    assert.equal(kubeTimestamp(undefined), undefined);
  });

  test('reads the protocol annotations, the controller marks and the conditions', () => {
    const facts = readNodeFacts(
      node(
        {
          ...done('p-1'),
          'nodeherd.io/cordoned-by': 'nodeherd-controller',
          'nodeherd.io/draining-for': 'p-2',
          'nodeherd.io/update-started': '2030-01-01T00:30:00.123Z',
        },
        'True',
        { spec: { unschedulable: true } },
      ),
      'topology.kubernetes.io/zone',
    );
    assert.deepEqual(facts, {
      name: 'n1',
      zone: 'z1',
      ready: true,
      deleting: false,
      cordoned: true,
      cordonedByUs: true,
      configReady: true,
      desiredRevision: 'p-1',
      currentRevision: 'p-1',
      agentState: 'Done',
      agentMessage: 'revision p-1 applied',
      drainingFor: 'p-2',
      updateStartedAt: Date.parse('2030-01-01T00:30:00.123Z'),
      createdAt: Date.parse('2030-01-01T00:00:00Z') + 999,
      readyChangedAt: Date.parse('2030-01-01T00:10:00Z') + 999,
      conditionsSince: Date.parse('2030-01-01T00:10:05Z') + 999,
    });
  });

  test("a node that is not Ready carries its Ready condition's reason; a Ready one none", () => {
    const withReady = (ready: { status: 'True' | 'False' | 'Unknown'; reason?: string } | undefined) =>
      node(done('p-1'), 'True', {
        status: {
          conditions: ready ? [{ type: 'Ready', ...ready, lastTransitionTime: '2030-01-01T00:10:00Z' }] : [],
        },
      });
    assert.equal(
      readNodeFacts(withReady({ status: 'True', reason: 'KubeletReady' }), 'z').notReadyReason,
      undefined,
    );
    assert.equal(
      readNodeFacts(withReady({ status: 'Unknown', reason: 'NodeStatusUnknown' }), 'z').notReadyReason,
      'NodeStatusUnknown',
    );
    assert.equal(readNodeFacts(withReady({ status: 'False' }), 'z').notReadyReason, 'Ready=False');
    assert.equal(readNodeFacts(withReady(undefined), 'z').notReadyReason, 'no Ready condition');
  });

  test('a ConfigDrift condition that is True marks the node drifted; False or absent does not', () => {
    const withDrift = (status: 'True' | 'False') =>
      node(done('p-1'), 'True', {
        status: {
          conditions: [
            { type: 'Ready', status: 'True', lastTransitionTime: '2030-01-01T00:10:00Z' },
            { type: 'ConfigDrift', status, lastTransitionTime: '2030-01-01T00:20:00Z' },
          ],
        },
      });
    assert.equal(readNodeFacts(withDrift('True'), 'zone').drifted, true);
    assert.equal(readNodeFacts(withDrift('False'), 'zone').drifted, undefined);
    assert.equal(readNodeFacts(node(done('p-1')), 'zone').drifted, undefined);
  });

  test('the plan decides the drain; healthy since the conditions when not seen turning healthy', () => {
    const s = snapshotNode(node(done('p-1')), context());
    assert.equal(s.needsDrain, true);
    assert.equal(s.healthySince, Date.parse('2030-01-01T00:10:05Z') + 999);
  });

  test('a node seen turning healthy is healthy since that moment', () => {
    const health = new NodeHealthTracker();
    const at = Date.parse('2030-01-01T01:00:00Z');
    const applying = {
      ...done('p-2'),
      'nodeherd.io/current-revision': 'p-1',
      'nodeherd.io/state': 'Applying',
    };
    snapshotNode(node(applying), context(health, at));
    const s = snapshotNode(node(done('p-2')), context(health, at + 1_500));
    assert.equal(s.healthySince, at + 1_500);
    assert.equal(s.wasHealthy, false, 'no update started by the controller');
  });

  test('the deadline counts from the update-started, or from when this process first saw an older update', () => {
    const health = new NodeHealthTracker();
    const at = Date.parse('2030-01-01T01:00:00Z');
    const inFlight = (started: string) => ({
      'nodeherd.io/desired-revision': 'p-2',
      'nodeherd.io/current-revision': 'p-1',
      'nodeherd.io/state': 'Applying',
      'nodeherd.io/update-started': started,
    });
    // Started long before this process looked (an outage): counted from the first sight, and it stays so.
    const old = inFlight('2030-01-01T00:00:00.000Z');
    assert.equal(snapshotNode(node(old, 'False'), context(health, at)).deadlineFrom, at);
    assert.equal(snapshotNode(node(old, 'False'), context(health, at + 5_000)).deadlineFrom, at);
    // An update started while we watch counts from its stamp.
    const fresh = inFlight('2030-01-01T01:00:02.000Z');
    assert.equal(
      snapshotNode(node(fresh), context(health, at + 6_000)).deadlineFrom,
      Date.parse('2030-01-01T01:00:02.000Z'),
    );
  });

  test('a Failed left from the previous revision is not held against the new one until the agent reacts', () => {
    const health = new NodeHealthTracker();
    const failedOld = {
      'nodeherd.io/desired-revision': 'p-2',
      'nodeherd.io/current-revision': 'p-1',
      'nodeherd.io/state': 'Failed',
      'nodeherd.io/message': 'revision p-1b failed: probe',
      'nodeherd.io/update-started': '2030-01-01T00:59:00.000Z',
    };
    assert.equal(
      snapshotNode(node(failedOld), context(health)).agentState,
      undefined,
      'the message names another revision',
    );
    const vague = { ...failedOld, 'nodeherd.io/message': 'it broke' };
    health.noteStart('n1', 'p-2', agentReport(node(vague)));
    assert.equal(
      snapshotNode(node(vague), context(health)).agentState,
      undefined,
      'unchanged since the start',
    );
    const again = { ...vague, 'nodeherd.io/message': 'it broke again' };
    assert.equal(snapshotNode(node(again), context(health)).agentState, 'Failed', 'a new report counts');
  });

  test('a report that comes back to the same state after the start is not stale', () => {
    const health = new NodeHealthTracker();
    const before = done('p-1');
    health.noteStart('n1', 'p-2', agentReport(node(before)));
    const after = done('p-2');
    assert.equal(snapshotNode(node(after), context(health)).agentState, 'Done');
  });
});

// issue 36: the pool's status records what happened to its nodes as it happens (failed, rolled back,
// NotReady, drain, reboot, reached the target), so a timeline rebuilt later still shows it; bounded.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_EPISODES_BYTES } from '../../../src/api/pool-episodes-schema.ts';
import { type PoolEpisode, recordEpisodes } from '../../../src/controller/pools/pool-episodes.ts';
import type { NodeSnapshot } from '../../../src/controller/rollout/types.ts';

const T0 = Date.parse('2026-11-29T06:00:00Z');

function node(name: string, extra: Partial<NodeSnapshot> = {}): NodeSnapshot {
  return {
    name,
    zone: '',
    ready: true,
    deleting: false,
    cordoned: false,
    cordonedByUs: false,
    configReady: true,
    podsReady: true,
    wasHealthy: true,
    needsDrain: false,
    currentRevision: 'p-1',
    desiredRevision: 'p-1',
    agentState: 'Done',
    ...extra,
  };
}

function step(previous: PoolEpisode[] | undefined, nodes: NodeSnapshot[], at: number, target = 'p-2') {
  return recordEpisodes({ previous, nodes, target, rollingBack: false, now: T0 + at }).episodes;
}

describe('pool episodes', () => {
  it('records a failure with its excerpt, and keeps it after the node is rolled back and healthy', () => {
    const failedMsg =
      'revision p-2 failed: unit kubelet.service failed (failed): "command failed" err="maxPods…"';
    const detail =
      'revision p-2 failed; rolled back to p-1: unit kubelet.service failed (failed)\njournalctl -u kubelet.service -n 20:\n  …';
    let e = step(undefined, [node('a', { desiredRevision: 'p-2', updateStartedAt: T0 })], 0);
    e = step(
      e,
      [
        node('a', {
          desiredRevision: 'p-2',
          agentState: 'Failed',
          agentMessage: failedMsg,
          failureDetail: detail,
          configReady: false,
          updateStartedAt: T0,
        }),
      ],
      2000,
    );
    assert.deepEqual(
      e.map((x) => [x.node, x.kind, x.revision, x.to]),
      [['a', 'Failed', 'p-2', undefined]],
    );
    assert.equal(e[0]?.message, `${failedMsg}\njournalctl -u kubelet.service -n 20:\n  …`);
    // The pool rolls back: the node is given p-1 again and is healthy on it.
    e = recordEpisodes({
      previous: e,
      nodes: [node('a', { updateStartedAt: T0 + 3000 })],
      target: 'p-1',
      rollingBack: true,
      now: T0 + 4000,
    }).episodes;
    assert.deepEqual(
      e.map((x) => [x.kind, x.revision, x.from, x.to]),
      [
        ['Failed', 'p-2', '2026-11-29T06:00:02.000Z', '2026-11-29T06:00:04.000Z'],
        ['RolledBack', 'p-1', '2026-11-29T06:00:04.000Z', undefined],
      ],
    );
    // An unchanged world: the same list (no status write).
    const again = recordEpisodes({
      previous: e,
      nodes: [node('a', { updateStartedAt: T0 + 3000 })],
      target: 'p-1',
      rollingBack: true,
      now: T0 + 9000,
    }).episodes;
    assert.equal(again, e, 'the very same list');
  });

  it('records NotReady from the condition’s transition to its return, drains and reboots', () => {
    let e = step(
      undefined,
      [node('b', { ready: false, readyChangedAt: T0 + 500, notReadyReason: 'KubeletNotReady' })],
      1000,
    );
    e = step(
      e,
      [node('b', { readyChangedAt: T0 + 1500, drainingFor: 'p-2', drainBlocked: 'PDB web' })],
      2000,
    );
    e = step(e, [node('b', { rebootRequested: 'r1', desiredRevision: 'p-2' })], 3000);
    e = step(e, [node('b', { rebootRequested: 'r1', rebooted: 'r1' })], 4000);
    assert.deepEqual(
      e.map((x) => [x.kind, x.from.slice(17, 23), x.to?.slice(17, 23), x.message]),
      [
        ['NotReady', '00.500', '01.500', 'KubeletNotReady'],
        ['Drain', '02.000', '03.000', 'PDB web'],
        ['Reboot', '03.000', '04.000', undefined],
      ],
    );
  });

  it('notes a node reaching the target once per update', () => {
    const on = (at: number) =>
      node('c', { currentRevision: 'p-2', desiredRevision: 'p-2', updateStartedAt: at });
    let e = step(undefined, [on(T0)], 1000);
    e = step(e, [on(T0)], 2000);
    assert.deepEqual(
      e.map((x) => [x.kind, x.revision]),
      [['Updated', 'p-2']],
    );
    e = step(e, [on(T0 + 5000)], 6000); // updated again (a reboot round): a second arrival
    assert.equal(e.filter((x) => x.kind === 'Updated').length, 2);
  });

  it('stays within its byte bound, dropping the oldest finished episodes first', () => {
    let e: PoolEpisode[] | undefined;
    const long = 'x'.repeat(3000);
    for (let i = 0; i < 60; i++) {
      const failing = node(`n${i}`, { agentState: 'Failed', agentMessage: `revision p-2 failed: ${long}` });
      e = step(e, [failing], i * 10);
      e = step(e, [node(`n${i}`)], i * 10 + 5);
    }
    const open = node('open', { agentState: 'Failed', agentMessage: 'revision p-2 failed: still' });
    e = step(e, [open], 1000);
    assert.ok(Buffer.byteLength(JSON.stringify(e)) <= MAX_EPISODES_BYTES);
    assert.equal(e.at(-1)?.node, 'open', 'the open episode stays');
    assert.ok(!e.some((x) => x.node === 'n0'), 'the oldest went');
    assert.ok(
      e.some((x) => x.node === 'n59'),
      'the newest stayed',
    );
  });

  it('a large pool: arrivals give way first and, once dropped, are not recorded again', () => {
    const nodes = Array.from({ length: 2000 }, (_, i) =>
      node(`big-${i}`, { currentRevision: 'p-2', desiredRevision: 'p-2', updateStartedAt: T0 + i }),
    );
    const failed = node('sick', { agentState: 'Failed', agentMessage: 'revision p-2 failed: x' });
    let record = recordEpisodes({
      previous: undefined,
      nodes: [failed],
      target: 'p-2',
      rollingBack: false,
      now: T0,
    });
    record = recordEpisodes({
      previous: record.episodes,
      nodes: [node('sick'), ...nodes],
      target: 'p-2',
      rollingBack: false,
      now: T0 + 5000,
    });
    assert.ok(Buffer.byteLength(JSON.stringify(record.episodes)) <= MAX_EPISODES_BYTES);
    assert.ok(record.droppedBefore !== undefined, 'says that it dropped some');
    assert.ok(
      record.episodes.some((x) => x.kind === 'Failed'),
      'the finished failure outlives the arrivals',
    );
    const again = recordEpisodes({
      previous: record.episodes,
      droppedBefore: record.droppedBefore,
      nodes: [node('sick'), ...nodes],
      target: 'p-2',
      rollingBack: false,
      now: T0 + 6000,
    });
    assert.equal(again.episodes, record.episodes, 'no churn: the dropped arrivals stay dropped');
  });
});

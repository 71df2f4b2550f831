// A Serial slot holder that dies and one that restarts, with the real agent binary (killed by
// NODEHERD_AGENT_CRASH_AT in the middle of its apply): a dead holder's slot is taken over once it has
// not been renewed for a lease duration and the others proceed; a holder whose agent comes back
// re-adopts its own slot and finishes before anyone else gets it.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../../support/eventually.ts';
import {
  type Cluster,
  createNode,
  createRevision,
  demoServiceSpec,
  startCluster,
  startNode,
  waitForState,
} from '../agent-harness.ts';
import { agentPaths, killAllAgentProcesses, startAgentProcess } from '../agent-process.ts';
import { gateSerial, LeaseHistory, NodeStateHistory } from '../serial-support.ts';

/** The holder's process kills itself before its second action, slot held and apply half done. */
const CRASH_MID_APPLY = { NODEHERD_AGENT_CRASH_AT: '1:before' };

describe('Serial slot holders that die or restart', () => {
  let cluster: Cluster;

  before(async () => {
    cluster = await startCluster();
  });
  after(async () => {
    await killAllAgentProcesses();
    await cluster?.stop();
  });

  it('a dead holder’s slot is reclaimed after the lease duration and the others proceed', async () => {
    const revision = await createRevision(cluster, 'dies', demoServiceSpec('1'));
    const gate = { pool: 'dies', slots: 1, leaseDurationSeconds: 4 };
    const leases = await LeaseHistory.start(cluster.admin, 'dies');
    try {
      // The others run from the start, so they are gated the moment the holder is dead.
      const others = ['dies-b', 'dies-c'];
      for (const name of others) await startNode(cluster, name);
      const states = await NodeStateHistory.start(cluster.admin, others);
      await createNode(cluster, 'dies-a');
      const paths = await agentPaths(cluster, 'dies-a');
      const holder = startAgentProcess(paths, { env: CRASH_MID_APPLY });
      await gateSerial(cluster, 'dies-a', revision.metadata.name, gate);
      const exit = await holder.exited;
      assert.equal(
        exit.signal,
        'SIGKILL',
        `the holder died mid-apply: ${JSON.stringify(holder.lines.slice(-3))}`,
      );
      await eventually('the dead holder seen holding the slot', () =>
        leases.versions.at(-1)?.holder === 'dies-a' ? true : undefined,
      );
      await Promise.all(others.map((name) => gateSerial(cluster, name, revision.metadata.name, gate)));
      for (const name of others) await waitForState(cluster, name, 'Done', 60_000);
      states.stop();
      assert.ok(
        states.messages.some((m) => m.message === 'waiting for a Serial slot: 1 of 1 held by dies-a'),
        'the waiting nodes named the dead holder',
      );
      const takeovers = leases.takeovers();
      assert.equal(takeovers.length, 1, JSON.stringify(takeovers));
      assert.equal(takeovers[0]?.from, 'dies-a');
      // Not before the dead holder's lease ran out (measured here, so allow for delivery delays).
      assert.ok((takeovers[0]?.afterMs ?? 0) >= 3000, `taken over after ${takeovers[0]?.afterMs} ms`);
      assert.equal(states.maxApplying, 1);

      // The dead node's agent comes back: its apply was under way, so it finishes it.
      const back = startAgentProcess(paths);
      await waitForState(cluster, 'dies-a', 'Done', 60_000);
      await back.kill('SIGTERM');
    } finally {
      leases.stop();
    }
  });

  it('a holder whose agent restarts re-adopts its own slot; nobody takes it meanwhile', async () => {
    const revision = await createRevision(cluster, 'again', demoServiceSpec('1'));
    const gate = { pool: 'again', slots: 1, leaseDurationSeconds: 15 };
    const leases = await LeaseHistory.start(cluster.admin, 'again');
    try {
      await createNode(cluster, 'again-a');
      const paths = await agentPaths(cluster, 'again-a');
      const first = startAgentProcess(paths, { env: CRASH_MID_APPLY });
      await gateSerial(cluster, 'again-a', revision.metadata.name, gate);
      await first.exited;
      await startNode(cluster, 'again-b');
      await gateSerial(cluster, 'again-b', revision.metadata.name, gate);
      await waitForState(cluster, 'again-b', 'Waiting');

      const second = startAgentProcess(paths);
      await waitForState(cluster, 'again-a', 'Done', 60_000);
      assert.ok(
        second.lines.some((l) => l.msg === 'serial slot re-adopted'),
        `re-adopted: ${JSON.stringify(second.lines.filter((l) => /serial/.test(l.msg)))}`,
      );
      await waitForState(cluster, 'again-b', 'Done', 60_000);
      // Well within the 15 s lease: b got the slot from a's release, not by expiry.
      assert.deepEqual(leases.takeovers(), []);
      await eventually('slot free at the end', () =>
        leases.versions.at(-1)?.holder === undefined ? true : undefined,
      );
      await second.kill('SIGTERM');
    } finally {
      leases.stop();
    }
  });
});

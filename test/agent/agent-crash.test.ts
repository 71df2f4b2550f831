// Crash test: the agent runs as a child process (bin/nodeherd-agent.ts, real files in a temporary
// root, simulated systemd that outlives it) and is killed with SIGKILL at random points of applies,
// either from outside at a random moment or by itself at a chosen step (NODEHERD_AGENT_CRASH_AT).
// After every kill: no managed file is torn (each holds one revision's content or is absent). After
// every restart: the agent converges to the desired revision, and never starts an action that the
// journal showed done when it was killed.

import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DurableSimulatedSystemd } from '../../src/agent/executors/durable-simulated-systemd.ts';
import { parseJournal } from '../../src/agent/state/apply-journal.ts';
import type { NodeConfigRevision, NodeConfigSpec } from '../../src/api/types.ts';
import { eventually } from '../support/eventually.ts';
import {
  type Cluster,
  createNode,
  createRevision,
  getNode,
  setDesired,
  startCluster,
} from './agent-harness.ts';
import {
  type AgentProcess,
  type AgentProcessPaths,
  agentPaths,
  killAllAgentProcesses,
  startAgentProcess,
} from './agent-process.ts';

const NODES = 4;
const TRIALS_PER_NODE = 13; // 52 kills in all
const DURATIONS = {
  restart: 12,
  start: 8,
  stop: 6,
  daemonReload: 10,
  writeUnit: 2,
  enable: 2,
  disable: 2,
  removeUnit: 2,
};
const CRASH_POINTS = ['before', 'executed', 'journaled'] as const;

function crashSpec(version: 'A' | 'B'): NodeConfigSpec {
  // A and B differ in every file; each also has a file and a unit the other lacks.
  const indices =
    version === 'A' ? [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] : [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12];
  const units = version === 'A' ? [0, 1, 2, 3] : [0, 1, 2, 4];
  return {
    files: indices.map((i) => ({
      path: `/etc/crash/f${i}.conf`,
      mode: version === 'A' ? 0o644 : 0o640,
      content: { inline: { data: `${version}${i}:`.padEnd(48 * 1024, version) } },
    })),
    units: units.map((u) => ({
      name: `crash${u}.service`,
      content: `[Service]\nExecStart=/bin/crash${u}\n`,
      filePaths: indices.filter((i) => i % 4 === u % 4).map((i) => `/etc/crash/f${i}.conf`),
    })),
  };
}

function random(n: number): number {
  return Math.floor(Math.random() * n);
}

interface Revisions {
  A: NodeConfigRevision;
  B: NodeConfigRevision;
}

/** Every managed path holds one revision's exact bytes, or nothing. */
async function assertNoTornFile(paths: AgentProcessPaths, revisions: Revisions): Promise<void> {
  const versions = new Map<string, Set<string>>();
  for (const revision of [revisions.A, revisions.B]) {
    for (const file of revision.spec.config.files) {
      const set = versions.get(file.path) ?? new Set();
      set.add(file.content.inline!.data);
      versions.set(file.path, set);
    }
  }
  for (const [path, allowed] of versions) {
    let content: string;
    try {
      content = await readFile(join(paths.root, path), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    assert.ok(allowed.has(content), `${path} is torn (${content.length} bytes: ${content.slice(0, 12)}…)`);
  }
}

async function journalDone(
  paths: AgentProcessPaths,
): Promise<{ hash: string; done: Set<string> } | undefined> {
  try {
    const { snapshot } = parseJournal(await readFile(join(paths.stateDir, 'apply-journal.jsonl')));
    return snapshot && { hash: snapshot.revisionHash, done: new Set(snapshot.completed) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The node is exactly `revision`: Node annotations, files, units; no leftovers. */
async function assertConverged(
  cluster: Cluster,
  paths: AgentProcessPaths,
  revision: NodeConfigRevision,
): Promise<void> {
  const config = revision.spec.config;
  for (const file of config.files) {
    assert.equal(await readFile(join(paths.root, file.path), 'utf8'), file.content.inline!.data, file.path);
  }
  const entries = await readdir(join(paths.root, 'etc/crash'));
  const expected = config.files.map((f) => f.path.split('/').pop()!).sort();
  assert.deepEqual(entries.sort(), expected, 'no removed file left, no temporary file left');
  const systemd = await DurableSimulatedSystemd.open(join(paths.simulationDir, 'systemd.jsonl'));
  for (const unit of config.units) {
    const state = systemd.simulation.unit(unit.name);
    assert.equal(state?.activeState, 'active', unit.name);
    assert.equal(state?.content, unit.content, unit.name);
  }
  for (const name of systemd.simulation.unitNames()) {
    if (config.units.some((u) => u.name === name)) continue;
    const state = systemd.simulation.unit(name);
    assert.equal(state?.content, undefined, `${name} removed`);
    assert.notEqual(state?.activeState, 'active', `${name} stopped`);
  }
  const annotations = (await getNode(cluster, paths.name)).metadata?.annotations ?? {};
  assert.equal(annotations['nodeherd.io/current-revision'], revision.metadata.name);
  assert.equal(annotations['nodeherd.io/state'], 'Done');
}

function actionsStarted(process: AgentProcess): string[] {
  return process.lines.filter((l) => l.msg === 'action').map((l) => String(l.action));
}

async function isDone(cluster: Cluster, name: string, revision: NodeConfigRevision): Promise<boolean> {
  const annotations = (await getNode(cluster, name)).metadata?.annotations ?? {};
  return (
    annotations['nodeherd.io/current-revision'] === revision.metadata.name &&
    annotations['nodeherd.io/state'] === 'Done'
  );
}

interface TrialStats {
  kills: number;
  selfKills: number;
  resumedWithDone: number;
}

async function crashLoop(
  cluster: Cluster,
  name: string,
  revisions: Revisions,
  stats: TrialStats,
): Promise<void> {
  await createNode(cluster, name);
  const paths = await agentPaths(cluster, name);
  let target: 'A' | 'B' = 'A';
  await setDesired(cluster, name, revisions.A.metadata.name);
  let journalAtKill: { hash: string; done: Set<string> } | undefined;
  const spawnAgent = (): AgentProcess => {
    // Half of the runs crash themselves at a random step of their first apply.
    const env =
      Math.random() < 0.5
        ? { NODEHERD_AGENT_CRASH_AT: `${random(32)}:${CRASH_POINTS[random(3)]}` }
        : undefined;
    return startAgentProcess(paths, { durations: DURATIONS, ...(env ? { env } : {}) });
  };
  const afterKill = async () => {
    stats.kills++;
    await assertNoTornFile(paths, revisions);
    journalAtKill = await journalDone(paths);
    if (journalAtKill && journalAtKill.done.size > 0) stats.resumedWithDone++;
  };
  let agent = spawnAgent();
  let trials = 0;
  while (trials < TRIALS_PER_NODE) {
    const revision: NodeConfigRevision = revisions[target];
    const converged = await eventually(
      `${name} converges to ${target} or exits`,
      async () =>
        (await isDone(cluster, name, revision)) ? 'done' : agent.hasExited() ? 'exited' : undefined,
      30_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; agent log tail: ${JSON.stringify(agent.lines.slice(-8))}`);
    });
    // The run resumed the journal left by the last kill: nothing journaled then may start again.
    const resumedJournal =
      journalAtKill?.hash === revision.spec.hash ? journalAtKill.done : new Set<string>();
    const redone: string[] = actionsStarted(agent).filter((id) => resumedJournal.has(id));
    assert.deepEqual(redone, [], `${name}: actions journaled done were started again`);
    if (converged === 'exited') {
      const exit = await agent.exited;
      assert.equal(
        exit.signal,
        'SIGKILL',
        `${name}: the agent exited on its own: ${JSON.stringify(agent.lines.slice(-3))}`,
      );
      stats.selfKills++;
      trials++;
      await afterKill();
      agent = spawnAgent();
      continue;
    }
    await assertConverged(cluster, paths, revision);
    journalAtKill = undefined;
    // Next transition, killed from outside at a random moment of it.
    target = target === 'A' ? 'B' : 'A';
    await setDesired(cluster, name, revisions[target].metadata.name);
    await new Promise((resolve) => setTimeout(resolve, random(180)));
    await agent.kill('SIGKILL');
    trials++;
    await afterKill();
    agent = spawnAgent();
  }
  // The last run converges without further crashes.
  await agent.kill('SIGKILL');
  agent = startAgentProcess(paths, { durations: DURATIONS });
  await eventually(
    `${name} final convergence`,
    () => isDone(cluster, name, revisions[target]).then((d) => d || undefined),
    30_000,
  );
  await assertConverged(cluster, paths, revisions[target]);
  await agent.kill('SIGTERM');
}

describe('agent crash safety', () => {
  let cluster: Cluster;

  before(async () => {
    cluster = await startCluster();
  });
  after(async () => {
    await killAllAgentProcesses();
    await cluster?.stop();
  });

  it(`converges after ${NODES * TRIALS_PER_NODE} SIGKILLs at random steps, with no torn file and no step redone`, async () => {
    const revisions = {
      A: await createRevision(cluster, 'crash', crashSpec('A')),
      B: await createRevision(cluster, 'crash', crashSpec('B')),
    };
    const stats: TrialStats = { kills: 0, selfKills: 0, resumedWithDone: 0 };
    const started = Date.now();
    await Promise.all(
      Array.from({ length: NODES }, (_, i) => crashLoop(cluster, `crash-${i}`, revisions, stats)),
    );
    assert.ok(stats.kills >= 50, `${stats.kills} kills`);
    assert.ok(stats.selfKills > 0 && stats.resumedWithDone > 0, JSON.stringify(stats));
    process.stdout.write(`# crash test: ${JSON.stringify(stats)} in ${Date.now() - started} ms\n`);
  });

  it('restarts itself last for a self-update, exits, and finishes in its next process', async () => {
    const name = 'self-update';
    await createNode(cluster, name);
    const paths = await agentPaths(cluster, name);
    const spec = (version: string): NodeConfigSpec => ({
      files: [
        {
          path: '/usr/local/bin/nodeherd-agent',
          mode: 0o755,
          content: { inline: { data: `#!/bin/sh\n# ${version}\n` } },
        },
        { path: '/etc/other.conf', content: { inline: { data: version } } },
      ],
      units: [
        {
          name: 'nodeherd-agent.service',
          content: '[Service]\nExecStart=/usr/local/bin/nodeherd-agent\nRestart=always\n',
          filePaths: ['/usr/local/bin/nodeherd-agent'],
        },
        {
          name: 'other.service',
          content: '[Service]\nExecStart=/bin/other\n',
          filePaths: ['/etc/other.conf'],
        },
      ],
    });
    const v1 = await createRevision(cluster, 'agents', spec('v1'));
    const v2 = await createRevision(cluster, 'agents', spec('v2'));
    await setDesired(cluster, name, v1.metadata.name);
    let agent = startAgentProcess(paths, { args: ['--exit-on-restart'] });
    await eventually('v1 applied', () => isDone(cluster, name, v1).then((d) => d || undefined));

    await setDesired(cluster, name, v2.metadata.name);
    const exit = await agent.exited;
    assert.equal(exit.code, 0, 'exited for the self-restart');
    assert.ok(agent.lines.some((l) => l.msg === 'restarting the agent itself'));
    const journal = await journalDone(paths);
    assert.ok(
      journal && !journal.done.has('restart-unit:nodeherd-agent.service'),
      'the self-restart is not journaled before',
    );

    agent = startAgentProcess(paths, { args: ['--exit-on-restart'] });
    await eventually('v2 applied', () => isDone(cluster, name, v2).then((d) => d || undefined));
    assert.ok(agent.lines.some((l) => l.msg === 'restarted after self-update'));
    assert.deepEqual(actionsStarted(agent), [], 'the new process only finishes the journal');
    await agent.kill('SIGTERM');
    const systemd = await DurableSimulatedSystemd.open(join(paths.simulationDir, 'systemd.jsonl'));
    assert.equal(systemd.simulation.restarts('nodeherd-agent.service'), 1);
    assert.equal(systemd.simulation.restarts('other.service'), 1);
    assert.equal(
      await readFile(join(paths.root, 'usr/local/bin/nodeherd-agent'), 'utf8'),
      '#!/bin/sh\n# v2\n',
    );
  });
});

// Simulated systemd whose state survives its process: the one way simulated units persist, for agents
// run as child processes (the crash test kills them with SIGKILL) and for the simulated nodes of
// `nodeherd up` across runs. Real systemd outlives the agent: a unit it started keeps running. The
// in-memory SimulatedSystemd does not, so this wrapper appends every successful change to a JSON Lines
// log (fdatasynced before the call returns, so anything the agent could have journaled as done is in
// the log) and replays the log into the simulation at start, restart counts included.

import { closeSync, fdatasyncSync, openSync, readFileSync, truncateSync, writeSync } from 'node:fs';
import {
  SimulatedSystemd,
  type SimulatedSystemdOptions,
  type SystemdOperation,
} from './simulated-systemd.ts';
import type { SystemdExecutor, UnitStatus } from './types.ts';

type Change = { op: Exclude<SystemdOperation, 'status'>; args: string[] };

const CHANGES = new Set<string>([
  'writeUnit',
  'removeUnit',
  'writeDropIn',
  'removeDropIn',
  'daemonReload',
  'enable',
  'disable',
  'start',
  'stop',
  'restart',
  'reload',
]);

export type { Change as SystemdChange };

export class DurableSimulatedSystemd<S extends SimulatedSystemd = SimulatedSystemd>
  implements SystemdExecutor
{
  /** The simulation itself (after replay): its call log, failures and unit snapshots. */
  readonly simulation: S;
  private readonly logPath: string;

  private constructor(logPath: string, simulation: S) {
    this.logPath = logPath;
    this.simulation = simulation;
  }

  /**
   * Replays the log at `logPath` (if any) into `simulation`, a simulation already built, at its own
   * timing, and logs every later change made through the wrapper. `replays` picks the changes to
   * replay; the log keeps them all.
   */
  static async attach<S extends SimulatedSystemd>(
    simulation: S,
    logPath: string,
    replays: (change: Change) => boolean = () => true,
  ): Promise<DurableSimulatedSystemd<S>> {
    for (const change of readChanges(logPath)) {
      // A replayed call that fails failed the first time too (it was logged after succeeding, so
      // this only happens with a log from another build): the state stays as systemd left it.
      if (replays(change)) await replay(simulation, change).catch(() => {});
    }
    return new DurableSimulatedSystemd(logPath, simulation);
  }

  /** Replays the log at `logPath` (if any) into a new simulation, then applies the timing options. */
  static async open(
    logPath: string,
    options: SimulatedSystemdOptions = {},
  ): Promise<DurableSimulatedSystemd> {
    const { durations, targetDurations, ...seed } = options;
    const durable = await DurableSimulatedSystemd.attach(new SimulatedSystemd(seed), logPath);
    const simulation = durable.simulation;
    for (const [op, ms] of Object.entries(durations ?? {}))
      simulation.recorder.setDuration(op as SystemdOperation, ms);
    for (const [target, byOp] of Object.entries(targetDurations ?? {})) {
      for (const [op, ms] of Object.entries(byOp))
        simulation.recorder.setDuration(op as SystemdOperation, ms, target);
    }
    return durable;
  }

  writeUnit(name: string, content: string): Promise<void> {
    return this.change('writeUnit', [name, content], () => this.simulation.writeUnit(name, content));
  }
  removeUnit(name: string): Promise<void> {
    return this.change('removeUnit', [name], () => this.simulation.removeUnit(name));
  }
  writeDropIn(unit: string, dropIn: string, content: string): Promise<void> {
    return this.change('writeDropIn', [unit, dropIn, content], () =>
      this.simulation.writeDropIn(unit, dropIn, content),
    );
  }
  removeDropIn(unit: string, dropIn: string): Promise<void> {
    return this.change('removeDropIn', [unit, dropIn], () => this.simulation.removeDropIn(unit, dropIn));
  }
  unitFileState(name: string): Promise<string> {
    return this.simulation.unitFileState(name);
  }
  readUnit(name: string): Promise<string | undefined> {
    return this.simulation.readUnit(name);
  }
  readDropIn(unit: string, dropIn: string): Promise<string | undefined> {
    return this.simulation.readDropIn(unit, dropIn);
  }
  daemonReload(): Promise<void> {
    return this.change('daemonReload', [], () => this.simulation.daemonReload());
  }
  enable(name: string): Promise<void> {
    return this.change('enable', [name], () => this.simulation.enable(name));
  }
  disable(name: string): Promise<void> {
    return this.change('disable', [name], () => this.simulation.disable(name));
  }
  start(name: string): Promise<void> {
    return this.change('start', [name], () => this.simulation.start(name));
  }
  stop(name: string): Promise<void> {
    return this.change('stop', [name], () => this.simulation.stop(name));
  }
  restart(name: string): Promise<void> {
    return this.change('restart', [name], () => this.simulation.restart(name));
  }
  reload(name: string): Promise<void> {
    return this.change('reload', [name], () => this.simulation.reload(name));
  }
  isActive(name: string): Promise<boolean> {
    return this.simulation.isActive(name);
  }
  isFailed(name: string): Promise<boolean> {
    return this.simulation.isFailed(name);
  }
  status(name: string): Promise<UnitStatus> {
    return this.simulation.status(name);
  }
  journal(name: string, lines: number): Promise<string[]> {
    return this.simulation.journal(name, lines);
  }

  private async change(op: Change['op'], args: string[], run: () => Promise<void>): Promise<void> {
    await run();
    const fd = openSync(this.logPath, 'a', 0o600);
    try {
      writeSync(fd, `${JSON.stringify({ op, args })}\n`);
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}

/**
 * The changes in a log. A torn last line (killed mid-append: that call never returned) is cut off,
 * so the next append starts on a line of its own.
 */
function readChanges(logPath: string): Change[] {
  let bytes: Buffer;
  try {
    bytes = readFileSync(logPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const whole = bytes.lastIndexOf(0x0a) + 1;
  if (whole < bytes.length) truncateSync(logPath, whole);
  const changes: Change[] = [];
  for (const line of bytes.subarray(0, whole).toString('utf8').split('\n')) {
    if (line === '') continue;
    try {
      const parsed = JSON.parse(line) as Change;
      if (CHANGES.has(parsed.op) && Array.isArray(parsed.args)) changes.push(parsed);
    } catch {
      // not written by this module: ignored
    }
  }
  return changes;
}

function replay(systemd: SimulatedSystemd, change: Change): Promise<void> {
  const [a = '', b = '', c = ''] = change.args;
  const call: Record<Change['op'], () => Promise<void>> = {
    writeUnit: () => systemd.writeUnit(a, b),
    removeUnit: () => systemd.removeUnit(a),
    writeDropIn: () => systemd.writeDropIn(a, b, c),
    removeDropIn: () => systemd.removeDropIn(a, b),
    daemonReload: () => systemd.daemonReload(),
    enable: () => systemd.enable(a),
    disable: () => systemd.disable(a),
    start: () => systemd.start(a),
    stop: () => systemd.stop(a),
    restart: () => systemd.restart(a),
    reload: () => systemd.reload(a),
  };
  return call[change.op]();
}

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
/** The changes that take a unit name only. */
type UnitVerb = 'enable' | 'disable' | 'start' | 'stop' | 'restart' | 'reload';

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
      if (replays(change)) await perform(simulation, change).catch(() => {});
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

  readonly enable = this.unitChange('enable');
  readonly disable = this.unitChange('disable');
  readonly start = this.unitChange('start');
  readonly stop = this.unitChange('stop');
  readonly restart = this.unitChange('restart');
  readonly reload = this.unitChange('reload');

  writeUnit(name: string, content: string): Promise<void> {
    return this.change({ op: 'writeUnit', args: [name, content] });
  }
  removeUnit(name: string): Promise<void> {
    return this.change({ op: 'removeUnit', args: [name] });
  }
  writeDropIn(unit: string, dropIn: string, content: string): Promise<void> {
    return this.change({ op: 'writeDropIn', args: [unit, dropIn, content] });
  }
  removeDropIn(unit: string, dropIn: string): Promise<void> {
    return this.change({ op: 'removeDropIn', args: [unit, dropIn] });
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
    return this.change({ op: 'daemonReload', args: [] });
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

  /** `systemctl <verb> <name>`, made and logged like any change. */
  private unitChange(op: UnitVerb): (name: string) => Promise<void> {
    return (name) => this.change({ op, args: [name] });
  }

  /** Makes the change in the simulation (as a replay would), then logs it: only what succeeded. */
  private async change(change: Change): Promise<void> {
    await perform(this.simulation, change);
    const fd = openSync(this.logPath, 'a', 0o600);
    try {
      writeSync(fd, `${JSON.stringify({ op: change.op, args: change.args })}\n`);
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

/** Makes `change` in `systemd`: a call through the wrapper, or one replayed from the log. */
function perform(systemd: SimulatedSystemd, change: Change): Promise<void> {
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

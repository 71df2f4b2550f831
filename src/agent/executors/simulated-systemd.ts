// An in-memory systemd for simulated nodes and tests. It keeps the parts of systemd's behaviour an
// agent can get wrong: unit files only take effect after daemon-reload; starting an active unit is
// a no-op; a unit that fails to start is 'failed' until started again; reload needs an active unit
// that has ExecReload=; a unit in /etc/systemd/system overrides the vendor one shipped by a package.

import { randomBytes } from 'node:crypto';
import { type FailureInjection, SimulationRecorder, type SimulationTiming } from './simulation-recorder.ts';
import type { SystemdExecutor, UnitStatus } from './types.ts';
import { assertDropInName, assertUnitName } from './unit-names.ts';

export type SystemdOperation =
  | 'writeUnit'
  | 'removeUnit'
  | 'writeDropIn'
  | 'removeDropIn'
  | 'daemonReload'
  | 'enable'
  | 'disable'
  | 'start'
  | 'stop'
  | 'restart'
  | 'reload'
  | 'status';

/** A snapshot of one simulated unit. */
export interface SimulatedUnit {
  /** Shipped by a package (/lib/systemd/system); undefined if none. */
  vendorContent: string | undefined;
  /** Written by the agent (/etc/systemd/system); undefined if none. */
  content: string | undefined;
  dropIns: Record<string, string>;
  /** The definition systemd loaded at the last daemon-reload; undefined if it never saw the unit. */
  loaded: string | undefined;
  enabled: boolean;
  activeState: string;
  subState: string;
  invocationId: string | undefined;
  /** Automatic restarts (Restart=) since the last manual start. */
  nRestarts: number;
  /** Successful restarts through this executor: what the agent's restart metrics count. */
  restarts: number;
}

export interface SimulatedSystemdOptions extends SimulationTiming<SystemdOperation> {
  /** Units present before the agent runs (vendor units, loaded; active ones are running). */
  units?: Record<string, { content?: string; enabled?: boolean; active?: boolean }>;
  /** Each line the simulated journal gets. */
  onJournal?: (unit: string, message: string) => void;
}

/** Journal lines kept per unit. */
const JOURNAL_LINES = 50;

export class UnitNotFoundError extends Error {
  constructor(name: string, why: string) {
    super(`Unit ${name} ${why}.`);
    this.name = 'UnitNotFoundError';
  }
}

export class SimulatedSystemd implements SystemdExecutor {
  readonly recorder: SimulationRecorder<SystemdOperation>;
  private readonly units = new Map<string, SimulatedUnit>();
  private readonly journals = new Map<string, string[]>();
  private readonly onJournal: SimulatedSystemdOptions['onJournal'];

  constructor(options: SimulatedSystemdOptions = {}) {
    this.recorder = new SimulationRecorder(options);
    this.onJournal = options.onJournal;
    for (const [name, seed] of Object.entries(options.units ?? {})) {
      assertUnitName(name);
      const unit = this.entry(name);
      unit.vendorContent = seed.content ?? `[Service]\nExecStart=/usr/bin/${name.replace(/\..*$/, '')}\n`;
      unit.loaded = definitionOf(unit);
      unit.enabled = seed.enabled ?? false;
      if (seed.active) this.activate(unit);
    }
  }

  /** Every call, in order. */
  get calls() {
    return this.recorder.calls;
  }

  /** Makes an operation fail, e.g. fail('start', 'x.service') or fail('restart', 'x.service', {times: 1}). */
  fail(op: SystemdOperation, unit: string | undefined, injection?: FailureInjection): void {
    this.recorder.fail(op, unit, injection);
  }

  unit(name: string): SimulatedUnit | undefined {
    const unit = this.units.get(name);
    return unit && { ...unit, dropIns: { ...unit.dropIns } };
  }

  unitNames(): string[] {
    return [...this.units.keys()].sort();
  }

  /** Every line the unit's journal keeps (the last 50), oldest first. */
  journalLines(unit: string): string[] {
    return [...(this.journals.get(unit) ?? [])];
  }

  /** Appends a line to a unit's journal (what the unit's program or systemd would log about it). */
  log(unit: string, message: string): void {
    let lines = this.journals.get(unit);
    if (!lines) {
      lines = [];
      this.journals.set(unit, lines);
    }
    lines.push(message);
    if (lines.length > JOURNAL_LINES) lines.shift();
    this.onJournal?.(unit, message);
  }

  /** `journalctl -u <name> -n <lines> -o cat`. */
  async journal(name: string, lines: number): Promise<string[]> {
    assertUnitName(name);
    return lines > 0 ? this.journalLines(name).slice(-lines) : [];
  }

  /** Successful restarts of `name` through this executor. */
  restarts(name: string): number {
    return this.units.get(name)?.restarts ?? 0;
  }

  /** True when the files on disk differ from what systemd loaded (systemctl would warn). */
  needsDaemonReload(name: string): boolean {
    const unit = this.units.get(name);
    return unit !== undefined && definitionOf(unit) !== unit.loaded;
  }

  /** The service's process dies: with Restart= systemd restarts it (NRestarts+1), otherwise it fails. */
  simulateCrash(name: string, options: { restartPolicy: boolean }): void {
    const unit = this.units.get(name);
    if (unit?.activeState !== 'active') return;
    if (options.restartPolicy) {
      unit.nRestarts += 1;
      unit.invocationId = newInvocationId();
    } else {
      setState(unit, 'failed', 'failed');
    }
  }

  async writeUnit(name: string, content: string): Promise<void> {
    assertUnitName(name);
    return this.recorder.run('writeUnit', name, () => {
      this.entry(name).content = content;
    });
  }

  async removeUnit(name: string): Promise<void> {
    assertUnitName(name);
    return this.recorder.run('removeUnit', name, () => {
      const unit = this.units.get(name);
      if (unit) unit.content = undefined;
    });
  }

  async writeDropIn(unit: string, dropIn: string, content: string): Promise<void> {
    assertUnitName(unit);
    assertDropInName(dropIn);
    return this.recorder.run('writeDropIn', `${unit}/${dropIn}`, () => {
      this.entry(unit).dropIns[dropIn] = content;
    });
  }

  async removeDropIn(unit: string, dropIn: string): Promise<void> {
    assertUnitName(unit);
    assertDropInName(dropIn);
    return this.recorder.run('removeDropIn', `${unit}/${dropIn}`, () => {
      const entry = this.units.get(unit);
      if (entry) delete entry.dropIns[dropIn];
    });
  }

  async readUnit(name: string): Promise<string | undefined> {
    assertUnitName(name);
    return this.units.get(name)?.content;
  }

  async readDropIn(unit: string, dropIn: string): Promise<string | undefined> {
    assertUnitName(unit);
    assertDropInName(dropIn);
    return this.units.get(unit)?.dropIns[dropIn];
  }

  async daemonReload(): Promise<void> {
    return this.recorder.run('daemonReload', undefined, () => {
      for (const unit of this.units.values()) {
        // A running unit whose file is gone stays loaded until it stops, as in systemd.
        const keepRunning = unit.activeState === 'active' ? unit.loaded : undefined;
        unit.loaded = definitionOf(unit) ?? keepRunning;
      }
    });
  }

  async enable(name: string): Promise<void> {
    return this.recorder.run('enable', name, () => {
      this.withFile(name).enabled = true;
    });
  }

  async disable(name: string): Promise<void> {
    return this.recorder.run('disable', name, () => {
      this.withFile(name).enabled = false;
    });
  }

  async start(name: string): Promise<void> {
    return this.activating('start', name, (unit) => {
      if (unit.activeState !== 'active') this.activate(unit);
    });
  }

  async stop(name: string): Promise<void> {
    return this.recorder.run('stop', name, () => {
      const unit = this.loadedUnit(name);
      setState(unit, 'inactive', 'dead');
      unit.invocationId = undefined;
    });
  }

  async restart(name: string): Promise<void> {
    return this.activating('restart', name, (unit) => {
      this.activate(unit);
      unit.restarts += 1;
    });
  }

  async reload(name: string): Promise<void> {
    return this.recorder.run('reload', name, () => {
      const unit = this.loadedUnit(name);
      if (unit.activeState !== 'active') {
        throw new Error(`Unit ${name} cannot be reloaded because it is inactive.`);
      }
      if (!unit.loaded!.includes('ExecReload=')) {
        throw new Error(`Job type reload is not applicable for unit ${name}.`);
      }
    });
  }

  async isActive(name: string): Promise<boolean> {
    return (await this.status(name)).activeState === 'active';
  }

  async isFailed(name: string): Promise<boolean> {
    return (await this.status(name)).activeState === 'failed';
  }

  async status(name: string): Promise<UnitStatus> {
    assertUnitName(name);
    return this.recorder.run('status', name, () => {
      const unit = this.units.get(name);
      if (!unit) return { activeState: 'inactive', subState: 'dead', nRestarts: 0 };
      const status: UnitStatus = {
        activeState: unit.activeState,
        subState: unit.subState,
        nRestarts: unit.nRestarts,
        unitFileState: definitionOf(unit) === undefined ? 'not-found' : unit.enabled ? 'enabled' : 'disabled',
      };
      if (unit.invocationId) status.invocationId = unit.invocationId;
      return status;
    });
  }

  async unitFileState(name: string): Promise<string> {
    assertUnitName(name);
    const unit = this.units.get(name);
    if (!unit || definitionOf(unit) === undefined) return 'not-found';
    return unit.enabled ? 'enabled' : 'disabled';
  }

  private entry(name: string): SimulatedUnit {
    let unit = this.units.get(name);
    if (!unit) {
      unit = {
        vendorContent: undefined,
        content: undefined,
        dropIns: {},
        loaded: undefined,
        enabled: false,
        activeState: 'inactive',
        subState: 'dead',
        invocationId: undefined,
        nRestarts: 0,
        restarts: 0,
      };
      this.units.set(name, unit);
    }
    return unit;
  }

  // enable/disable read the unit file from disk, loaded or not.
  private withFile(name: string): SimulatedUnit {
    assertUnitName(name);
    const unit = this.units.get(name);
    if (!unit || (unit.content === undefined && unit.vendorContent === undefined)) {
      throw new UnitNotFoundError(name, 'file does not exist');
    }
    return unit;
  }

  // start/stop/restart/reload act on what systemd loaded, which may be stale or absent.
  private loadedUnit(name: string): SimulatedUnit {
    assertUnitName(name);
    const unit = this.units.get(name);
    if (!unit || unit.loaded === undefined) throw new UnitNotFoundError(name, 'not found');
    return unit;
  }

  /** A start or restart job: `change` on the loaded unit; a job that fails leaves the unit failed. */
  private activating(
    op: 'start' | 'restart',
    name: string,
    change: (unit: SimulatedUnit) => void,
  ): Promise<void> {
    return this.recorder.run(
      op,
      name,
      () => change(this.loadedUnit(name)),
      () => this.markFailed(name),
    );
  }

  private activate(unit: SimulatedUnit): void {
    setState(unit, 'active', 'running');
    unit.invocationId = newInvocationId();
    unit.nRestarts = 0;
  }

  private markFailed(name: string): void {
    const unit = this.units.get(name);
    if (unit?.loaded !== undefined) setState(unit, 'failed', 'failed');
  }
}

/** What systemd would load from disk: the /etc file (or else the vendor file) plus drop-ins. */
function definitionOf(unit: SimulatedUnit): string | undefined {
  const base = unit.content ?? unit.vendorContent;
  if (base === undefined) return undefined;
  const dropIns = Object.keys(unit.dropIns)
    .sort()
    .map((name) => `\n# ${name}\n${unit.dropIns[name]}`);
  return base + dropIns.join('');
}

function setState(unit: SimulatedUnit, activeState: string, subState: string): void {
  unit.activeState = activeState;
  unit.subState = subState;
}

function newInvocationId(): string {
  return randomBytes(16).toString('hex');
}

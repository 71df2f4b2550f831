// The real SystemdExecutor: unit files and drop-ins are written under <root>/etc/systemd/system
// through a FileExecutor; everything else runs `systemctl`.
//
// systemctl always acts on the live system it talks to over D-Bus, whatever directory the files
// went to, so with a rootDir other than '/' commands are refused (see live-system-guard.ts).

import { CommandError, runChecked } from './command-runner.ts';
import { HostToolExecutor, type HostToolOptions } from './host-tool-executor.ts';
import {
  daemonReloadArgs,
  journalArgs,
  parseShowOutput,
  showArgs,
  type UnitVerb,
  unitVerbArgs,
} from './systemctl-commands.ts';
import type { SystemdExecutor, UnitStatus } from './types.ts';
import { dropInDirectory, dropInPath, unitFilePath } from './unit-names.ts';

const UNIT_FILE_MODE = 0o644;
const DEFAULT_TIMEOUT_MS = 5 * 60_000; // above systemd's default 90 s start timeout, with margin
/** journalctl is asked only after a failure: it must not hold the report up for long. */
const JOURNAL_TIMEOUT_MS = 10_000;
const JOURNAL_MAX_OUTPUT_BYTES = 1024 * 1024;

/** allowLiveCommands: run systemctl even though rootDir is not '/'; see the comment at the top. */
export interface SystemctlExecutorOptions extends HostToolOptions {
  /** Default 'systemctl' (looked up in PATH). */
  systemctlPath?: string;
  /** Default 'journalctl' (looked up in PATH), run through the same runner (the node's namespaces). */
  journalctlPath?: string;
  /**
   * systemd's $INVOCATION_ID of the unit this process runs in (default: from the environment), to
   * recognise a restart or stop of the agent's own unit.
   */
  invocationId?: string;
}

export class SystemctlExecutor extends HostToolExecutor implements SystemdExecutor {
  private readonly systemctlPath: string;
  private readonly journalctlPath: string;
  private readonly invocationId: string | undefined;

  constructor(options: SystemctlExecutorOptions = {}) {
    super(options, DEFAULT_TIMEOUT_MS);
    this.systemctlPath = options.systemctlPath ?? 'systemctl';
    this.journalctlPath = options.journalctlPath ?? 'journalctl';
    this.invocationId = 'invocationId' in options ? options.invocationId : process.env.INVOCATION_ID;
  }

  async writeUnit(name: string, content: string): Promise<void> {
    return this.files.write(unitFilePath(name), Buffer.from(content), { mode: UNIT_FILE_MODE });
  }

  /** Removes the unit file only; its drop-ins are removed one by one like any other change. */
  async removeUnit(name: string): Promise<void> {
    return this.files.remove(unitFilePath(name));
  }

  async writeDropIn(unit: string, dropIn: string, content: string): Promise<void> {
    return this.files.write(dropInPath(unit, dropIn), Buffer.from(content), { mode: UNIT_FILE_MODE });
  }

  async removeDropIn(unit: string, dropIn: string): Promise<void> {
    await this.files.remove(dropInPath(unit, dropIn));
    await this.files.removeDirectoryIfEmpty(dropInDirectory(unit));
  }

  async readUnit(name: string): Promise<string | undefined> {
    return this.readText(unitFilePath(name));
  }

  async readDropIn(unit: string, dropIn: string): Promise<string | undefined> {
    return this.readText(dropInPath(unit, dropIn));
  }

  /** A regular file's text; anything else (missing, a symlink, a directory) reads as absent. */
  private async readText(path: string): Promise<string | undefined> {
    const found = await this.files.read(path);
    return found?.kind === 'file' ? found.content.toString('utf8') : undefined;
  }

  async daemonReload(): Promise<void> {
    await this.systemctl(daemonReloadArgs());
  }

  async enable(name: string): Promise<void> {
    return this.verb('enable', name);
  }

  async disable(name: string): Promise<void> {
    return this.verb('disable', name);
  }

  async start(name: string): Promise<void> {
    return this.verb('start', name);
  }

  async stop(name: string): Promise<void> {
    if (await this.isOwnUnit(name)) return this.enqueueForOwnUnit('stop', name);
    return this.verb('stop', name);
  }

  /**
   * Restarting the unit this process runs in must not wait for the job: stopping the unit sends
   * SIGTERM to its whole control group, systemctl included, which then fails although the restart
   * goes ahead. So the job is only enqueued and systemd ends this process soon after.
   */
  async restart(name: string): Promise<void> {
    if (await this.isOwnUnit(name)) return this.enqueueForOwnUnit('restart', name);
    return this.verb('restart', name);
  }

  async reload(name: string): Promise<void> {
    return this.verb('reload', name);
  }

  async isActive(name: string): Promise<boolean> {
    const { activeState } = await this.status(name);
    return activeState === 'active' || activeState === 'reloading';
  }

  async isFailed(name: string): Promise<boolean> {
    return (await this.status(name)).activeState === 'failed';
  }

  async status(name: string): Promise<UnitStatus> {
    return parseShowOutput((await this.systemctl(showArgs(name))).stdout);
  }

  async unitFileState(name: string): Promise<string> {
    this.assertLiveCommandsAllowed('systemctl');
    const args = ['is-enabled', '--', name];
    // Exits non-zero for every state but enabled ones, and still prints the state.
    const result = await this.runner.run(this.systemctlPath, args, { timeoutMs: this.timeoutMs });
    const state = result.stdout.trim().split('\n')[0];
    if (state) return state;
    if (/No such file|not found|does not exist/i.test(result.stderr)) return 'not-found';
    throw new CommandError(this.systemctlPath, args, result);
  }

  async journal(name: string, lines: number): Promise<string[]> {
    this.assertLiveCommandsAllowed('journalctl');
    const args = journalArgs(name, lines);
    try {
      // Bounded: -n caps the lines, maxOutputBytes a unit that logs enormous lines.
      const result = await this.runner.run(this.journalctlPath, args, {
        timeoutMs: JOURNAL_TIMEOUT_MS,
        maxOutputBytes: JOURNAL_MAX_OUTPUT_BYTES,
      });
      if (result.code !== 0) return [];
      return result.stdout.split('\n').filter((line, i, all) => line !== '' || i < all.length - 1);
    } catch {
      // No journalctl, or output past the cap: the failure is reported without its journal.
      return [];
    }
  }

  private async verb(verb: UnitVerb, name: string): Promise<void> {
    await this.systemctl(unitVerbArgs(verb, name));
  }

  /**
   * Enqueues a stop or restart of this process's own unit. systemd answers the request before it
   * runs the job, and running it SIGTERMs the whole control group, this systemctl too if it has not
   * exited yet (seen on real systemd: `--no-block restart ... exited with -1`). So a systemctl killed
   * by a signal here delivered its request.
   */
  private async enqueueForOwnUnit(verb: 'stop' | 'restart', name: string): Promise<void> {
    this.assertLiveCommandsAllowed('systemctl');
    const args = unitVerbArgs(verb, name, { noBlock: true });
    const result = await this.runner.run(this.systemctlPath, args, { timeoutMs: this.timeoutMs });
    if (result.code !== 0 && result.code !== -1) throw new CommandError(this.systemctlPath, args, result);
  }

  /** Whether `name` is the unit this process runs in (same invocation id). */
  private async isOwnUnit(name: string): Promise<boolean> {
    if (!this.invocationId) return false;
    return (await this.status(name)).invocationId === this.invocationId;
  }

  private async systemctl(args: string[]) {
    this.assertLiveCommandsAllowed('systemctl');
    return runChecked(this.runner, this.systemctlPath, args, { timeoutMs: this.timeoutMs });
  }
}

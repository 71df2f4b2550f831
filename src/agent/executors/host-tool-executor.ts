// What the executors that drive the node's own tools (systemctl and journalctl, apt-get, dnf) share:
// their files go under a root directory through a FileExecutor, their commands run through a
// CommandRunner with a timeout, and those commands are refused when the root is not '/' unless the
// caller says both are the same system (live-system-guard.ts).

import { resolve } from 'node:path';
import { type CommandRunner, execFileRunner } from './command-runner.ts';
import { assertLiveCommandsAllowed } from './live-system-guard.ts';
import { LocalFileExecutor } from './local-file-executor.ts';
import type { FileExecutor } from './types.ts';

export interface HostToolOptions {
  /** Default '/'. */
  rootDir?: string;
  /** Default: a LocalFileExecutor on rootDir. */
  files?: FileExecutor;
  /** Default: execFile, no shell. */
  runner?: CommandRunner;
  /** Run the tools on the live system even though rootDir is not '/' (see live-system-guard.ts). */
  allowLiveCommands?: boolean;
  /** How long one command may take (default: the executor's own). */
  timeoutMs?: number;
}

export abstract class HostToolExecutor {
  protected readonly rootDir: string;
  protected readonly files: FileExecutor;
  protected readonly runner: CommandRunner;
  protected readonly timeoutMs: number;
  private readonly allowLiveCommands: boolean;

  protected constructor(options: HostToolOptions, defaultTimeoutMs: number) {
    this.rootDir = resolve(options.rootDir ?? '/');
    this.files = options.files ?? new LocalFileExecutor(this.rootDir);
    this.runner = options.runner ?? execFileRunner;
    this.allowLiveCommands = options.allowLiveCommands ?? false;
    this.timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
  }

  /** Throws LiveSystemRefusedError when `tool` would act on another system than the root's files. */
  protected assertLiveCommandsAllowed(tool: string): void {
    assertLiveCommandsAllowed(tool, this.rootDir, this.allowLiveCommands);
  }
}

type Environment = Record<string, string | undefined>;

export interface PackageToolOptions extends HostToolOptions {
  /** Base environment (default process.env); the package manager's own variables are added to it. */
  env?: Environment;
}

/**
 * A package manager's executor (apt, dnf): its tools run with the caller's environment plus the
 * variables that make them non-interactive and their answers parseable.
 */
export abstract class PackageToolExecutor extends HostToolExecutor {
  protected readonly env: Environment;

  protected constructor(
    options: PackageToolOptions,
    defaultTimeoutMs: number,
    withVariables: (base: Environment) => Environment,
  ) {
    super(options, defaultTimeoutMs);
    this.env = withVariables(options.env ?? process.env);
  }
}

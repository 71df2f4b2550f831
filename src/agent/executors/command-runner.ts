// Runs an external program (systemctl, apt-get, dpkg-query) without a shell: arguments are passed
// as a list, so no config value can ever be interpreted as shell syntax. Injectable so the real
// backends can be driven by a simulated node or a recording runner.

import { execFile } from 'node:child_process';

export interface CommandResult {
  /** Exit code; -1 when the process was killed by a signal or timed out. */
  code: number;
  stdout: string;
  stderr: string;
}

export interface CommandOptions {
  /** Replaces the environment entirely when given (callers add to process.env themselves). */
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
  /** Output (stdout or stderr) beyond this many bytes kills the program and rejects (default 16 MiB). */
  maxOutputBytes?: number;
}

export interface CommandRunner {
  /** Resolves with the exit code (non-zero included); rejects only if the program cannot be started. */
  run(file: string, args: readonly string[], options?: CommandOptions): Promise<CommandResult>;
}

export class CommandError extends Error {
  readonly file: string;
  readonly args: readonly string[];
  readonly result: CommandResult;

  constructor(file: string, args: readonly string[], result: CommandResult) {
    const detail = (result.stderr.trim() || result.stdout.trim()).split('\n').slice(-5).join('\n');
    super(`${file} ${args.join(' ')} exited with ${result.code}${detail ? `: ${detail}` : ''}`);
    this.name = 'CommandError';
    this.file = file;
    this.args = args;
    this.result = result;
  }
}

const MAX_OUTPUT_BYTES = 16 * 1024 * 1024; // apt-get output on a big upgrade stays far below this

export const execFileRunner: CommandRunner = {
  run(file, args, options = {}) {
    return new Promise((resolve, reject) => {
      execFile(
        file,
        args,
        {
          env: options.env,
          timeout: options.timeoutMs ?? 0,
          maxBuffer: options.maxOutputBytes ?? MAX_OUTPUT_BYTES,
          encoding: 'utf8',
        },
        (error, stdout, stderr) => {
          if (error && typeof error.code === 'string') {
            reject(error); // ENOENT, EACCES, ...: the program never ran
            return;
          }
          const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
          resolve({ code, stdout, stderr });
        },
      );
    });
  },
};

/** Runs the command and throws a CommandError unless it exits 0. */
export async function runChecked(
  runner: CommandRunner,
  file: string,
  args: readonly string[],
  options?: CommandOptions,
): Promise<CommandResult> {
  const result = await runner.run(file, args, options);
  if (result.code !== 0) throw new CommandError(file, args, result);
  return result;
}

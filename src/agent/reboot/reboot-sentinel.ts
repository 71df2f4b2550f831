// Whether the OS asks for a reboot: Debian's sentinel file (its `.pkgs` list names the packages that
// asked), a file of the pool's choosing, and optionally a command such as RPM systems'
// `needs-restarting -r` (exit 1: a reboot is needed, 0: not). Files are read through the agent's file
// executor, so their paths are the node's, under the agent's root, walked as every managed path is;
// the command runs without a shell, with an empty environment but PATH, a timeout and bounded output.

import { DEFAULT_REBOOT_SENTINEL_FILE, REBOOT_REQUIRED_REASONS } from '../../api/node-protocol.ts';
import type { CommandRunner } from '../executors/command-runner.ts';
import type { FileExecutor } from '../executors/types.ts';

export interface OsRebootSettings {
  /** The file whose existence asks for a reboot (a `.pkgs` beside it lists packages). */
  sentinelFile: string;
  /** argv of a command asked besides the file; exit 1 = reboot needed. */
  sentinelCommand?: readonly string[];
  timeoutMs: number;
}

export const DEFAULT_OS_REBOOT_SETTINGS: OsRebootSettings = {
  sentinelFile: DEFAULT_REBOOT_SENTINEL_FILE,
  timeoutMs: 30_000,
};

/** Packages named in a message; the rest are counted. */
const MAX_LISTED_PACKAGES = 20;
/** Bytes of a `.pkgs` file looked at (Debian's lists a few names). */
const MAX_PKGS_BYTES = 16 * 1024;
/** Output of the sentinel command kept (stdout and stderr each); more kills it: a failed check. */
const MAX_SENTINEL_OUTPUT_BYTES = 64 * 1024;
const COMMAND_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export interface SentinelVerdict {
  /** true: a reboot is asked for; false: not; undefined: the check failed (and no file asks). */
  required: boolean | undefined;
  reason: string;
  message: string;
  /** Packages the `.pkgs` list names (bounded). */
  packages: string[];
}

export interface SentinelSources {
  files: FileExecutor;
  /** Absent: this agent runs no commands (simulated backends, a root other than the live system). */
  commands: CommandRunner | undefined;
}

export async function checkRebootSentinel(
  settings: OsRebootSettings,
  sources: SentinelSources,
): Promise<SentinelVerdict> {
  let file: { present: boolean; packages: string[] };
  try {
    file = await readSentinel(settings.sentinelFile, sources.files);
  } catch (error) {
    return failed(`could not read ${settings.sentinelFile}: ${(error as Error).message}`);
  }
  if (file.present) {
    const packages = file.packages;
    const listed = packages.slice(0, MAX_LISTED_PACKAGES).join(', ');
    const more =
      packages.length > MAX_LISTED_PACKAGES ? ` and ${packages.length - MAX_LISTED_PACKAGES} more` : '';
    return {
      required: true,
      reason: REBOOT_REQUIRED_REASONS.sentinelFile,
      message: `the OS asks for a reboot (${settings.sentinelFile})${packages.length > 0 ? `; packages: ${listed}${more}` : ''}`,
      packages: packages.slice(0, MAX_LISTED_PACKAGES),
    };
  }
  const command = settings.sentinelCommand;
  if (!command || command.length === 0) {
    return {
      required: false,
      reason: REBOOT_REQUIRED_REASONS.notRequired,
      message: `the OS does not ask for a reboot (no ${settings.sentinelFile})`,
      packages: [],
    };
  }
  const shown = command.join(' ');
  if (!sources.commands) {
    return failed(`cannot run the sentinel command ${shown}: this agent runs no commands on its node`);
  }
  const [program, ...args] = command as [string, ...string[]];
  let result: Awaited<ReturnType<CommandRunner['run']>>;
  try {
    result = await sources.commands.run(program, args, {
      env: { PATH: COMMAND_PATH, LANG: 'C' },
      timeoutMs: settings.timeoutMs,
      maxOutputBytes: MAX_SENTINEL_OUTPUT_BYTES,
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER'
        ? `printed more than ${MAX_SENTINEL_OUTPUT_BYTES} bytes`
        : `could not run (${code ?? (error as Error).message})`;
    return failed(`the sentinel command ${shown} ${why}`);
  }
  const said = firstLines(result.stdout || result.stderr);
  if (result.code === 1) {
    return {
      required: true,
      reason: REBOOT_REQUIRED_REASONS.sentinelCommand,
      message: `the OS asks for a reboot (${shown} exited 1)${said ? `: ${said}` : ''}`,
      packages: [],
    };
  }
  if (result.code === 0) {
    return {
      required: false,
      reason: REBOOT_REQUIRED_REASONS.notRequired,
      message: `the OS does not ask for a reboot (no ${settings.sentinelFile}; ${shown} exited 0)`,
      packages: [],
    };
  }
  const how =
    result.code === -1
      ? `was killed or ran longer than ${settings.timeoutMs / 1000} s`
      : `exited ${result.code}`;
  return failed(`the sentinel command ${shown} ${how}${said ? `: ${said}` : ''}`);
}

function failed(message: string): SentinelVerdict {
  return { required: undefined, reason: REBOOT_REQUIRED_REASONS.checkFailed, message, packages: [] };
}

async function readSentinel(
  path: string,
  files: FileExecutor,
): Promise<{ present: boolean; packages: string[] }> {
  const entry = await files.read(path);
  // A directory or a socket named like the sentinel is not Debian's file; a symlink counts as there.
  if (!entry || entry.kind === 'directory') return { present: false, packages: [] };
  let packages: string[] = [];
  try {
    const list = await files.read(`${path}.pkgs`);
    if (list?.kind === 'file') {
      const text = list.content.subarray(0, MAX_PKGS_BYTES).toString('utf8');
      packages = [
        ...new Set(
          text
            .split('\n')
            .map((line) => line.trim())
            .filter((line) => /^[\w.+:~-]{1,128}$/.test(line)),
        ),
      ];
    }
  } catch {
    // The list is a courtesy: the sentinel alone asks for the reboot.
  }
  return { present: true, packages };
}

/** The first lines a command printed, on one line, bounded (condition messages stay readable). */
function firstLines(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.replace(/[\p{Cc}]/gu, ' ').trim())
    .filter(Boolean)
    .slice(0, 3)
    .join(' / ');
  return lines.length > 300 ? `${lines.slice(0, 299)}…` : lines;
}
